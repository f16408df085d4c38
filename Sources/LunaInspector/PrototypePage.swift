import LunaLive

/// `luna export html`: the inspector's page as one self-contained file — its style, its script
/// and the prototype's data inline, no server and no other file (opens from the file system).
package enum PrototypePage {
    package static func html(_ prototype: Prototype, title: String) -> String {
        let page = String(decoding: PackageResources.index_html, as: UTF8.self)
        let style = String(decoding: PackageResources.app_css, as: UTF8.self)
        let script = String(decoding: PackageResources.app_js, as: UTF8.self)
        // The data is JSON inside a script element: `</` (only ever inside a JSON string) is
        // written `<\/`, so no text in it can end the element.
        let data = prototype.json.replacing("</", with: "<\\/")
        return
            page
            .replacing("<title>Luna inspector</title>", with: "<title>\(escaped(title)) — Luna prototype</title>")
            .replacing(#"<link rel="stylesheet" href="/app.css">"#, with: "<style>\n\(style)</style>")
            .replacing(#"<script src="/app.js" defer></script>"#, with: "")
            .replacing(
                "</body>",
                with: "<script>window.lunaPrototype = \(data);</script>\n<script>\n\(script)</script>\n</body>")
    }

    static func escaped(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;")
    }
}

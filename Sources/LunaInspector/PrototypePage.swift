import LunaLive

/// `luna export html`: the inspector's page as one self-contained file — its style, its script
/// and the prototype's data inline, no server and no other file (opens from the file system).
package enum PrototypePage {
    package static func html(_ prototype: Prototype, title: String) -> String {
        let page = String(decoding: PackageResources.index_html, as: UTF8.self)
        let style = String(decoding: PackageResources.app_css, as: UTF8.self)
        let script = Self.inlined(Assets.modules.map { String(decoding: $0.bytes, as: UTF8.self) })
        // The data is JSON inside a script element, whose text ends at `</script` and changes
        // how it is read at `<!--` and `<script`: every `<` (only ever inside a JSON string) is
        // written `\u003c`, so no text from the script can end or bend the element.
        let data = Self.scriptSafe(PrototypeCompaction.compact(prototype.json) ?? prototype.json)
        return
            page
            .replacing("<title>Luna inspector</title>", with: "<title>\(escaped(title)) — Luna prototype</title>")
            .replacing(#"<link rel="stylesheet" href="/app.css">"#, with: "<style>\n\(style)</style>")
            .replacing(#"<script type="module" src="/app.js"></script>"#, with: "")
            .replacing(
                "</body>",
                with: "<script>window.lunaPrototype = \(data);</script>\n<script>\n\(script)</script>\n</body>")
    }

    /// The page's modules as one classic script, for a file opened from the file system (a
    /// browser loads no module file from there): each module in turn, its `import` lines
    /// dropped and its `export` keywords taken off — the modules' top-level names are unique, so
    /// they share one scope as they would have shared the imports.
    static func inlined(_ modules: [String]) -> String {
        var lines = ["\"use strict\";"]
        for module in modules {
            for line in module.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("import ") { continue }
                lines.append(line.hasPrefix("export ") ? String(line.dropFirst("export ".count)) : String(line))
            }
        }
        return lines.joined(separator: "\n")
    }

    /// JSON text that can stand inside an HTML `<script>` element: `<` written as `\u003c`
    /// (and the line separators U+2028 and U+2029 as escapes, for older JavaScript parsers).
    static func scriptSafe(_ json: String) -> String {
        var result = ""
        result.reserveCapacity(json.utf8.count)
        for scalar in json.unicodeScalars {
            switch scalar {
            case "<": result += "\\u003c"
            case "\u{2028}": result += "\\u2028"
            case "\u{2029}": result += "\\u2029"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    static func escaped(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;")
    }
}

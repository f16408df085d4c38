/// The page's files, compiled into the binary (no files are read at run time).
enum Assets {
    /// The page's script modules, in an order where each comes after what it imports (the
    /// exported prototype inlines them so).
    static let modules: [(path: String, bytes: [UInt8])] = [
        ("/data.mjs", PackageResources.data_mjs), ("/history.mjs", PackageResources.history_mjs),
        ("/prototype.mjs", PackageResources.prototype_mjs), ("/map.mjs", PackageResources.map_mjs),
        ("/store.mjs", PackageResources.store_mjs), ("/app.js", PackageResources.app_js),
    ]

    static func file(_ path: String) -> (bytes: [UInt8], type: String)? {
        switch path {
        case "/", "/index.html": return (PackageResources.index_html, "text/html; charset=utf-8")
        case "/app.css": return (PackageResources.app_css, "text/css; charset=utf-8")
        default:
            guard let module = modules.first(where: { $0.path == path }) else { return nil }
            return (module.bytes, "text/javascript; charset=utf-8")
        }
    }
}

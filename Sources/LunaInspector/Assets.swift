/// The page's files, compiled into the binary (no files are read at run time).
enum Assets {
    static func file(_ path: String) -> (bytes: [UInt8], type: String)? {
        switch path {
        case "/", "/index.html": (PackageResources.index_html, "text/html; charset=utf-8")
        case "/app.js": (PackageResources.app_js, "text/javascript; charset=utf-8")
        case "/app.css": (PackageResources.app_css, "text/css; charset=utf-8")
        default: nil
        }
    }
}

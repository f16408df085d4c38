/// The platform files links need, generated from the tree: the `apple-app-site-association`
/// file a link host serves (`luna export aasa`) and the `CFBundleURLTypes` entry of the app's
/// Info.plist (`luna export plist`).
extension RouteTree {
    /// One route as an `applinks` component.
    public struct AppLinkComponent: Equatable, Sendable {
        /// The path pattern in Apple's syntax: `*` any characters (`/` included), `?` one.
        public var path: String
        /// `link = false`: the route must not open the app.
        public var exclude: Bool
        /// The route's pattern, as the file's `comment`.
        public var comment: String
    }

    /// The `applinks` components of the routes a link can reach, in the order the router ranks
    /// them (Apple takes the first component that matches, so a route that must not open the
    /// app shadows only what ranks below it, as in the router). A parameter becomes `?*` (one
    /// or more characters: Apple's patterns have no single-segment wildcard, so `books/?*` also
    /// takes `books/4/2`, which the app then refuses with `noMatch`), a catch-all `*`. Regex
    /// routes cannot be written in Apple's syntax: they are left out and named in `notes`.
    public func appLinkComponents() -> (components: [AppLinkComponent], notes: [String]) {
        var components: [AppLinkComponent] = []
        var notes: [String] = []
        for route in rankOrder() {
            let endpoint = self[route]
            guard let pattern = endpoint.definition.pattern else {
                notes.append(
                    "\(nodes[endpoint.node].id): a regex route has no form in apple-app-site-association; left out")
                continue
            }
            var prefix = ""
            for segment in pattern.segments {
                switch segment {
                case .constant(let text): prefix += "/" + Self.escapedForAppLinks(text)
                case .parameter, .wildcard: prefix += "/?*"
                case .catchAll: break
                }
            }
            var paths = [prefix.isEmpty ? "/" : prefix]
            if pattern.endsInCatchAll {
                // `books/...` takes `books` and everything below it (`/books*` would also take
                // `/bookshop`): the prefix, and the prefix with `/*`.
                paths = prefix.isEmpty ? ["/*"] : [prefix, prefix + "/*"]
            }
            for path in paths {
                components.append(
                    AppLinkComponent(path: path, exclude: !endpoint.linkable, comment: pattern.description))
            }
        }
        return (components, notes)
    }

    /// Apple's wildcards are `*` and `?`; a constant containing them is matched by a `?` in
    /// their place (one character: at most what the constant itself is).
    static func escapedForAppLinks(_ text: String) -> String {
        String(text.map { $0 == "*" || $0 == "?" ? "?" : $0 })
    }

    /// The `apple-app-site-association` file for `appIDs` (`TEAMID.bundle.id`): the `applinks`
    /// details with ``appLinkComponents()``, as Apple documents them (iOS 13 and later).
    public func appSiteAssociation(appIDs: [String]) -> String {
        let components = appLinkComponents().components.map { component -> String in
            var fields = [("/", JSONWriter.quoted(component.path))]
            if component.exclude { fields.append(("exclude", "true")) }
            fields.append(("comment", JSONWriter.quoted(component.comment)))
            return "{ " + fields.map { JSONWriter.quoted($0.0) + ": " + $0.1 }.joined(separator: ", ") + " }"
        }
        return """
            {
              "applinks": {
                "details": [
                  {
                    "appIDs": \(JSONWriter.array(appIDs.map(JSONWriter.quoted))),
                    "components": [
            \(components.map { "          " + $0 }.joined(separator: ",\n"))
                    ]
                  }
                ]
              }
            }

            """
    }

    /// A property list with the `CFBundleURLTypes` entry for the declared ``LinkDomains/schemes``
    /// (merge it into the app's Info.plist), named `name` (`CFBundleURLName`, by convention the
    /// bundle id). Empty schemes give an empty list.
    public func urlTypesPropertyList(name: String) -> String {
        func escaped(_ text: String) -> String {
            var result = ""
            for character in text {
                switch character {
                case "&": result += "&amp;"
                case "<": result += "&lt;"
                case ">": result += "&gt;"
                default: result.append(character)
                }
            }
            return result
        }
        let schemes = (links?.schemes ?? []).map { "\t\t\t\t<string>\(escaped($0))</string>" }
        let entry =
            schemes.isEmpty
            ? ""
            : """
            \t\t<dict>
            \t\t\t<key>CFBundleTypeRole</key>
            \t\t\t<string>Viewer</string>
            \t\t\t<key>CFBundleURLName</key>
            \t\t\t<string>\(escaped(name))</string>
            \t\t\t<key>CFBundleURLSchemes</key>
            \t\t\t<array>
            \(schemes.joined(separator: "\n"))
            \t\t\t</array>
            \t\t</dict>

            """
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>CFBundleURLTypes</key>
            \t<array>
            \(entry)\t</array>
            </dict>
            </plist>

            """
    }
}

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
        /// The query items a link needs (Apple's `"?"`: key → pattern), from a route whose
        /// query schema requires them; empty for most routes.
        public var query: [String: String] = [:]
    }

    /// The `applinks` components of the routes a link can reach. Apple takes the first
    /// component that matches, so the order decides: it is the router's rank order, changed
    /// only where Apple's patterns take paths the router gives another route (see
    /// `RouteTree+AppLinkOrder.swift`): an exclusion nested under an included route comes before
    /// it, and where a parameter's `?*` takes deeper paths the router decides otherwise, a
    /// component for those (`/accounts/?*/?*`, excluded) comes before the route. A parameter becomes `?*`
    /// (one or more characters), a catch-all `*`. Regex routes cannot be written in Apple's
    /// syntax: they are left out and named in `notes`, as is any path of a route the file
    /// cannot decide as the router does (a validator Apple cannot express, say).
    public func appLinkComponents() -> (components: [AppLinkComponent], notes: [String]) {
        var candidates: [AppLinkCandidate] = []
        var probes: [AppLinkProbe] = []
        var notes: [String] = []
        func add(_ path: String, exclude: Bool, route: Int, comment: String, query: [String: String] = [:]) {
            let prefix = Array(path.utf8.prefix { $0 != UInt8(ascii: "*") && $0 != UInt8(ascii: "?") })
            candidates.append(
                AppLinkCandidate(
                    component: AppLinkComponent(path: path, exclude: exclude, comment: comment, query: query),
                    route: route, prefix: prefix, glob: Array(path.utf8)))
        }
        for route in rankOrder() {
            let endpoint = endpoints[route.index]
            guard let declared = endpoint.definition.pattern else {
                notes.append(
                    "\(nodes[endpoint.node].id): a regex route has no form in apple-app-site-association; left out")
                continue
            }
            // `:id?` is written as its two forms (without it, and with a parameter); `:path+` as
            // a catch-all that needs one segment or more (its `/*` component only).
            var forms: [(pattern: Pattern, needsOne: Bool)] = [(declared, false)]
            switch declared.segments.last {
            case .optional(let name):
                let stem = Array(declared.segments.dropLast())
                forms = [(Pattern(segments: stem), false), (Pattern(segments: stem + [.parameter(name)]), false)]
            case .oneOrMore(let name):
                forms = [(Pattern(segments: declared.segments.dropLast() + [.catchAll(name)]), true)]
            default: break
            }
            for (pattern, needsOne) in forms {
                let (own, values) = appLinkProbePaths(pattern, route: route.index)
                for path in own {
                    probes.append(AppLinkProbe(path: path, opens: endpoint.linkable, route: route.index))
                }
                // Where a parameter's `?*` takes deeper paths (it spans segments) that the router
                // decides otherwise (another route, or none), a component for that depth, deciding
                // as the router does, is added; and so on for its own deeper paths, a few levels.
                func deeper(_ segments: [Pattern.Segment], values: [String], opens: Bool, level: Int) {
                    guard level < 3 else { return }
                    for (position, segment) in segments.enumerated() where segment.isParameterLike {
                        var spanned = segments
                        spanned.insert(segment, at: position)
                        var spannedValues = values
                        spannedValues.insert(values[position], at: position)
                        // A catch-all's two components (`/x` and `/x/*`) are probed apart.
                        let glob = Self.appLinkPattern(spanned)
                        let variants =
                            needsOne
                            ? [(glob + "/?*", ["a", "a/b"])]
                            : pattern.endsInCatchAll ? [(glob, [""]), (glob + "/*", ["a", "a/b"])] : [(glob, [""])]
                        for (variant, remainders) in variants {
                            var differs: Bool?
                            for remainder in remainders {
                                let path = Self.appLinkPath(spanned, values: spannedValues, remainder: remainder)
                                let decision = appLinkDecision(path)
                                probes.append(AppLinkProbe(path: path, opens: decision.opens, route: decision.route))
                                if differs == nil, decision.opens != opens { differs = decision.opens }
                            }
                            guard let decided = differs else { continue }
                            deeper(spanned, values: spannedValues, opens: decided, level: level + 1)
                            add(
                                variant, exclude: !decided, route: route.index,
                                comment: declared.description + " (deeper paths)")
                        }
                    }
                }
                deeper(pattern.segments, values: values, opens: endpoint.linkable, level: 0)
                let prefix = Self.appLinkPattern(pattern.segments)
                var paths = [prefix.isEmpty ? "/" : prefix]
                if needsOne {
                    // `files/:path+`: everything below `files`, not `files` itself.
                    paths = [prefix + "/?*"]
                } else if pattern.endsInCatchAll {
                    // `books/...` takes `books` and everything below it (`/books*` would also take
                    // `/bookshop`): the prefix, and the prefix with `/*`.
                    paths = prefix.isEmpty ? ["/*"] : [prefix, prefix + "/*"]
                }
                // A route whose query schema requires keys (no default, not optional) matches
                // only links that have them: its components say so (`"?"`), one per value of a
                // lone required enumeration; Apple cannot check a type, so such a key is `?*`
                // and a note says so.
                let required = (endpoint.definition.querySchema?.fields ?? []).filter {
                    !$0.isOptional && !$0.isList && $0.defaultValue == nil
                }
                var queries: [[String: String]] = [[:]]
                if required.count == 1, case .oneOf(let values) = required[0].kind {
                    queries = values.map { [required[0].name: Self.escapedForAppLinks($0)] }
                } else if !required.isEmpty {
                    queries = [Dictionary(uniqueKeysWithValues: required.map { ($0.name, "?*") })]
                }
                for field in required where needsNote(field, alone: required.count == 1) {
                    let validator = field.validator == nil ? "" : " and passes its validator"
                    notes.append(
                        "route '\(Lint.show(declared.description))': a link's query '\(field.name)' is matched as '?*' "
                            + "(Apple cannot check that it is \(field.kindDescription)\(validator)); "
                            + "the router gives a link whose value does not fit the next route")
                }
                for path in paths {
                    for query in queries {
                        add(
                            path, exclude: !endpoint.linkable, route: route.index, comment: declared.description,
                            query: query)
                    }
                }
            }
        }
        let (order, wrong) = Self.orderedAppLinks(candidates, probes: probes)
        let components = order.map { candidates[$0].component }
        var noted: Set<String> = []
        for probe in wrong where noted.insert(probe.path).inserted {
            let opens = !probe.opens
            let route = probe.route.map { "route '\(endpoints[$0].definition.displayText)'" } ?? "no route"
            notes.append(
                "'\(probe.path)': the router gives it \(route) and \(probe.opens ? "opens" : "does not open") the app; "
                    + "the file \(opens ? "opens" : "does not open") it (Apple's patterns cannot say it)")
        }
        return (components, notes)
    }

    /// Whether a required query key's `?*` takes values the router refuses: a type other
    /// than a string, a validator, an enumeration with other required keys beside it.
    private func needsNote(_ field: QueryField, alone: Bool) -> Bool {
        switch field.kind {
        case .string: field.validator != nil
        case .oneOf: !alone || field.validator != nil
        case .int, .number, .bool: true
        }
    }

    /// Apple's wildcards are `*` and `?`; a constant containing them is matched by a `?` in
    /// their place (one character: at most what the constant itself is).
    static func escapedForAppLinks(_ text: String) -> String {
        String(text.map { $0 == "*" || $0 == "?" ? "?" : $0 })
    }

    /// The `apple-app-site-association` file for `appIDs` (`TEAMID.bundle.id`): the `applinks`
    /// details with ``appLinkComponents()``, as Apple documents them (iOS 13 and later).
    public func appSiteAssociation(appIDs: [String]) -> String {
        appSiteAssociation(appIDs: appIDs, components: appLinkComponents().components)
    }

    /// The file with `components` already made (``appLinkComponents()``, whose notes the
    /// caller shows).
    public func appSiteAssociation(appIDs: [String], components: [AppLinkComponent]) -> String {
        let components = components.map { component -> String in
            var fields = [("/", JSONWriter.quoted(component.path))]
            if !component.query.isEmpty {
                let items = component.query.sorted { $0.key < $1.key }.map {
                    JSONWriter.quoted($0.key) + ": " + JSONWriter.quoted($0.value)
                }
                fields.append(("?", "{ " + items.joined(separator: ", ") + " }"))
            }
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

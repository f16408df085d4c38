extension RouteTree {
    /// The most redirects (and fallbacks) one dispatch follows.
    public static let maximumRedirects = 8

    /// Parses a request string: a path or URL, or a named request `NAME|{json}`.
    public func request(from string: String) throws(RouteError) -> Request {
        try parseRequest(string).request
    }

    /// The request, and whether it was a named one (a path request can be matched on its raw
    /// bytes).
    private func parseRequest(_ string: String) throws(RouteError) -> (request: Request, isNamed: Bool) {
        // Searched in place (the UTF-8 view's `firstIndex` walked its indexes: 200 instructions
        // a dispatch).
        var text = string
        if let offset = text.withUTF8({ $0.firstIndex(of: UInt8(ascii: "|")) }) {
            let bar = string.utf8.index(string.utf8.startIndex, offsetBy: offset)
            let name = String(string[..<bar])
            if !name.isEmpty, !name.contains(where: { "/?#:".contains($0) }) {
                try Request.checkSize(string.utf8.count)
                try Request.checkCharacters(string, what: "the request")
                return (try namedRequest(name, json: String(string[string.index(after: bar)...])), true)
            }
        }
        if let links { try links.check(string) }
        return (try Request(parsing: string), false)
    }

    /// A named request (RouterService-style): JSON fields that are path parameters fill the
    /// pattern, the others become query items.
    public func namedRequest(_ name: String, json: String) throws(RouteError) -> Request {
        guard let route = routeNames[name] else {
            let known = routeNames.keys.sorted()
            let hint = known.isEmpty ? "no route has a name" : "known names: " + known.joined(separator: ", ")
            throw RouteError(.unknownRoute, "no route is named '\(name)' (\(hint))")
        }
        guard !json.allSatisfy(\.isWhitespace) else {
            throw RouteError(
                .invalidRequest, "the named request '\(name)|' has no JSON (write \(name)|{} for no parameters)")
        }
        let value = try JSONReader.parse(json)
        guard case .object(let fields) = value else {
            throw RouteError(.invalidRequest, "the JSON of a named request must be an object, not \(value.kindName)")
        }
        let names = Set(matcher.parameterNames[route])
        var parameters: [String: String] = [:]
        var query: [String: String] = [:]
        for (key, field) in fields {
            // JSON escapes (\u0000) reach the same character rule as the raw text.
            let text = field.parameterText
            try Request.checkCharacters(key, what: "the field name '\(key)'")
            try Request.checkCharacters(text, what: "the value of '\(key)'")
            if names.contains(key) { parameters[key] = text } else { query[key] = text }
        }
        // A value its validator rejects is a request that matches no route, as the same path would be.
        let segments: [String]
        do { segments = try self.segments(ofRoute: route, parameters: parameters) } catch {
            throw RouteError(error.kind == .unknownRoute ? .noMatch : error.kind, "'\(name)': " + error.message)
        }
        return Request(segments: segments, query: query, fragment: nil, original: name + "|" + json)
    }

    /// Reverse routing: the path of a named route filled with `parameters`.
    ///
    /// - Throws: ``RouteError/Kind/unknownRoute`` for an unknown name, a missing parameter or
    ///   a value its validator rejects.
    ///
    /// Where the route declares a query schema, each declared key given must fit it (a list
    /// from `lists`, one value per item), and a key that has no default and is not optional
    /// must be given; defaults are left out (a dispatch fills them in).
    public func path(
        forRouteNamed name: String, parameters: [String: String], query: [String: String] = [:],
        lists: [String: [String]] = [:]
    ) throws(RouteError) -> String {
        guard let route = routeNames[name] else { throw RouteError(.unknownRoute, "no route is named '\(name)'") }
        let segments = try segments(ofRoute: route, parameters: parameters)
        if let schema = self[route].definition.querySchema {
            let shown = Lint.show(self[route].definition.displayText)
            for field in schema.fields {
                let given = lists[field.name] ?? query[field.name].map { [$0] } ?? []
                if given.isEmpty, !field.isOptional, !field.isList, field.defaultValue == nil {
                    throw RouteError(
                        .invalidRequest, "route '\(shown)' needs query '\(field.name)' (\(field.kindDescription))")
                }
                if given.count > 1, !field.isList {
                    throw RouteError(
                        .invalidRequest, "query '\(field.name)' of route '\(shown)' takes one value, not a list")
                }
                for value in given {
                    if let why = try field.misfit(value) {
                        throw RouteError(.invalidRequest, "query '\(field.name)' = '\(value)' \(why)")
                    }
                }
            }
        }
        return Request.format(segments: segments, query: query, lists: lists, fragment: nil)
    }

    /// Like a named request: values that are the route's parameters fill its pattern, the
    /// others become query items (`book` with id=42, title=Dune → `books/42?title=Dune`).
    public func path(
        forRouteNamed name: String, values: [String: String], lists: [String: [String]] = [:]
    ) throws(RouteError) -> String {
        guard let route = routeNames[name] else {
            let known = routeNames.keys.sorted()
            throw RouteError(
                .unknownRoute,
                "no route is named '\(name)'"
                    + (known.isEmpty ? "" : " (known names: \(known.joined(separator: ", ")))"))
        }
        let names = Set(matcher.parameterNames[route])
        return try path(
            forRouteNamed: name, parameters: values.filter { names.contains($0.key) },
            query: values.filter { !names.contains($0.key) }, lists: lists)
    }

    /// The request that shows endpoint `node` as it was activated: the request it was
    /// activated with, or (for a screen below the one a request matched, which was never
    /// activated itself) its pattern filled with the activation's parameters.
    ///
    /// A presenter uses it to tell the router where the user went by themselves (an
    /// interactive pop, a sheet swiped down, a tab tapped): `router.sync(request.original)`.
    ///
    /// ```swift
    /// let request = try tree.request(showing: NodeID(screen.id), activation: screen.activation)
    /// try router.sync(request.original)
    /// ```
    public func request(showing node: NodeID, activation: Activation?) throws(RouteError) -> Request {
        if let request = activation?.request { return request }
        return try request(for: node, params: activation?.params ?? [:])
    }

    /// The request that shows an endpoint with `params` (its pattern filled in).
    public func request(for node: NodeID, params: [String: String]) throws(RouteError) -> Request {
        guard let endpoint = self[node] else { throw RouteError(.unknownRoute, "no node '\(node)' in the tree") }
        guard let route = endpoint.route else {
            throw RouteError(.unknownRoute, "'\(node)' is not an endpoint")
        }
        return Request(segments: try segments(ofRoute: route, parameters: params))
    }

    private func segments(ofRoute route: RouteID, parameters: [String: String]) throws(RouteError) -> [String] {
        let definition = self[route].definition
        guard let pattern = definition.pattern else {
            throw RouteError(.unknownRoute, "route '\(definition.displayText)' is a regex and cannot be filled in")
        }
        var segments: [String] = []
        for segment in pattern.segments {
            switch segment {
            case .constant(let text): segments.append(text)
            case .parameter(let name):
                guard let value = parameters[name], !value.isEmpty else {
                    throw RouteError(.invalidRequest, "route '\(pattern)' needs parameter '\(name)'")
                }
                try check(value, name: name, route: route)
                segments.append(value)
            case .wildcard:
                throw RouteError(.unknownRoute, "route '\(pattern)' has ':_', which cannot be filled in")
            case .catchAll(let name):
                guard let name else { break }
                let value = parameters[name] ?? ""
                try check(value, name: name, route: route)
                segments.append(contentsOf: value.split(separator: "/").map(String.init))
            case .optional(let name):
                // Absent (or empty): the pattern without it.
                guard let value = parameters[name], !value.isEmpty else { break }
                try check(value, name: name, route: route)
                segments.append(value)
            case .oneOrMore(let name):
                let parts = (parameters[name] ?? "").split(separator: "/").map(String.init)
                guard !parts.isEmpty else {
                    throw RouteError(
                        .invalidRequest, "route '\(pattern)' needs parameter '\(name)' (one segment or more)")
                }
                try check(parameters[name] ?? "", name: name, route: route)
                segments.append(contentsOf: parts)
            }
        }
        return segments
    }

    /// The typed values of `query` for the keys `route`'s query schema declares (none when it
    /// has no schema); `request` gives a list's repeated values.
    public func typedQuery(of route: RouteID, _ query: [String: String], request: Request?) -> [String: QueryValue] {
        guard hasQuerySchemas, let schema = self[route].definition.querySchema else { return [:] }
        return schema.typedValues(query, request: request)
    }

    private func check(_ value: String, name: String, route: RouteID) throws(RouteError) {
        guard let validator = self[route].definition.validators[name] else { return }
        let accepted: Bool
        do { accepted = try validator.accepts(value) } catch {
            throw RouteError(.script, "\(error)", location: (error as? any LunaError)?.location)
        }
        guard accepted else {
            throw RouteError(
                .unknownRoute,
                "parameter '\(name)' = '\(value)' does not pass its validator '\(validator.source)'")
        }
    }

    /// Whether `string` is a link: a URL with a scheme (`myapp://…`, `https://host/…`), as
    /// opposed to a plain path or a named request, which are requests from inside the app.
    public static func isLink(_ string: String) -> Bool {
        var text = string
        return text.withUTF8 { bytes in
            let end = bytes.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) ?? bytes.count
            return Bytes.pathStart(afterSchemeIn: bytes, end: end) != nil
        }
    }

    /// The route a link itself matches, before any guard, redirect or fallback runs (the
    /// route that `link = false` is judged on); nil when it matches none.
    ///
    /// - Throws: ``RouteError`` (`invalidRequest`) for a malformed request or a host or
    ///   scheme the tree does not declare; `unknownRoute` for a named request's unknown name.
    public func routeMatched(by string: String) throws(RouteError) -> RouteID? {
        let (request, isNamed) = try parseRequest(string)
        return try (isNamed ? matcher.match(request) : matcher.match(string)).map { RouteID($0.route) }
    }

    /// The error for a link to a route with `link = false` (docs/deep-links.md).
    private func closedToLinks(_ route: Int) -> RouteError {
        let endpoint = endpoints[route]
        let node = nodes[endpoint.node]
        return RouteError(
            .invalidRequest,
            "route '\(endpoint.definition.displayText)' has link = false: a link cannot open it",
            location: node.location)
    }

    /// Resolves a request string to an endpoint: parse, match, then guards, fallbacks and
    /// redirects (at most 8 steps).
    ///
    /// A link (``isLink(_:)``) whose own match is a route with `link = false` is refused
    /// before any guard runs; a guard's fallback or a redirect may still land on such a
    /// route. `reresolving` skips that check for a request that was accepted before and is
    /// resolved again (a flag change, a step back to a screen shown before).
    ///
    /// - Throws: ``RouteError`` of kind `noMatch` (with the closest routes), `invalidRequest`,
    ///   `disabled`, `redirectLoop`, `unknownRoute` or `script` (a guard failed).
    public func resolve(
        _ string: String, reresolving: Bool = false, flags: [String: String] = [:]
    ) throws(RouteError) -> Resolution {
        try resolve(string, reresolving: reresolving, flagsOf: { flags })
    }

    /// ``resolve(_:reresolving:flags:)`` reading the flags only when a guard runs (a
    /// `Router`'s dispatch without guards does not touch them).
    @usableFromInline
    func resolve(
        _ string: String, reresolving: Bool, flagsOf flags: () -> [String: String]
    ) throws(RouteError) -> Resolution {
        try resolveGated(string, reresolving: reresolving, flagsOf: flags).resolution
    }

    /// ``resolve(_:reresolving:flags:)``, and the gate that waits when a guard answered "not
    /// known yet" on the way (``GuardWait``): the screen resolved is the one it named, and the
    /// resolution's `requested` is kept for when the answer comes. (Beside the resolution, not
    /// in it: a field there made every dispatch's copies of it dearer.)
    @usableFromInline
    func resolveGated(
        _ string: String, reresolving: Bool, flagsOf flags: () -> [String: String]
    ) throws(RouteError) -> (resolution: Resolution, waiting: GuardWaiting?) {
        var chain: [String] = []
        var current = string
        // The gate that is waiting, when a guard answered "not known yet" on the way.
        var waiting: GuardWaiting?
        // The guard node whose fallback sent `current` (named in its errors only).
        var fallbackNode: Int?
        func from(_ message: String) -> String {
            guard let node = fallbackNode else { return message }
            let place = nodes[node].location.map { " (\($0))" } ?? ""
            return "fallback '\(current)' of \(nodes[node].kind.rawValue) '\(nodes[node].id)'\(place): " + message
        }
        while true {
            var (request, isNamed): (Request, Bool)
            do { (request, isNamed) = try parseRequest(current) } catch {
                throw RouteError(error.kind, from(error.message))
            }
            // A path request is matched on its raw bytes (the matcher's allocation-free path);
            // one with a query that a schema may read, parsed, keeping what the schema filled in.
            var filled: [String: String]?
            let found =
                isNamed || (hasQuerySchemas && !request.query.isEmpty)
                ? try matcher.match(request, filledQuery: &filled) : try matcher.match(current)
            guard let match = found else {
                throw RouteError(.noMatch, from(explainMiss(request)))
            }
            if !reresolving, chain.isEmpty, !isNamed, !endpoints[match.route].linkable, Self.isLink(current) {
                throw closedToLinks(match.route)
            }
            let params = match.parameterList(in: matcher)
            // The query with its schema's defaults filled in (docs/dsl.md, "Query schemas"): as
            // the matcher's check left it, or, for a request without a query, the defaults alone
            // (no value to check, so no `where` runs again).
            if hasQuerySchemas, let schema = endpoints[match.route].definition.querySchema {
                if filled == nil, case .fits(let defaults) = try schema.verdict(request) { filled = defaults }
                if let filled, filled != request.query { request.query = filled }
            }
            var next: (target: String, fallbackOf: Int?, waiting: GuardWaiting?)?
            if !endpoints[match.route].guards.isEmpty {
                let endpoint = endpoints[match.route]
                let context = RouteContext(
                    path: request.path, params: params.dictionary, query: request.query, fragment: request.fragment,
                    route: endpoint.definition.displayText, name: endpoint.name, endpointID: nodes[endpoint.node].id,
                    flags: flags(), typedQuery: typedQuery(of: RouteID(match.route), request.query, request: request))
                next = try Self.apply(
                    endpoint.guards, context: context, resolving: request,
                    describing: { guardNode in
                        let route = "route '\(endpoint.definition.displayText)'"
                        return guardNode == endpoint.node
                            ? route : "\(route) (under \(nodes[guardNode].kind.rawValue) '\(nodes[guardNode].id)')"
                    })
            }
            guard let (next, sentBy, wait) = next else {
                return (
                    Resolution(
                        request: request, route: RouteID(match.route), parameters: params, redirects: chain,
                        requested: string), waiting
                )
            }
            if let wait { waiting = wait }
            chain.append(current)
            if chain.count > Self.maximumRedirects || chain.contains(next) {
                let steps = (chain + [next]).joined(separator: " → ")
                let reason = chain.contains(next) ? "redirect loop" : "more than \(Self.maximumRedirects) redirects"
                throw RouteError(.redirectLoop, "\(reason): \(steps)")
            }
            fallbackNode = sentBy
            current = next
        }
    }

    /// Runs the guards outermost first: the first that refuses sends to its fallback (or
    /// throws `disabled`), the first redirect that returns another location sends there. A
    /// redirect that returns the location being resolved (same path and query) means "stay",
    /// as in go_router: `if not signed_in then return "login" end` works on `login` too.
    ///
    /// A guard that answers "not known yet" (throws ``GuardWait``) sends to the screen it names,
    /// and says so (``GuardWaiting``): the request is kept (``Resolution/requested``) and
    /// resolved again when a flag changes; its timeout leads to the guard's fallback.
    static func apply(
        _ guards: [Guard], context: RouteContext, resolving current: Request? = nil, describing: (Int) -> String
    ) throws(RouteError) -> (target: String, fallbackOf: Int?, waiting: GuardWaiting?)? {
        func waiting(_ wait: GuardWait, _ guardian: Guard) -> (String, Int?, GuardWaiting?) {
            (
                wait.screen, guardian.node,
                GuardWaiting(node: guardian.node, timeout: wait.timeout, fallback: guardian.fallback)
            )
        }
        for guardian in guards {
            if let enabled = guardian.enabled {
                let allowed: Bool
                do throws(GuardFailure) { allowed = try call({ try enabled(context) }) } catch {
                    switch error {
                    case .wait(let wait): return waiting(wait, guardian)
                    case .error(let error): throw error
                    }
                }
                if !allowed {
                    guard let fallback = guardian.fallback else {
                        throw RouteError(.disabled, "\(describing(guardian.node)) is disabled")
                    }
                    return (fallback, guardian.node, nil)
                }
            }
            if let redirect = guardian.redirect {
                let answer: String?
                do throws(GuardFailure) { answer = try call({ try redirect(context) }) } catch {
                    switch error {
                    case .wait(let wait): return waiting(wait, guardian)
                    case .error(let error): throw error
                    }
                }
                guard let target = answer else { continue }
                if let current, let parsed = try? Request(parsing: target), parsed.path == current.path,
                    parsed.query == current.query
                {
                    continue
                }
                return (target, nil, nil)
            }
        }
        return nil
    }

    /// A guard's error, or its answer "not known yet".
    enum GuardFailure: Error {
        case error(RouteError)
        case wait(GuardWait)
    }

    private static func call<T>(_ body: () throws -> T) throws(GuardFailure) -> T {
        do { return try body() } catch let wait as GuardWait { throw .wait(wait) } catch let error as RouteError {
            throw .error(error)
        } catch {
            throw .error(RouteError(.script, "\(error)", location: (error as? any LunaError)?.location))
        }
    }
}

extension JSONValue {
    var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

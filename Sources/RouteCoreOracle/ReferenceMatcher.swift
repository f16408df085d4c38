import RouteCore

/// A deliberately simple matcher for checking the compiled one: every route is tried on its
/// own and docs/dsl.md's ranking is applied literally. Quadratic and slow on purpose.
///
/// ```swift
/// let oracle = ReferenceMatcher(routes: definitions)
/// oracle.match(["books", "42"])   // (route: 3, params: ["id": "42"])
/// ```
package struct ReferenceMatcher {
    package let routes: [RouteDefinition]

    package init(routes: [RouteDefinition]) { self.routes = routes }

    /// The winning route and its parameters, or nil. Regex routes are not supported.
    package func match(_ segments: [String]) throws -> (route: Int, params: [String: String])? {
        var best: (rank: [Int], route: Int, params: [String: String])?
        for (index, route) in routes.enumerated() {
            guard let pattern = route.pattern, let params = try bind(pattern, route, segments) else { continue }
            let rank = Self.rank(pattern, route)
            if let current = best, !Self.less(rank, current.rank) { continue }
            best = (rank, index, params)
        }
        return best.map { ($0.route, $0.params) }
    }

    /// Per pattern segment: constant 0, validated parameter 1, parameter 2, `:_` 3, `...` 4;
    /// a pattern that ends gets -1 after its last segment (so it beats a `...` there).
    static func rank(_ pattern: Pattern, _ route: RouteDefinition) -> [Int] {
        var rank: [Int] = pattern.segments.map { segment in
            switch segment {
            case .constant: 0
            case .parameter(let name): route.validators[name] == nil ? 2 : 1
            case .wildcard: 3
            case .catchAll, .optional, .oneOrMore: 4
            }
        }
        if !pattern.endsInCatchAll { rank.append(-1) }
        return rank
    }

    static func less(_ a: [Int], _ b: [Int]) -> Bool {
        for (x, y) in zip(a, b) where x != y { return x < y }
        return a.count < b.count
    }

    private func bind(_ pattern: Pattern, _ route: RouteDefinition, _ segments: [String]) throws -> [String: String]? {
        var params: [String: String] = [:]
        for (position, segment) in pattern.segments.enumerated() {
            // The rest: `...` takes any count of segments, `:name?` none or one (unbound
            // when none), `:name+` one or more.
            let left = segments.count - min(position, segments.count)
            switch segment {
            case .catchAll, .optional, .oneOrMore:
                if case .optional = segment, left > 1 { return nil }
                if case .oneOrMore = segment, left == 0 { return nil }
                if case .optional = segment, left == 0 { return params }
                let rest = segments[min(position, segments.count)...].joined(separator: "/")
                if let name = segment.parameterName {
                    if let validator = route.validators[name], try !validator.accepts(rest) { return nil }
                    params[name] = rest
                }
                return params
            default: break
            }
            guard position < segments.count else { return nil }
            switch segment {
            // By bytes, as requests are matched (docs/dsl.md, "Requests").
            case .constant(let text): if !text.utf8.elementsEqual(segments[position].utf8) { return nil }
            case .parameter(let name):
                if let validator = route.validators[name], try !validator.accepts(segments[position]) { return nil }
                params[name] = segments[position]
            default: break
            }
        }
        return segments.count == pattern.segments.count ? params : nil
    }
}

/// Turns fuzzer bytes into a small route table and requests over a tiny alphabet, so that
/// collisions between routes (the interesting cases) are common.
package struct FuzzCase {
    package var routes: [RouteDefinition]
    package var requests: [String]

    static let patternSegments = ["a", "b", "c", "1", ":p", ":q", ":_", "...", "...rest", ":d", ":o?", ":m+"]
    static let requestSegments = ["a", "b", "c", "1", "22", "x", "%61", "a%2Fb", "", "é"]

    /// A case with the given table and requests (for tables larger than fuzzer bytes make).
    package init(routes: [RouteDefinition], requests: [String]) {
        self.routes = routes
        self.requests = requests
    }

    package init(_ bytes: [UInt8]) {
        var reader = bytes.makeIterator()
        func next() -> Int { Int(reader.next() ?? 0) }
        var routes: [RouteDefinition] = []
        let routeCount = 1 + next() % 12
        for _ in 0..<routeCount {
            let length = next() % 5
            var parts: [String] = []
            var used = Set<String>()
            for position in 0..<length {
                var part = Self.patternSegments[next() % Self.patternSegments.count]
                let modifier = part.last.flatMap { "?+".contains($0) ? String($0) : nil }
                if (part.hasPrefix("...") || modifier != nil) && position != length - 1 { part = "c" }
                if part.hasPrefix(":") && part != ":_" {
                    // Unique parameter names (before a `?` or `+`).
                    if let modifier, part.hasSuffix(modifier) {
                        part = part.dropLast() + String(position) + modifier
                    } else {
                        part += String(position)
                    }
                }
                if part.hasPrefix("...rest") { part += String(position) }
                if used.contains(part) { part = "b" }
                used.insert(part)
                parts.append(part)
            }
            guard let pattern = try? Pattern(parts.joined(separator: "/")) else { continue }
            var validators: [String: Validator] = [:]
            for name in pattern.parameterNames where name.hasPrefix("d") || (name.hasPrefix("o") && next() % 2 == 0) {
                validators[name] = try? Validator(regex: next() % 2 == 0 ? "[0-9]+" : "(1|22)")
            }
            if let route = try? RouteDefinition(pattern: pattern, validators: validators) { routes.append(route) }
        }
        var requests: [String] = []
        let requestCount = 1 + next() % 6
        for _ in 0..<requestCount {
            let length = next() % 6
            var path = (0..<length).map { _ in Self.requestSegments[next() % Self.requestSegments.count] }
                .joined(separator: "/")
            switch next() % 6 {
            case 0: path = "/" + path
            case 1: path = "myapp://" + path
            case 2: path = "https://host.example/" + path
            case 3: path += "?q=1#f"
            default: break
            }
            requests.append(path)
        }
        self.routes = routes
        self.requests = requests
    }

    /// Compares the compiled matcher (both its raw-string path and its segment path) with
    /// the reference; returns a description of the first disagreement. The matcher is
    /// compiled whole, and patched from tables one route away (a route added first or last,
    /// one removed), as a reload compiles it.
    package func disagreement() -> String? {
        var compiled = [("whole", Matcher(routes: routes))]
        var previousTables = [Array(routes.dropFirst()), Array(routes.dropLast())]
        if let extra = try? RouteDefinition(pattern: Pattern("a/:p1/c")) { previousTables.append(routes + [extra]) }
        for previous in previousTables where !previous.isEmpty {
            compiled.append(("patched", Matcher(routes: routes, patching: Matcher(routes: previous), from: previous)))
        }
        let oracle = ReferenceMatcher(routes: routes)
        for (kind, matcher) in compiled {
            if let problem = disagreement(of: matcher, kind, oracle) { return problem }
        }
        return nil
    }

    private func disagreement(of compiled: Matcher, _ kind: String, _ oracle: ReferenceMatcher) -> String? {
        for request in requests {
            let parsed: Request
            do { parsed = try Request(parsing: request) } catch {
                if (try? compiled.match(request)) != nil { return "'\(request)': matched although it does not parse" }
                continue
            }
            let expected = try? oracle.match(parsed.segments)
            for (how, actual) in [("raw", try? compiled.match(request)), ("segments", try? compiled.match(parsed))] {
                let got = actual.map { ($0.route, $0.parameters(in: compiled)) }
                if got?.0 != expected?.route || got?.1 != expected?.params {
                    let table = routes.map(\.displayText).joined(separator: ", ")
                    return
                        "'\(request)' (\(how), \(kind)) over [\(table)]: compiled \(String(describing: got)), reference \(String(describing: expected))"
                }
            }
        }
        return nil
    }
}

import RouteCoreOracle
import Testing

@testable import RouteCore

/// A matcher patched from the previous one (a reload that changed a few routes) against the
/// same routes compiled whole: the same trie node for node, and the same answers as the
/// reference matcher.
@Suite struct MatcherPatchTests {
    /// The trie as text, independent of where its nodes lie: each node's routes (number,
    /// captures, checks with their validators' sources), then its children, constants in
    /// byte order; then the validators, regex routes and parameter names.
    static func structure(_ matcher: Matcher) -> String {
        var lines: [String] = []
        func visit(_ position: Int32, _ path: String) {
            let node = matcher.node(at: position)
            let counts = Matcher.routeCounts(node, position, large: matcher.largeCounts)
            var entry = Int(node.routeStart)
            for k in 0..<(counts.terminal + counts.rest) {
                let info = matcher.entry(at: entry)
                let captures = (0..<Int(info.spanCount)).map { matcher.capture(entry, $0) }
                let checks = (0..<Int(info.checkCount)).map { offset in
                    let check = matcher.checks[Int(info.checkStart) + offset]
                    return "\(check.segment) \(check.isRest) \(matcher.validators[Int(check.validator)].source)"
                }
                lines.append(
                    "\(path) \(k < counts.terminal ? "ends" : "rest") route \(info.route) bare \(info.isBareCatchAll)"
                        + " captures \(captures) checks \(checks)")
                entry += matcher.entryUnits(at: entry)
            }
            var edges: [([UInt8], Int32)] = []
            matcher.forEachEdge(of: node) { edges.append((matcher.keyBytes($0), $0.child)) }
            for (key, child) in edges.sorted(by: { $0.0.lexicographicallyPrecedes($1.0) }) {
                visit(child, path + "/" + key.map { String($0, radix: 16) }.joined(separator: "."))
            }
            if node.validated >= 0 { visit(node.validated, path + "/:v") }
            if node.parameter >= 0 { visit(node.parameter, path + "/:p") }
            if node.wildcard >= 0 { visit(node.wildcard, path + "/:_") }
        }
        visit(0, "")
        lines.append("nodes \(matcher.nodeCount) checks \(matcher.checks.count)")
        lines.append("validators \(matcher.validators.map(\.source))")
        lines.append("regexes \(matcher.regexRoutes.map { "\($0.route) \($0.regex.source)" })")
        let names = matcher.parameterNames
        lines.append("names \((0..<names.routeCount).map { Array(names[$0]) })")
        return lines.joined(separator: "\n")
    }

    /// Random segments at `positions`: a parameter, a digits-validated parameter (and its
    /// validator) or one of `words`.
    static func segments(
        _ positions: Range<Int>, _ words: [String], _ generator: inout SeededGenerator
    ) throws -> ([String], [String: Validator]) {
        var parts: [String] = []
        var validators: [String: Validator] = [:]
        for position in positions {
            switch Int.random(in: 0..<8, using: &generator) {
            case 0: parts.append(":p\(position)")
            case 1:
                parts.append(":d\(position)")
                validators["d\(position)"] = try Validator(regex: "[0-9]+")
            default: parts.append(words[Int.random(in: 0..<words.count, using: &generator)])
            }
        }
        return (parts, validators)
    }

    /// Random tables over a small alphabet (so routes share prefixes and collide), each edited
    /// a few ways: a route renamed, removed, inserted, its validator changed, a regex and root
    /// routes (`""`, `...`) added and removed.
    @Test func patchedMatchersEqualWholeCompilations() throws {
        var generator = SeededGenerator(seed: 20_261_127)
        func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &generator)] }
        let words = ["a", "b", "c", "books", "membership-levels", "x", "é", "e\u{301}", "notifications-archive"]
        func route() throws -> RouteDefinition {
            switch Int.random(in: 0..<40, using: &generator) {
            case 0: return try RouteDefinition(pattern: Pattern(""))
            case 1: return try RouteDefinition(pattern: Pattern("..."))
            case 2: return RouteDefinition(regex: try PathRegex("r/(?<n>[0-9]+)"))
            default: break
            }
            var parts: [String] = []
            var validators: [String: Validator] = [:]
            for position in 0..<Int.random(in: 1...4, using: &generator) {
                switch Int.random(in: 0..<10, using: &generator) {
                case 0: parts.append(":p\(position)")
                case 1:
                    parts.append(":d\(position)")
                    validators["d\(position)"] = try Validator(regex: pick(["[0-9]+", "(1|22)"]))
                case 2: parts.append(":_")
                default: parts.append(pick(words))
                }
            }
            if Int.random(in: 0..<8, using: &generator) == 0 { parts.append("...rest") }
            return try RouteDefinition(pattern: Pattern(parts.joined(separator: "/")), validators: validators)
        }
        var patched = 0
        var problems: [String] = []
        for round in 0..<300 {
            let count =
                round < 100 ? Int.random(in: 1...12, using: &generator) : Int.random(in: 40...400, using: &generator)
            let old = try (0..<count).map { _ in try route() }
            var new = old
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                let at = Int.random(in: 0...new.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0 where !new.isEmpty: new.remove(at: min(at, new.count - 1))
                case 1 where !new.isEmpty: new[min(at, new.count - 1)] = try route()
                default: new.insert(try route(), at: at)
                }
            }
            guard !new.isEmpty else { continue }
            let previous = Matcher(routes: old)
            guard let compiled = Matcher.patch(previous, from: old, to: new) else { continue }
            patched += 1
            let patch = Matcher(compiled)
            let whole = Matcher(routes: new)
            if Self.structure(patch) != Self.structure(whole) {
                problems.append(
                    "round \(round): \(old.map(\.displayText)) -> \(new.map(\.displayText))\n"
                        + "patched:\n\(Self.structure(patch))\nwhole:\n\(Self.structure(whole))")
            }
        }
        // The patch is the path taken (small edits): not a comparison of two whole compilations.
        #expect(patched > 250)
        #expect(problems.isEmpty, "\(problems.first ?? "")")
    }

    /// A large table (wide nodes with hash tables, long keys, a root table), patched in a few
    /// places, against the reference on requests made from its routes.
    @Test func aPatchedLargeTableAgreesWithTheReference() throws {
        var generator = SeededGenerator(seed: 20_261_128)
        func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &generator)] }
        let tabs = (0..<60).map { "tab-number-\($0)" }
        let words = ["a", "books", "settings", "membership-levels", "q"]
        var seen = Set<String>()
        var routes: [RouteDefinition] = []
        func random() throws -> RouteDefinition? {
            let (rest, validators) = try Self.segments(1..<Int.random(in: 2...5, using: &generator), words, &generator)
            let text = ([pick(tabs)] + rest).joined(separator: "/")
            guard seen.insert(text).inserted else { return nil }
            return try RouteDefinition(pattern: Pattern(text), validators: validators)
        }
        while routes.count < 3_000 { if let route = try random() { routes.append(route) } }
        let previous = Matcher(routes: routes)
        var edited = routes
        edited[1_500] = try RouteDefinition(pattern: Pattern("edited-tab/books"))
        edited.remove(at: 10)
        while edited.count < 3_001 { if let route = try random() { edited.insert(route, at: 2_000) } }
        let patch = Matcher.patch(previous, from: routes, to: edited)
        #expect(patch != nil, "the patch is the path taken")
        guard let compiled = patch else { return }
        let patched = Matcher(compiled)
        #expect(Self.structure(patched) == Self.structure(Matcher(routes: edited)))
        var requests = ["edited-tab/books", "tab-number-3/books/42"]
        for _ in 0..<400 {
            let route = pick(edited)
            requests.append(
                (route.pattern?.segments ?? []).map { segment in
                    if case .constant(let text) = segment { return text }
                    return pick(["42", "x"])
                }.joined(separator: "/"))
        }
        var found = 0
        // Compiled once (it was compiled again for every request: 400 compilations of 3,000
        // routes, 14 s of the suite).
        let whole = Matcher(routes: edited)
        for request in requests {
            let expected = try whole.match(request).map { ($0.route, $0.parameters(in: patched)) }
            let actual = try patched.match(request).map { ($0.route, $0.parameters(in: patched)) }
            if actual != nil { found += 1 }
            #expect(actual?.0 == expected?.0 && actual?.1 == expected?.1, "\(request)")
        }
        #expect(found > 300)
        let problem = FuzzCase(routes: edited, requests: requests).disagreement()
        #expect(problem == nil, "\(problem ?? "")")
    }

    /// The public initializer, as its documentation shows it.
    @Test func theDocumentedCallPatches() throws {
        let old = [
            try RouteDefinition(pattern: Pattern("books/:id")), try RouteDefinition(pattern: Pattern("authors")),
        ]
        let new = [old[0], try RouteDefinition(pattern: Pattern("authors/:name"))]
        let matcher = Matcher(routes: new, patching: Matcher(routes: old), from: old)
        #expect(
            try matcher.match("authors/le-guin").map { ($0.route, $0.parameters(in: matcher)) }?.1 == [
                "name": "le-guin"
            ])
        #expect(try matcher.match("authors") == nil)
        #expect(try matcher.match("books/7")?.route == 0)
        #expect(Matcher.patch(Matcher(routes: old), from: old, to: new) != nil)
    }

    /// Too many changes, or none of the previous routes: the whole compilation is taken.
    @Test func largeChangesCompileWhole() throws {
        let routes = try (0..<100).map { try RouteDefinition(pattern: Pattern("r\($0)/:id")) }
        let renamed = try (0..<100).map { try RouteDefinition(pattern: Pattern("s\($0)/:id")) }
        #expect(Matcher.patch(Matcher(routes: routes), from: routes, to: renamed) == nil)
        #expect(Matcher.patch(Matcher(routes: []), from: [], to: routes) == nil)
        let one = Array(routes.prefix(99)) + [try RouteDefinition(pattern: Pattern("t/:id"))]
        #expect(Matcher.patch(Matcher(routes: routes), from: routes, to: one) != nil)
    }
}

/// A reload's tree patches its matcher from its change set (``TreeChange/routes``: the routes
/// kept by node id, in order) instead of an edit script of its own: random edits — a pattern
/// changed under the same id, a route removed, one inserted, one moved — give the same trie
/// as the routes compiled whole.
@Suite struct ChangeSetPatchTests {
    @Test func aReloadsMatcherEqualsAWholeCompilation() throws {
        var generator = SeededGenerator(seed: 20_261_129)
        let words = ["a", "b", "books", "membership-levels", "x", "é"]
        var serial = 0
        func route() throws -> (id: String, pattern: String, validators: [String: Validator]) {
            serial += 1
            let (parts, validators) = try MatcherPatchTests.segments(
                0..<Int.random(in: 1...3, using: &generator), words, &generator)
            return ("r\(serial)", parts.joined(separator: "/"), validators)
        }
        func tree(
            _ routes: [(id: String, pattern: String, validators: [String: Validator])], reusing: RouteTree?
        )
            throws -> RouteTree
        {
            try RouteTree(
                root: .stack(routes.map { .endpoint($0.pattern, id: $0.id, where: $0.validators) }), reusing: reusing)
        }
        var patched = 0
        var problems: [String] = []
        for round in 0..<200 {
            let old = try (0..<Int.random(in: 2...60, using: &generator)).map { _ in try route() }
            var new = old
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let at = Int.random(in: 0..<new.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0 where new.count > 1: new.remove(at: at)
                case 1:  // the same id, another pattern
                    let other = try route()
                    (new[at].pattern, new[at].validators) = (other.pattern, other.validators)
                case 2: new.insert(try route(), at: at)
                default:  // moved
                    let moved = new.remove(at: at)
                    new.insert(moved, at: Int.random(in: 0...new.count, using: &generator))
                }
            }
            let before = try tree(old, reusing: nil)
            let after = try tree(new, reusing: before)
            let change = try #require(after.change)
            if change.routes.contains(where: { $0 >= 0 }) { patched += 1 }
            let whole = Matcher(routes: after.endpoints.map(\.definition))
            if MatcherPatchTests.structure(after.matcher) != MatcherPatchTests.structure(whole) {
                problems.append("round \(round): \(old.map(\.pattern)) -> \(new.map(\.pattern))")
            }
        }
        #expect(patched > 150)
        #expect(problems.isEmpty, "\(problems.first ?? "")")
    }
}

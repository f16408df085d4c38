import Testing

@testable import RouteCore

/// A compiled matcher and the definitions it was compiled from (the matcher keeps only
/// what matching needs).
struct CompiledRoutes {
    let matcher: Matcher
    let routes: [RouteDefinition]

    func match(_ request: String) throws(RouteError) -> Match? { try matcher.match(request) }
}

func matcher(_ patterns: [String], validators: [String: [String: String]] = [:]) throws -> CompiledRoutes {
    let routes = try patterns.map { source in
        if source.hasPrefix("regex:") { return RouteDefinition(regex: try PathRegex(String(source.dropFirst(6)))) }
        return try RouteDefinition(
            pattern: Pattern(source), validators: (validators[source] ?? [:]).mapValues { try Validator(regex: $0) })
    }
    return CompiledRoutes(matcher: Matcher(routes: routes), routes: routes)
}

/// The winning pattern's text and parameters, or nil.
func winner(_ compiled: CompiledRoutes, _ request: String) throws -> String? {
    guard let match = try compiled.matcher.match(request) else { return nil }
    let params = match.parameters(in: compiled.matcher).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    return compiled.routes[match.route].displayText + (params.isEmpty ? "" : " " + params.joined(separator: " "))
}

@Suite struct MatcherTests {
    static let ranked = [
        "teams/:id", "teams/new", "orders/:name", "orders/:id", "files/...path", "files/readme", "...",
        "a/:x/c", "a/b/...", "a/b", "x/:_", "x/:name", "", "deep/:a/:b/:c", "deep/:a/b/...rest",
    ]
    static let rankedValidators = ["orders/:id": ["id": "[0-9]+"]]

    @Test(arguments: [
        ("teams/new", "teams/new"),
        ("teams/7", "teams/:id id=7"),
        ("orders/25", "orders/:id id=25"),
        ("orders/shoes", "orders/:name name=shoes"),
        ("files/a/b/c.txt", "files/...path path=a/b/c.txt"),
        ("files/readme", "files/readme"),
        ("files", "files/...path path="),
        ("nothing/here", "..."),
        ("a/b/c", "a/b/..."),
        ("a/z/c", "a/:x/c x=z"),
        ("a/b", "a/b"),
        ("a/b/d", "a/b/..."),
        ("x/1", "x/:name name=1"),
        ("", ""),
        ("/", ""),
        ("deep/1/b/z", "deep/:a/b/...rest a=1 rest=z"),
        ("deep/1/2/3", "deep/:a/:b/:c a=1 b=2 c=3"),
        ("deep/1/b/c/d", "deep/:a/b/...rest a=1 rest=c/d"),
        ("deep/1/b//c//d", "deep/:a/b/...rest a=1 rest=c/d"),
        ("myapp://teams/9", "teams/:id id=9"),
        ("https://host.example/teams/9?x#y", "teams/:id id=9"),
        ("teams/%6Eew", "teams/new"),
        ("files/a%2Fb/c", "files/...path path=a/b/c"),
        ("teams/a%20b", "teams/:id id=a b"),
    ])
    func ranksTheMostSpecificRouteFirst(request: String, expected: String) throws {
        let m = try matcher(Self.ranked, validators: Self.rankedValidators)
        #expect(try winner(m, request) == expected)
    }

    @Test func equalRanksGoToTheEarlierDeclaration() throws {
        let m = try matcher(["u/:a", "u/:b"])
        #expect(try winner(m, "u/1") == "u/:a a=1")
        let v = try matcher(
            ["p/:a/:x", "p/:b/z"], validators: ["p/:a/:x": ["a": "[0-9]+"], "p/:b/z": ["b": "[0-9]+"]])
        #expect(try winner(v, "p/1/z") == "p/:b/z b=1", "constant at segment 3 beats a parameter")
        #expect(try winner(v, "p/1/y") == "p/:a/:x a=1 x=y")
    }

    @Test func validatorsFailingFallBackToLessSpecificRoutes() throws {
        let m = try matcher(
            ["s/:id/edit", "s/:slug/...", "..."], validators: ["s/:id/edit": ["id": "[0-9]+"]])
        #expect(try winner(m, "s/12/edit") == "s/:id/edit id=12")
        #expect(try winner(m, "s/abc/edit") == "s/:slug/... slug=abc")
    }

    @Test func regexRoutesRankAfterPatternsButBeforeTheBareCatchAll() throws {
        let m = try matcher(["animals/cat", "regex:animals/(?<kind>\\w+)", "..."])
        #expect(try winner(m, "animals/cat") == "animals/cat")
        #expect(try winner(m, "animals/dog") == "regex:animals/(?<kind>\\w+) kind=dog")
        #expect(try winner(m, "plants/rose") == "...")
        let without = try matcher(["regex:zoos/(?<id>[0-9]+)"])
        #expect(try winner(without, "zoos/12") == "regex:zoos/(?<id>[0-9]+) id=12")
        #expect(try winner(without, "zoos/x") == nil)
    }

    @Test func missesAreNilAndMalformedRequestsThrow() throws {
        let m = try matcher(["books/:id"])
        #expect(try m.match("") == nil)
        #expect(try m.match("books") == nil)
        #expect(try m.match("books/1/2") == nil)
        #expect(throws: RouteError.self) { try m.match("books/%zz") }
        #expect(throws: RouteError.self) { try m.match(String(repeating: "a/", count: 200)) }
    }

    @Test func manyConstantsUseHashTables() throws {
        let patterns = (0..<500).map { "tab\($0 % 20)/item\($0)" } + ["tab3/:id"]
        let m = try matcher(patterns)
        for k in stride(from: 0, to: 500, by: 37) {
            #expect(try winner(m, "tab\(k % 20)/item\(k)") == "tab\(k % 20)/item\(k)")
        }
        #expect(try winner(m, "tab3/zzz") == "tab3/:id id=zzz")
        #expect(try m.match("tab4/zzz") == nil)
    }

    /// The trie is built with an explicit work stack: a very long pattern is data, not
    /// recursion depth. Duplicates stay in declaration order.
    @Test func theLongestPatternBuildsAndDuplicatesKeepTheirOrder() throws {
        let long = (0..<128).map { "s\($0)" }.joined(separator: "/")
        let m = try matcher([long, "a/:x", "a/:y", "a/...rest", "a/...more"])
        #expect(try winner(m, "a/1") == "a/:x x=1")
        #expect(try winner(m, "a/1/2") == "a/...rest rest=1/2")
        #expect(try m.match("s0/s1") == nil)
        #expect(try m.match(long)?.route == 0)
        // Longer can never match a request (128 segments at most): refused, the message short.
        let error = #expect(throws: RouteDefinitionError.self) {
            try Pattern((0..<20_000).map { "s\($0)" }.joined(separator: "/"))
        }
        #expect(
            error?.message.hasSuffix("…' has 20000 segments; a request has at most 128, so it could never match")
                == true)
        #expect((error?.message.count ?? .max) < 200)
    }

    /// A route's facts sit in the trie after the node it ends at, its capture positions in the
    /// units that follow when they do not fit one: routes of 0 to 40 parameters sharing a node,
    /// terminal and rest, each found and its parameters read (through the raw path and the
    /// decoded one).
    @Test func routesWithManyParametersShareANode() throws {
        #expect(MemoryLayout<Matcher.RouteEntry>.size == Matcher.RouteEntry.captureOffset)
        func pattern(_ count: Int, _ name: String, rest: Bool = false) -> String {
            (["m\(count)"] + (0..<count).map { ":\(name)\($0)" } + (rest ? ["...tail"] : [])).joined(separator: "/")
        }
        var patterns: [String] = []
        var validators: [String: [String: String]] = [:]
        for count in [0, 1, 2, 5, 6, 21, 22, 40] {
            // Three routes end at the same node: two whose last parameter is validated (the
            // first rejects letters), then a rest route.
            let digits = pattern(count, "d")
            let letters = pattern(count, "l")
            patterns += [digits, letters, pattern(count, "r", rest: true)]
            if count > 0 {
                validators[digits] = ["d\(count - 1)": "[0-9]+"]
                validators[letters] = ["l\(count - 1)": "[a-z]+"]
            }
        }
        let m = try matcher(patterns, validators: validators)
        for count in [0, 1, 2, 5, 6, 21, 22, 40] {
            let values = (0..<count).map { "v\($0)" }
            for (last, name) in [("7", "d"), ("x", "l")] where count > 0 {
                let request = (["m\(count)"] + values.dropLast() + [last]).joined(separator: "/")
                let expected = pattern(count, name)
                for found in [try m.match(request), try m.matcher.match(Request(parsing: request))] {
                    #expect(found.map { m.routes[$0.route].displayText } == expected)
                    let parameters = found?.parameters(in: m.matcher) ?? [:]
                    #expect(parameters.count == count)
                    #expect(parameters["\(name)\(count - 1)"] == last)
                    if count > 1 { #expect(parameters["\(name)0"] == "v0") }
                }
            }
            let request = (["m\(count)"] + values + ["a", "b"]).joined(separator: "/")
            for found in [try m.match(request), try m.matcher.match(Request(parsing: request))] {
                #expect(found.map { m.routes[$0.route].displayText } == pattern(count, "r", rest: true))
                let parameters = found?.parameters(in: m.matcher) ?? [:]
                #expect(parameters["tail"] == "a/b")
                #expect(parameters.count == count + 1)
                if count > 0 { #expect(parameters["r\(count - 1)"] == "v\(count - 1)") }
            }
        }
        // The zero-parameter pair are the same pattern: the first declared wins.
        #expect(try m.match("m0")?.route == 0)
    }

    /// The trie is laid out in depth-first pre-order: each subtree is one run, a node's first
    /// child right after it.
    @Test func theTrieIsLaidOutInPreorder() throws {
        var builder = TrieBuilder()
        let patterns = ["a/b/c", "a/:x", "e", "a/d", "e/f/g"]
        for (index, text) in patterns.enumerated() {
            builder.add(route: Int32(index), try Pattern(text)) { _ in false }
        }
        let flat = builder.build(linearScanLimit: 6)
        // Each node named by the pattern prefix that reaches it.
        var names = [0: ""]
        for (index, node) in flat.nodes.enumerated() {
            let prefix = names[index].map { $0.isEmpty ? "" : $0 + "/" } ?? "?"
            for k in 0..<Int(node.edgeCount) {
                let edge = flat.edges[Int(node.edgeStart) + k]
                let key = withUnsafeBytes(of: edge.word) {
                    String(decoding: $0.prefix(Int(edge.keyLength)), as: UTF8.self)
                }
                names[Int(edge.child)] = prefix + key
            }
            if node.parameter >= 0 { names[Int(node.parameter)] = prefix + ":" }
        }
        let order = Matcher.preorder(flat).map { names[$0] ?? "?" }
        #expect(order == ["", "a", "a/b", "a/b/c", "a/d", "a/:", "e", "e/f", "e/f/g"])
    }

    @Test func predicatesRunAfterTheStructuralMatchAndMayThrow() throws {
        let calls = Counter()
        let routes = [
            try RouteDefinition(
                pattern: Pattern("p/:v"),
                validators: [
                    "v": Validator { value in
                        calls.count += 1
                        if value == "boom" { throw RouteError(.script, "validator failed") }
                        return value == "ok"
                    }
                ]),
            try RouteDefinition(pattern: Pattern("p/:w")),
        ]
        let m = CompiledRoutes(matcher: Matcher(routes: routes), routes: routes)
        #expect(try winner(m, "q/1") == nil)
        #expect(calls.count == 0)
        #expect(try winner(m, "p/ok") == "p/:v v=ok")
        #expect(try winner(m, "p/no") == "p/:w w=no")
        #expect(throws: RouteError(.script, "validator failed")) { try m.match("p/boom") }
    }
}

final class Counter: @unchecked Sendable { var count = 0 }

@Suite struct MatcherLargeNodeTests {
    /// More than 65,535 routes ending at one trie node (the node's 16-bit counts overflow into
    /// a side table): every one is still tried, in declaration order.
    @Test func moreThan65535RoutesAtOneNodeAreAllTried() throws {
        let rejecting = try Validator(regex: "z")
        let count = 65_540
        var routes = try (0..<(count - 1)).map { _ in
            try RouteDefinition(pattern: Pattern("dup/:id"), validators: ["id": rejecting])
        }
        routes.append(try RouteDefinition(pattern: Pattern("dup/:id"), validators: ["id": Validator(regex: "[0-9]+")]))
        routes.append(try RouteDefinition(pattern: Pattern("dup/...rest")))
        let matcher = Matcher(routes: routes)
        #expect(try matcher.match("dup/1")?.route == count - 1)
        #expect(try matcher.match("dup/z")?.route == 0)
        #expect(try matcher.match("dup/x")?.route == count)
    }
}

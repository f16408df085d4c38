import Testing

@testable import RouteCore

@Suite struct RouteTreeTests {
    @Test func defaultIDsAndTitles() throws {
        let tree = try RouteTree(
            root: .junction([
                .stack([.endpoint("", children: [.endpoint("./:id")])]),
                .endpoint("about", title: "About"),
                NodeSpec(kind: .endpoint, endpoint: EndpointSpec(regex: "animals/\\w+")),
            ]))
        #expect(tree.nodes.map(\.id) == ["root", "stack:/", "/", ":id", "about", "regex:animals/\\w+"])
        #expect(tree.nodes.map(\.title) == ["root", "stack:/", "/", ":id", "About", "regex:animals/\\w+"])
        #expect(tree.nodes[3].relation == .child)
        #expect(tree.chain(to: 3) == [0, 1, 2, 3])
    }

    /// Invalid trees and the start of their error message.
    static func invalidTrees() -> [(NodeSpec, String)] {
        [
            (NodeSpec.stack([]), "stack: a stack needs at least one node"),
            (.junction([.endpoint("a"), .endpoint("a")]), "endpoint: duplicate id 'a'"),
            (
                .junction([.endpoint("a", children: [.endpoint("a/b")])]),
                "endpoint: 'a' has children but no enclosing stack to push them on"
            ),
            (
                .stack([.endpoint("a", children: [.stack([.endpoint("b")])])]),
                "stack: an endpoint's children must be endpoints: they are pushed onto the enclosing stack one screen at a time (put a stack in 'modals' or in a stack)"
            ),
            (
                .stack([.endpoint("a/:x", where: ["y": try! Validator(regex: "x")])]),
                "endpoint: pattern 'a/:x': 'where' names 'y', which is not a parameter"
            ),
            (
                .stack([.endpoint("./b")]),
                "endpoint: pattern './b': a relative pattern ('./…') needs an enclosing endpoint"
            ),
            (NodeSpec(kind: .endpoint), "endpoint: an endpoint needs a pattern or a regex"),
            (
                NodeSpec(kind: .endpoint, endpoint: EndpointSpec(regex: "(")),
                "endpoint: invalid regular expression '(': "
            ),
            (
                .junction([.endpoint("a", name: "n"), .endpoint("b", name: "n")]),
                "endpoint: route name 'n' is used twice"
            ),
            (.junction([.endpoint("a", id: "x"), .stack([.endpoint("b")], id: "x")]), "stack: duplicate id 'x'"),
        ]
    }

    @Test(arguments: 0..<10)
    func invalidTreesAreRejected(case index: Int) {
        let (root, message) = Self.invalidTrees()[index]
        let error = #expect(throws: RouteDefinitionError.self) { try RouteTree(root: root) }
        #expect(error?.message.hasPrefix(message) == true, "\(error?.message ?? "no error")")
    }

    @Test func locationsPrefixErrors() {
        var spec = NodeSpec.stack([])
        spec.location = SourceLocation(file: "books.lua", line: 12)
        let error = #expect(throws: RouteDefinitionError.self) { try RouteTree(root: spec) }
        #expect(error?.message == "books.lua:12: stack: a stack needs at least one node")
        #expect(error?.location == SourceLocation(file: "books.lua", line: 12), "the location travels as data")
    }

    @Test func modalsAreTheirOwnHierarchy() throws {
        // A modal endpoint with children needs a stack of its own: the enclosing stack does not count.
        let root = NodeSpec.stack([
            .endpoint("a", modals: [.endpoint("a/m", children: [.endpoint("a/m/x")])])
        ])
        #expect(throws: RouteDefinitionError.self) { try RouteTree(root: root) }
        let fixed = NodeSpec.stack([
            .endpoint("a", modals: [.stack([.endpoint("a/m", children: [.endpoint("a/m/x")])])])
        ])
        let tree = try RouteTree(root: fixed)
        #expect(tree.nodes.map(\.relation) == [.root, .member, .modal, .member, .child])
    }
}

@Suite struct FeatherweightBehaviourTests {
    static func tree() throws -> RouteTree {
        try RouteTree(
            root: .junction([
                .stack([
                    .endpoint(
                        "welcome",
                        children: [.endpoint("welcome/register", children: [.endpoint("welcome/register/step2")])])
                ]),
                .stack([.endpoint("login")]),
                .endpoint("about", title: "About"),
            ]))
    }

    @Test func aJunctionPublishesAllItsOptions() throws {
        let router = Router(tree: try Self.tree(), presenter: HeadlessPresenter())
        _ = try router.dispatch("login")
        let junction = try #require(router.rootPresentable)
        #expect(junction.children.map(\.id) == ["stack:welcome", "stack:login", "about"])
        #expect(junction.selected == 1)
    }

    @Test func aStackHoldsTheChainFromItsRootToTheMatch() throws {
        let router = Router(tree: try Self.tree(), presenter: HeadlessPresenter())
        _ = try router.dispatch("welcome/register/step2")
        #expect(
            router.store["stack:welcome"]?.children.map(\.id) == [
                "welcome", "welcome/register", "welcome/register/step2",
            ])
    }

    @Test func anEndpointCanItselfBeAJunctionOption() throws {
        let router = Router(tree: try Self.tree(), presenter: HeadlessPresenter())
        _ = try router.dispatch("welcome")
        let result = try router.dispatch("about")
        #expect(result.plan.operations.map(\.text) == ["update about", "select root 2 (about)"])
        #expect(router.rootPresentable?.selected == 2)
    }
}

@Suite struct ResolutionTests {
    final class Flags: @unchecked Sendable { var enabled = false }

    static func tree(flags: Flags) throws -> RouteTree {
        var beta = EndpointSpec(pattern: "beta")
        beta.enabled = { _ in flags.enabled }
        beta.fallback = "home"
        var locked = EndpointSpec(pattern: "locked")
        locked.enabled = { _ in false }
        var old = EndpointSpec(pattern: "old/:id")
        old.redirect = { context in "books/" + (context.params["id"] ?? "") }
        var ping = EndpointSpec(pattern: "ping")
        ping.redirect = { _ in "pong" }
        var pong = EndpointSpec(pattern: "pong")
        pong.redirect = { _ in "ping" }
        var chain = EndpointSpec(pattern: "hop/:n")
        chain.redirect = { context in "hop/" + String(Int(context.params["n"] ?? "0")! + 1) }
        var failing = EndpointSpec(pattern: "fails")
        failing.redirect = { _ in throw RouteError(.script, "guards.lua:3: boom") }
        var books = EndpointSpec(pattern: "books/:id", name: "book")
        books.validators = ["id": try Validator(regex: "[0-9]+")]
        return try RouteTree(
            root: .stack(
                [
                    .endpoint("home"), NodeSpec(kind: .endpoint, endpoint: beta),
                    NodeSpec(kind: .endpoint, endpoint: locked), NodeSpec(kind: .endpoint, endpoint: old),
                    NodeSpec(kind: .endpoint, endpoint: ping), NodeSpec(kind: .endpoint, endpoint: pong),
                    NodeSpec(kind: .endpoint, endpoint: chain), NodeSpec(kind: .endpoint, endpoint: failing),
                    NodeSpec(kind: .endpoint, endpoint: books), .endpoint("files/...path", name: "file"),
                ]))
    }

    @Test func disabledRoutesFallBackOrFail() throws {
        let flags = Flags()
        let tree = try Self.tree(flags: flags)
        let resolution = try tree.resolve("beta")
        #expect(resolution.request.path == "home")
        #expect(resolution.redirects == ["beta"])
        flags.enabled = true
        #expect(try tree.resolve("beta").request.path == "beta")
        #expect(throws: RouteError(.disabled, "route 'locked' is disabled")) { try tree.resolve("locked") }
    }

    @Test func redirectsAreFollowedAndLoopsStopped() throws {
        let tree = try Self.tree(flags: Flags())
        #expect(try tree.resolve("old/7").params == ["id": "7"])
        #expect(throws: RouteError(.redirectLoop, "redirect loop: ping → pong → ping")) { try tree.resolve("ping") }
        let error = #expect(throws: RouteError.self) { try tree.resolve("hop/0") }
        #expect(error?.kind == .redirectLoop)
        #expect(error?.message.hasPrefix("more than 8 redirects: hop/0 → hop/1 →") == true)
        #expect(throws: RouteError(.script, "guards.lua:3: boom")) { try tree.resolve("fails") }
    }

    @Test func namedRequestsFillThePatternAndQuery() throws {
        let tree = try Self.tree(flags: Flags())
        let resolution = try tree.resolve(#"book|{"id":42,"title":"Dune","new":true}"#)
        #expect(resolution.request.path == "books/42")
        #expect(resolution.request.query == ["title": "Dune", "new": "true"])
        #expect(try tree.resolve(#"file|{"path":"a/b c"}"#).params == ["path": "a/b c"])
        #expect(throws: RouteError.self) { try tree.resolve(#"nobody|{}"#) }
        let unknown = #expect(throws: RouteError.self) { try tree.resolve(#"nobody|{}"#) }
        #expect(unknown?.kind == .unknownRoute)
        #expect(unknown?.message == "no route is named 'nobody' (known names: book, file)")
        #expect(throws: RouteError(.invalidRequest, "the JSON of a named request must be an object, not an array")) {
            try tree.resolve("book|[1]")
        }
        #expect(throws: RouteError(.invalidRequest, "'book': route 'books/:id' needs parameter 'id'")) {
            try tree.resolve("book|{}")
        }
        #expect(throws: RouteError(.noMatch, "'book': parameter 'id' = 'x' does not pass its validator '[0-9]+'")) {
            try tree.resolve(#"book|{"id":"x"}"#)
        }
        // The same limits as a path: 8 KiB, no NUL or U+FFFD (raw or as a JSON escape).
        let big = "book|{\"id\":1,\"q\":\"" + String(repeating: "x", count: 8192) + "\"}"
        #expect(throws: RouteError(.invalidRequest, "the request is 8212 bytes long (the limit is 8192)")) {
            try tree.resolve(big)
        }
        #expect(throws: RouteError(.invalidRequest, "the value of 'title' contains a NUL character")) {
            try tree.resolve(#"book|{"id":1,"title":"a\u0000b"}"#)
        }
        // A repeated key keeps its last value.
        #expect(try tree.resolve(#"book|{"id":1,"id":2}"#).request.path == "books/2")
    }

    /// Parsing a named request is linear: 40,000 repeated keys took 3.1 s when each field
    /// scanned all the others (JSON objects now index their keys).
    @Test func manyKeysParseInOnePass() throws {
        var text = "{"
        for k in 0..<40_000 { text += "\"k\(k % 20_000)\":\(k)," }
        text += "\"end\":1}"
        let value = try JSONValue.parse(text)
        guard case .object(let fields) = value else { Issue.record("not an object"); return }
        #expect(fields.count == 20_001)
        #expect(value["k0"] == .number("20000"))
    }

    /// A repeated key keeps its last value at its last place, whether the object is small
    /// (found by a scan) or grows past the index's threshold between the two (16 fields).
    @Test(arguments: [3, 15, 16, 17, 40])
    func aRepeatedKeyKeepsItsLastValueAndPlace(fields count: Int) throws {
        var parts = (0..<count).map { "\"f\($0)\":\($0)" }
        parts.insert("\"dup\":\"first\"", at: 1)
        parts.append("\"dup\":\"last\"")
        let value = try JSONValue.parse("{" + parts.joined(separator: ",") + "}")
        guard case .object(let fields) = value else { Issue.record("not an object"); return }
        #expect(fields.map(\.0) == (0..<count).map { "f\($0)" } + ["dup"])
        #expect(value["dup"] == .string("last"))
    }

    @Test(arguments: [
        ("book", ["id": "42"]), ("file", ["path": "a/b c/%d"]), ("file", ["path": "x"]), ("book", ["id": "007"]),
    ])
    func reverseRoutingRoundTripsWithMatching(name: String, parameters: [String: String]) throws {
        let tree = try Self.tree(flags: Flags())
        let path = try tree.path(forRouteNamed: name, parameters: parameters)
        let resolution = try tree.resolve(path)
        #expect(tree[resolution.route].name == name)
        #expect(resolution.params == parameters)
    }

    @Test func monarchBugsMustNotReturn() throws {
        let tree = try Self.tree(flags: Flags())
        #expect(try tree.resolve("/books/1").request.path == tree.resolve("books/1").request.path)
        #expect(try tree.resolve("files/a%2520b").params == ["path": "a%20b"], "%20 decoded exactly once")
        #expect(try tree.resolve("books/1#reviews").request.fragment == "reviews")
        let empty = #expect(throws: RouteError.self) { try tree.resolve("") }
        #expect(empty?.kind == .noMatch)
        #expect(throws: RouteError.self) { try tree.resolve("books/4a2") }
        #expect(try tree.resolve("myapp://books/42").params == ["id": "42"])
        #expect(try tree.resolve("https://example.com/books/42").params == ["id": "42"])
    }
}

/// The request that shows a screen, as a presenter reports a change the user made itself.
@Suite struct RequestShowingTests {
    @Test func theActivationsRequestOrTheRouteFilledWithItsParameters() throws {
        let tree = try RouteTree(
            root: .stack([.endpoint("books", children: [.endpoint("./:id", children: [.endpoint("./notes")])])]))
        let notes = NodeID("books/:id/notes")
        let book: NodeID = "books/:id"
        let resolution = try tree.resolve("books/42/notes?sort=new")
        let state = Reducer(tree: tree).reduce(.initial, to: resolution).to
        // The match keeps the request it was activated with, query and all.
        var activations: [NodeID: Activation] = [:]
        func walk(_ presented: Presented) {
            switch presented {
            case .screen(let node, let activation, let modal):
                if let activation { activations[node] = activation }
                modal.map(walk)
            case .stack(_, let items): items.forEach(walk)
            case .junction(_, _, let options): options.forEach(walk)
            case .switcher(_, _, let content): walk(content)
            }
        }
        state.presented.map(walk)
        #expect(try tree.request(showing: notes, activation: activations[notes]).original == "books/42/notes?sort=new")
        // A screen below it has the parameters, not a request of its own.
        #expect(try tree.request(showing: book, activation: activations[book]).original == "books/42")
        #expect(throws: RouteError.self) { try tree.request(showing: book, activation: nil) }
        let unknown = #expect(throws: RouteError.self) { try tree.request(showing: "nowhere", activation: nil) }
        #expect(unknown?.message == "no node 'nowhere' in the tree")
    }
}

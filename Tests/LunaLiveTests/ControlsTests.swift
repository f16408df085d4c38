import LunaLive
import LunaTestSupport
import RouteCore
import RouteScript
import Testing

/// The controls' rules, decided by the session once (the page draws them, the prototype
/// explores them): a tab's tap, the selected tab's pop to its root, a tab never visited, a
/// sheet's close, and what a generated row opens or asks for first.
@Suite struct ControlsTests {
    static let script = """
        return junction { id = "tabs",
          stack { id = "shelf",
            endpoint { "books", title = "Books", children = {
              endpoint { "books/:id", title = "Book", children = { endpoint { "./notes/:note?" } } },
              endpoint { "books/search", query = { q = "string" } },
              endpoint { "books/files/..." },
            },
            modals = { endpoint { "books/new", title = "New" } } } },
          stack { id = "more", endpoint { "settings", title = "Settings" } },
        }
        """

    func controls(_ host: RouteScriptHost) throws -> Controls {
        let tree = try #require(host.routeTree)
        return Controls(
            host: host, context: Controls.Context(host: host, rows: RouteRow.table(tree)),
            requests: SnapshotView.requests(host.tree, tree: tree))
    }

    @Test func tabsSheetsAndRows() throws {
        let host = RouteScriptHost()
        try host.load(source: Self.script, name: "app.lua")
        _ = try host.dispatch("books")
        var controls = try controls(host)
        // The selected tab at its root keeps its stack; the other, never visited, opens its entry.
        #expect(controls.offers["shelf"]?.tap == .dispatch("books", keepStack: true))
        #expect(controls.offers["more"]?.tap == .dispatch("settings", keepStack: true))
        #expect(controls.offers["shelf"]?.back == nil)
        let rows = try #require(controls.offers["books"]?.rows)
        let byRoute = Dictionary(rows.map { ($0.route, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(byRoute["books/:id"]?.ask == "form", "an id the screen does not know: asked")
        #expect(byRoute["books/search"]?.ask == "form", "declared query keys: asked, never opened bare")
        #expect(byRoute["books/files/..."]?.ask == "rest")
        #expect(byRoute["books/new"]?.command == .open(node: "books/new", params: [:]))
        _ = try host.dispatch("books/42")
        controls = try self.controls(host)
        // Tapped again, the selected tab pops to its root; Back pops one screen.
        #expect(controls.offers["shelf"]?.tap == .dispatch("books"))
        #expect(controls.offers["shelf"]?.back == .back)
        // An optional parameter need not be known: the row opens without it.
        let notes = try #require(controls.offers["books/:id"]?.rows.first)
        #expect(notes.command == .open(node: "books/:id/notes/:note?", params: ["id": "42"]), "\(notes)")
        _ = try host.dispatch("books/new")
        controls = try self.controls(host)
        #expect(controls.offers["books/new"]?.close == .close, "closing shows the screen under it as it was")
        // The commands a prototype explores from here are exactly these.
        #expect(
            controls.commands.contains(.close) && controls.commands.contains(.dispatch("settings", keepStack: true)))
    }

    /// A live page's snapshot carries them, so the page decides nothing itself.
    @Test func theSnapshotCarriesThem() throws {
        let host = RouteScriptHost()
        try host.load(source: Self.script, name: "app.lua")
        let session = LiveSession(host: host)
        try session.dispatch("books/42")
        guard case .snapshot(let snapshot) = try session.perform(.snapshot(routes: false)) else {
            Issue.record("no snapshot")
            return
        }
        let json = try JSONValue.parse(snapshot.json(script: "app.lua"))
        #expect(
            json["controls"]?["shelf"]?["tap"] == .object([("op", .string("dispatch")), ("request", .string("books"))]))
        #expect(json["controls"]?["shelf"]?["back"]?["op"]?.string == "back")
    }
}

/// The flow map of examples/bank.lua: the tab bar's transfer sheet (a modal edge from the
/// container), the payee picker's result row (a result edge back to the form), and a stack's
/// `pushes` list (push edges to the screens it takes from elsewhere).
@Suite struct ScriptFlowMapTests {
    @Test func theBankMapHasItsSheetResultAndPushWays() throws {
        let host = try RouteScriptHost(contentsOf: repositoryRoot + "/examples/bank.lua")
        let map = try #require(host.flowMap(display: { $0 }))
        let edges = Set(map.edges.map { "\($0.kind.rawValue) \($0.from) → \($0.to)" })
        #expect(edges.contains("modal tabs → transfer"))
        #expect(edges.contains("result transfer/payee → transfer"))
        #expect(
            !edges.contains { $0.hasPrefix("push accounts/:account → accounts/:account") && $0.hasSuffix("account") })
        let listed = RouteScriptHost()
        try listed.load(
            source: """
                return junction {
                  stack { id = "sa", pushes = { "a", "p" }, endpoint { "a" } },
                  stack { id = "sb", endpoint { "b", children = { endpoint { "./:p", name = "p" } } } },
                }
                """, name: "listed.lua")
        let listedEdges = try #require(listed.flowMap(display: { $0 })).edges.map {
            "\($0.kind.rawValue) \($0.from) → \($0.to)"
        }
        #expect(listedEdges.contains("push a → b/:p"))
    }
}

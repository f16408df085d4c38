import LunaLive
import RouteCore
import RouteScript
import Testing

/// The one command-and-view model: every view of a session (the REPL, a page, `luna test`)
/// sends these commands and prints these views.
@Suite struct CommandTests {
    @Test func openFillsARoutesPatternInTheSession() throws {
        let session = try books()
        let view = try session.perform(.open(node: "books/:id", params: ["id": "42"]))
        #expect(view.change?.outcome.request == "books/42")
        #expect(session.withHost { $0.state.request?.path } == "books/42")
        #expect(session.history.last?.request == "books/42", "recorded as the dispatch it is")
        // A parameter missing is the session's error, with the route it concerns.
        let missing = #expect(throws: Failure.self) { try session.perform(.open(node: "books/:id", params: [:])) }
        #expect(missing?.kind == "invalidRequest")
        #expect(missing?.message.contains("needs parameter 'id'") == true)
        let unknown = #expect(throws: Failure.self) { try session.perform(.open(node: "nope", params: [:])) }
        #expect(unknown?.kind == "unknownRoute")
    }

    /// The page never fills a pattern in: the snapshot says which request shows each screen
    /// on screen and where a tab never visited goes.
    @Test func aSnapshotCarriesTheRequestOfEveryScreenAndEveryContainer() throws {
        let session = try books()
        try session.dispatch("books/42?title=Dune#top")
        guard case .snapshot(let snapshot) = try session.perform(.snapshot(routes: true)) else {
            Issue.record("not a snapshot")
            return
        }
        #expect(snapshot.requests["books/:id"] == "books/42?title=Dune#top", "the request it was activated with")
        #expect(snapshot.requests["books"] == "books", "a screen below the match: its own route")
        #expect(snapshot.entries?["stack:today"] == "today")
        #expect(snapshot.entries?["junction:orders"] == "orders")
        #expect(snapshot.routes?.first?.rank == 1)
        #expect(snapshot.state?.route == "books/:id")
        let json = snapshot.json(script: "books.lua")
        #expect(json.contains(#""requests":{"#) && json.contains(#""books/:id":"books/42?title=Dune#top""#))
    }

    /// One explain, one state, one route table: the text and the JSON come from one value.
    @Test func viewsKnowTheirTwoForms() throws {
        let session = try books()
        try session.dispatch("books/42?title=Dune")
        let state = try session.perform(.state)
        #expect(
            state.json == [
                #"{"state":{"request":"books/42?title=Dune","resolved":"books/42?title=Dune","path":"books/42","route":"books/:id","name":"book","params":{"id":"42"},"query":{"title":"Dune"},"fragment":null,"chain":["root","junction:today","stack:books","books","books/:id"],"device":"phone","flags":{}}}"#
            ])
        #expect(state.text(.plain).first == "request  books/42?title=Dune")
        try session.perform(.flag("beta", "on"))
        try session.perform(.device(.pad))
        let after = try session.perform(.state)
        #expect(after.json.first?.hasSuffix(#""device":"pad","flags":{"beta":"on"}}}"#) == true)
        #expect(after.text(.plain).suffix(2) == ["device   pad", "flags    beta=on"])
        let explain = try session.perform(.explain("books/x7"))
        #expect(explain.text(.plain).first == "explain books/x7")
        #expect(
            explain.json.first?.hasPrefix(#"{"explain":{"request":"books/x7","path":"books/x7","attempts":["#) == true)
        guard case .routes(let rows) = try session.perform(.routes) else {
            Issue.record("not routes")
            return
        }
        #expect(rows.map(\.pattern).last == "...")
        #expect(rows.first { $0.id == "books/:id" }?.owner == "books")
        #expect(rows.first { $0.id == "books/:id" }?.params == ["id"])
    }

    /// A failure is data: kind, message, the request it concerned and, for a script error, the
    /// line it points at, read from the error and not from its text.
    @Test func failuresCarryTheirRequestAndLocation() throws {
        let host = RouteScriptHost()
        try host.load(
            source: """
                return switcher {
                  endpoint { "home" },
                  endpoint { "boom", enabled = function() error("no way") end },
                }
                """, name: "boom.lua")
        let session = LiveSession(host: host)
        let failure = #expect(throws: Failure.self) { try session.perform(.dispatch("boom")) }
        #expect(failure?.kind == "script")
        #expect(failure?.request == "boom")
        #expect(failure?.location == SourceLocation(file: "boom.lua", line: 3))
        #expect(
            failure?.json.hasPrefix(#"{"request":"boom","error":{"kind":"script","message":"boom.lua:3: no way"#)
                == true)
        #expect(failure?.errorJSON.hasSuffix(#""file":"boom.lua","line":3}"#) == true)
        let history = #expect(throws: Failure.self) { try session.perform(.travel(9)) }
        #expect(history?.kind == "history")
        #expect(history?.location == nil)
        #expect(history?.errorJSON.contains("file") == false, "no location, no file field")
    }

    /// Observers are called under the session's lock and read what they draw through the
    /// reader, never by calling the session again.
    @Test func observersReadTheSessionThroughTheReader() throws {
        let session = try books()
        let seen = Box<[String?]>([])
        let token = session.observe { event, reader in seen.value.append(reader.snapshot(routes: false).state?.route) }
        try session.dispatch("books/42")
        try session.back()
        token.cancel()
        #expect(seen.value == ["books/:id", "books"])
    }
}

/// `luna serve` and `luna.open` start where the script says (`initial`).
@Suite struct InitialStartTests {
    @Test func aSessionStartsAtTheInitialRequestOnceAndOnlyWhenNothingIsShown() throws {
        let shop = LiveSession(host: try RouteScriptHost(contentsOf: repositoryRoot + "/examples/shop.lua"))
        let view = try shop.startAtInitial()
        #expect(view?.change?.outcome.route == "home")
        #expect(shop.withHost { $0.state.request?.original } == "home")
        #expect(shop.history.count == 1)
        // Something is shown now: nothing more happens.
        try shop.dispatch("cart")
        #expect(try shop.startAtInitial() == nil)
        #expect(shop.withHost { $0.state.request?.original } == "cart")
        // A script that declares no initial request.
        let books = LiveSession(host: try RouteScriptHost(contentsOf: repositoryRoot + "/examples/books.lua"))
        #expect(try books.startAtInitial() == nil)
        #expect(books.withHost { $0.state.presented } == nil)
    }
}

/// `flow` (the REPL's command and the page's op): the flow map as text and JSON, and nothing
/// recorded in the history.
@Suite struct FlowCommandTests {
    @Test func flowPrintsTheEdgesAndRecordsNothing() throws {
        let shop = LiveSession(host: try RouteScriptHost(contentsOf: repositoryRoot + "/examples/shop.lua"))
        let view = try shop.perform(.flow)
        let lines = view.text(.plain)
        #expect(lines.contains("push\thome → product/:id"))
        #expect(lines.contains("guard\tjunction:home → signin"))
        #expect(view.json.first?.hasPrefix("{\"flow\":{\"edges\":[") == true)
        #expect(shop.history.isEmpty)
    }
}

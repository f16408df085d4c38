import Foundation
import LunaConsole
import LunaLive
import LunaTest
import LunaTestSupport
import RouteCore
import RouteScript
import Testing

/// How the REPL reads its input lines: requests with spaces and quotes, options, multi-line
/// Lua, pretty-printed values, going back out of a modal, sync, JSON framing.
@Suite struct SessionInputTests {
    func session(_ script: String = "books.lua", json: Bool = false) throws -> Session {
        Session(host: try RouteScriptHost(contentsOf: example(script)), json: json, style: .plain)
    }

    func firstLine(_ session: Session, _ line: String) -> String {
        session.execute(line).lines.joined(separator: "\n").split(separator: "\n").first.map(String.init) ?? ""
    }

    @Test func aRequestIsTheRestOfTheLineSpacesAndAll() throws {
        let session = try session()
        #expect(
            firstLine(session, #"go book|{"id": 42, "title": "Dune Messiah"}"#)
                == #"book|{"id": 42, "title": "Dune Messiah"} → books/:id (book)  id=42"#)
        #expect(session.live.withHost { $0.tree }?.rendered().contains(#"screen books/:id "Dune Messiah""#) == true)
    }

    @Test func quotesGroupAndKeepIsOnlyATrailingWord() throws {
        let session = try session()
        #expect(firstLine(session, #"go "books/7""#) == "books/7 → books/:id (book)  id=7")
        _ = session.execute("go today")
        #expect(firstLine(session, "go 'books' --keep") == "books → books")
        #expect(session.live.withHost { $0.state }.request?.path == "books/7")
        #expect(
            firstLine(session, "go books --kep")
                == "error: usage: go PATH [--keep]: unknown option '--kep' (did you mean '--keep'?)")
        #expect(firstLine(session, #"go "books"#) == "error: usage: go PATH [--keep]: unterminated quote \"")
        #expect(firstLine(session, "go") == "error: usage: go PATH [--keep]: missing PATH")
    }

    @Test func aBarePathHintsGo() throws {
        #expect(
            firstLine(try session(), "books/42")
                == "error: unknown command 'books/42'; to dispatch it, type go books/42 (or /books/42)")
    }

    @Test func luaChunksContinueOverLines() throws {
        let session = try session()
        let first = session.execute("lua function double(x)")
        #expect(first.continues && first.lines.isEmpty)
        #expect(session.execute("  return 2 * x").continues)
        #expect(!session.execute("end").continues)
        let open = session.execute("= {")
        #expect(open.continues)
        #expect(session.execute("double(21) }").lines == ["{ 42 }"])
        // A cancelled continuation leaves nothing behind.
        _ = session.execute("lua for i = 1, 2 do")
        session.cancelContinuation()
        #expect(session.execute("= 1 + 1").lines == ["2"])
        // A real syntax error is an error, not a continuation.
        let broken = session.execute("lua x = = 1")
        #expect(!broken.continues && broken.failed)
    }

    @Test(arguments: [
        ("= {}", "{}"),
        ("= { 3, 1, 2 }", "{ 3, 1, 2 }"),
        ("= { b = 1, a = { 'x', true }, [3] = false, [1] = 0 }", "{ 0, [3] = false, a = { \"x\", true }, b = 1 }"),
        ("= { ['two words'] = 1 }", "{ [\"two words\"] = 1 }"),
        ("= { { { { { 'deep' } } } } }", "{ { { { {…} } } } }"),
        ("= 1, 'a', nil", "1\ta\tnil"),
    ])
    func valuesArePrettyPrinted(line: String, expected: String) throws {
        #expect(try session().execute(line).lines == [expected])
    }

    @Test func cyclesAndLongTablesPrintReadably() throws {
        let session = try session()
        _ = session.execute("lua t = { name = 'loop' } t.self = t")
        let cycle = firstLine(session, "= t")
        #expect(cycle.hasPrefix("{ name = \"loop\", self = <cycle: table: "))
        let long = session.execute("= { string.rep('x', 40), string.rep('y', 40) }").lines
        #expect(
            long == ["{\n  \"\(String(repeating: "x", count: 40))\",\n  \"\(String(repeating: "y", count: 40))\"\n}"])
    }

    @Test func backDismissesAModalAndSyncRecordsAUIChange() throws {
        let session = try session()
        _ = session.execute("go today/story/news/7")
        let back = session.execute("back").lines.joined(separator: "\n")
        #expect(back.hasPrefix("back → today\n  plan:\n    unwind today/story/:type/:id"))
        #expect(session.live.withHost { $0.tree }?.rendered().contains("Story") == false)
        #expect(firstLine(session, "back") == "error: there is no screen to go back to and no modal to dismiss")
        let sync = session.execute("sync books/3").lines.joined(separator: "\n")
        #expect(sync.contains("create books/:id") && !sync.contains("setStack"))
        #expect(
            session.live.withHost { $0.tree }?.rendered().contains(#"stack stack:books "Books" (selected)"#) == true)
    }

    @Test func jsonModeFramesEverything() throws {
        let session = try session(json: true)
        #expect(
            firstLine(session, "back")
                == #"{"error":{"kind":"nothingToGoBack","message":"nothing was dispatched yet"}}"#)
        #expect(firstLine(session, "= {1}") == #"{"lua":["{ 1 }"]}"#)
    }

    @Test func theRootRouteIsSpelledOneWayAndEncodedSlashesRoundTrip() throws {
        let folder = ScriptFolder()
        let script = folder.write(
            "root.lua", "return stack { endpoint { '', children = { endpoint { 'a/:id' }, endpoint { '...' } } } }")
        let session = Session(host: try RouteScriptHost(contentsOf: script), json: true, style: .plain)
        let root = firstLine(session, "go /")
        #expect(root.contains(#""path":"","route":"/""#) && root.contains(#""id":"/","kind":"screen""#))
        #expect(root.contains(#""route":"/","title""#))
        let encoded = firstLine(session, "go a%2F42")
        #expect(encoded.contains(#""path":"a%2F42","route":"...""#))
        #expect(firstLine(session, "go a%2F42").contains(#""plan":[]"#), "the same request again")
    }
}

@Suite struct CompletionTests {
    func tree() throws -> RouteTree? { try RouteScriptHost(contentsOf: example("books.lua")).routeTree }

    @Test func completionFollowsTheCommand() throws {
        let tree = try tree()
        #expect(Completion.candidates(for: "de", after: "", tree: tree) == ["device"])
        #expect(Completion.candidates(for: "p", after: "device ", tree: tree) == ["pad", "phone"])
        // `--json` after any command prints its view as JSON.
        #expect(Completion.candidates(for: "--", after: "go books ", tree: tree) == ["--keep", "--json"])
        #expect(Completion.candidates(for: "--j", after: "tree ", tree: tree) == ["--json"])
        #expect(Completion.candidates(for: "bo", after: "go ", tree: tree) == ["books", "books/:id", "book|{"])
        #expect(
            Completion.candidates(for: "/to", after: "", tree: tree) == [
                "/today", "/today/all_news", "/today/story/:type/:id",
            ])
        #expect(Completion.candidates(for: "x", after: "flag ", tree: tree).isEmpty)
    }
}

@Suite struct SmallREPLTests {
    @Test func routesAndStateTakeJSONInTextMode() throws {
        let session = Session(host: try RouteScriptHost(contentsOf: example("books.lua")), json: false, style: .plain)
        _ = session.execute("go books/42")
        #expect(session.execute("state --json").lines.first?.hasPrefix(#"{"state":{"request":"books/42""#) == true)
        #expect(session.execute("routes --json").lines.first?.hasPrefix(#"{"routes":["#) == true)
    }

    @Test func namedRequestMistakesGetTheRightKinds() throws {
        let host = try RouteScriptHost(contentsOf: example("books.lua"))
        let empty = #expect(throws: RouteError.self) { try host.dispatch("book|") }
        #expect(empty?.kind == .invalidRequest)
        let rejected = #expect(throws: RouteError.self) { try host.dispatch(#"story|{"type":"news","id":"x"}"#) }
        #expect(rejected?.kind == .noMatch)
        #expect(rejected?.message == "'story': parameter 'id' = 'x' does not pass its validator '[0-9]+'")
        let missing = #expect(throws: RouteError.self) { try host.dispatch(#"story|{"type":"news"}"#) }
        #expect(missing?.kind == .invalidRequest)
    }

    @Test(arguments: [
        (
            "return stack { endpont { 'a' } }",
            "attempt to call a nil value (global 'endpont') (did you mean 'endpoint'?)"
        ),
        (
            "return stack { endpoint { 'a', children = endpoint { './b' } } }",
            "endpoint: field 'children' must be a list of nodes, not one node (wrap it in { })"
        ),
        (
            "return stack { endpoint { 'a', presenter = { setStack = function() end } } }",
            "endpoint: presenter hook 'setStack' does not apply to an endpoint"
        ),
    ])
    func scriptMistakesGetHints(source: String, message: String) throws {
        let error = #expect(throws: RouteScriptError.self) { try RouteScriptHost().load(source: source, name: "m.lua") }
        #expect(error?.message == "m.lua:1: " + message)
    }
}

@Suite struct SaveTestTests {
    @Test func saveTestWritesARunnableTestWithItsGoldenTree() throws {
        let folder = ScriptFolder()
        let script = folder.write("books.lua", try String(contentsOfFile: example("books.lua"), encoding: .utf8))
        let session = Session(host: try RouteScriptHost(contentsOf: script), json: false, style: .plain)
        _ = session.execute("go login")
        _ = session.execute("reset")
        for line in [
            "go books/42?title=Dune", "go today", "go books --keep", "flag beta=on", "go today/story/news/7", "back",
        ] {
            _ = session.execute(line)
        }
        #expect(
            session.execute("save-test journey").lines.first?.hasSuffix("journey_test.lua (run it with luna test)")
                == true)
        let source = try String(contentsOfFile: folder.path + "/journey_test.lua", encoding: .utf8)
        #expect(!source.contains("login"), "only what came after the reset")
        #expect(source.contains(#"app:go("books", { keep = true })"#) && source.contains(#"app:flag("beta", "on")"#))
        #expect(source.contains("app:back()") && source.contains(#"expect(app.route).to_be("today")"#))
        let result = TestRunner(options: .init()).run(file: folder.path + "/journey_test.lua")
        #expect(result.loadError == nil)
        #expect(result.cases.map(\.status) == [.passed], "\(result.cases.first?.message ?? "")")
        #expect(session.execute("save-test ../escape").lines.first?.hasPrefix("error: usage: save-test") == true)
    }
}

/// `reset` returns to the script's `initial` (as `luna.open` starts), so a test saved after a
/// reset passes on its first run (examples/shop.lua starts on home).
@Suite struct ResetTests {
    @Test func resetReturnsToTheInitialRequestAndASavedTestPasses() throws {
        let folder = ScriptFolder()
        let script = folder.write("shop.lua", try String(contentsOfFile: example("shop.lua"), encoding: .utf8))
        let session = Session(host: try RouteScriptHost(contentsOf: script), json: false, style: .plain)
        _ = session.execute("go cart")
        _ = session.execute("reset")
        #expect(session.live.withHost { $0.state.request?.original } == "home")
        _ = session.execute("go search")
        _ = session.execute("save-test afterreset")
        let result = TestRunner(options: .init()).run(file: folder.path + "/afterreset_test.lua")
        #expect(result.loadError == nil)
        #expect(result.cases.map(\.status) == [.passed], "\(result.cases.first?.message ?? "")")
    }
}

@Suite struct ReverseRoutingTests {
    @Test func pathFillsANamedRouteInTheREPL() throws {
        let session = Session(host: try RouteScriptHost(contentsOf: example("books.lua")), json: false, style: .plain)
        #expect(session.execute("path book id=42 title=Dune").lines == ["books/42?title=Dune"])
        #expect(session.execute("path story type=news id=7").lines == ["today/story/news/7"])
        #expect(session.execute("path book id=a/b").lines == ["books/a%2Fb"])
        // Quotes take values with spaces, as in a shell.
        #expect(session.execute(#"path book id=7 "title=Dune Messiah""#).lines == ["books/7?title=Dune%20Messiah"])
        #expect(session.execute("path book id=7 'title=It''s'").lines == ["books/7?title=Its"])
        #expect(session.execute(#"path book id=7 title=Dune\ Messiah"#).lines == ["books/7?title=Dune%20Messiah"])
        #expect(session.execute(#"path book "id=7"#).lines.first?.hasPrefix("error: usage: path") == true)
        #expect(
            session.execute("path story type=news id=x").lines.first?.hasPrefix("error: parameter 'id' = 'x'") == true)
        #expect(session.execute("path nobody").lines.first?.hasPrefix("error: no route is named 'nobody'") == true)
    }

    @Test func lunaPathBuildsLinksInHooksAndGuards() throws {
        let host = RouteScriptHost()
        try host.load(
            source: """
                return stack {
                  endpoint { "books", name = "books", children = {
                    endpoint { "./:id", name = "book",
                      presenter = { update = function(view, ctx)
                        view.next = luna.path("book", { id = tonumber(ctx.params.id) + 1, from = "next" })
                        view.list = luna.path("books", nil, { sort = "title" })
                      end } },
                  } },
                  endpoint { "old/:id", redirect = function(ctx) return luna.path("book", { id = ctx.params.id }) end },
                }
                """, name: "links.lua")
        _ = try host.dispatch("old/41")
        #expect(host.state.request?.path == "books/41")
        #expect(host.tree?.children.last?.attributes["next"] == .string("books/42?from=next"))
        #expect(host.tree?.children.last?.attributes["list"] == .string("books?sort=title"))
        let early = RouteScriptHost()
        let error = #expect(throws: RouteScriptError.self) {
            try early.load(source: "luna.path('x') return stack { endpoint { 'a' } }", name: "early.lua")
        }
        #expect(error?.message.contains("luna.path: the route tree is not built yet") == true)
    }
}

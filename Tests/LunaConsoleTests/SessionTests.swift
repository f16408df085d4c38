import Foundation
import LunaConsole
import LunaLive
import LunaTest
import LunaTestSupport
import RouteCore
import RouteScript
import Testing

/// REPL transcripts, driven through the session as pipe mode drives it.
@Suite struct SessionTests {
    func transcript(_ script: String, _ lines: [String], json: Bool = false) throws -> String {
        let host = try RouteScriptHost(contentsOf: example(script))
        let session = Session(host: host, json: json, style: .plain)
        return lines.flatMap { line in ["> " + line] + session.execute(line).lines }.joined(separator: "\n")
    }

    @Test func aShortSession() throws {
        let text = try transcript(
            "books.lua", ["go books/42", "/today", "go books --keep", "state", "back", "tree", "nonsense"])
        #expect(
            text == """
                > go books/42
                books/42 → books/:id (book)  id=42
                  plan:
                    create root
                    create junction:today
                    create stack:today
                    create stack:books
                    create books
                    create books/:id
                    create stack:profile
                    setStack stack:books [books, books/:id]
                    setOptions junction:today [stack:today, stack:books, stack:profile]
                    select junction:today 1 (stack:books)
                    select root 2 (junction:today)
                switcher root
                └── junction junction:today "Main"
                    ├── stack stack:today "Today"
                    ├── stack stack:books "Books" (selected)
                    │   ├── screen books "Books"
                    │   └── screen books/:id "Book 42" id=42
                    └── stack stack:profile "Profile"
                > /today
                today → today
                  plan:
                    create today
                    setStack stack:today [today]
                    select junction:today 0 (stack:today)
                switcher root
                └── junction junction:today "Main"
                    ├── stack stack:today "Today" (selected)
                    │   └── screen today "Today"
                    ├── stack stack:books "Books"
                    │   ├── screen books "Books"
                    │   └── screen books/:id "Book 42" id=42
                    └── stack stack:profile "Profile"
                > go books --keep
                books → books
                  plan:
                    select junction:today 1 (stack:books)
                switcher root
                └── junction junction:today "Main"
                    ├── stack stack:today "Today"
                    │   └── screen today "Today"
                    ├── stack stack:books "Books" (selected)
                    │   ├── screen books "Books"
                    │   └── screen books/:id "Book 42" id=42
                    └── stack stack:profile "Profile"
                > state
                request  books/42
                route    books/:id (book)
                params   id=42
                chain    root > junction:today > stack:books > books > books/:id
                device   phone
                > back
                back → books
                  plan:
                    unwind books/:id
                switcher root
                └── junction junction:today "Main"
                    ├── stack stack:today "Today"
                    │   └── screen today "Today"
                    ├── stack stack:books "Books" (selected)
                    │   └── screen books "Books"
                    └── stack stack:profile "Profile"
                > tree
                switcher root
                └── junction junction:today "Main"
                    ├── stack stack:today "Today"
                    │   └── screen today "Today"
                    ├── stack stack:books "Books" (selected)
                    │   └── screen books "Books"
                    └── stack stack:profile "Profile"
                > nonsense
                error: unknown command 'nonsense'; type help for the list
                """)
    }

    @Test func explainShowsCaretsAndTheWinner() throws {
        let host = try RouteScriptHost(contentsOf: example("routerservice.lua"))
        let session = Session(host: host, json: false, style: .plain)
        let lines = session.execute("explain products/x7").lines
        #expect(lines.first == "explain products/x7")
        let index = try #require(lines.firstIndex { $0.hasPrefix("  ✗ products/:id ") })
        #expect(lines[index] == "  ✗ products/:id  — segment 2: 'x7' does not pass the validator of 'id' ('[0-9]+')")
        #expect(lines[index + 1] == "      products/x7")
        #expect(lines[index + 2] == "               ^^")
        #expect(lines.last == "wins: ...")
    }

    @Test func explainSaysWhyTheWinnerWon() throws {
        let host = try RouteScriptHost(contentsOf: example("routerservice.lua"))
        let session = Session(host: host, json: false, style: .plain)
        let lines = session.execute("explain products/7").lines
        #expect(lines.suffix(2) == ["wins: products/:id", "  beats ...: a constant ranks above the catch-all '...'"])
    }

    @Test func jsonModePrintsOneObjectPerCommand() throws {
        let text = try transcript(
            "routerservice.lua",
            ["go checkout", "flag newCheckout=on", "flags", "= 1 + 1", "go products/7/reviews", "bogus", "routes"],
            json: true)
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("> ") }
        #expect(lines.count == 7)
        #expect(
            lines[0].hasPrefix(
                #"{"request":"checkout","path":"checkout/classic","route":"checkout/classic","name":"classicCheckout","#
            ))
        #expect(lines[1].hasPrefix(#"{"request":"checkout","path":"checkout","route":"checkout","name":"checkout","#))
        #expect(lines[2] == #"{"flags":{"newCheckout":"on"}}"#)
        #expect(lines[3] == #"{"lua":["2"]}"#)
        #expect(
            lines[4]
                == #"{"request":"products/7/reviews","error":{"kind":"disabled","message":"route 'products/:id/reviews' is disabled"}}"#
        )
        #expect(lines[5] == #"{"error":{"kind":"usage","message":"unknown command 'bogus'; type help for the list"}}"#)
        #expect(
            lines[6].hasPrefix(
                #"{"routes":[{"rank":1,"pattern":"home","name":"home","id":"home","chain":["root","stack:home","home"],"title":"Home","params":[],"fillable":true,"owner":null}"#
            ))
    }

    @Test func luaErrorsAndLimitsDoNotEndTheSession() throws {
        let text = try transcript("books.lua", ["= nosuch.field", "lua while true do end", "= 6 * 7", "quit"])
        // The loop hits the 10M-instruction budget or the 100 ms deadline first, depending
        // on the machine: either is the right answer.
        let normalized = text.replacingOccurrences(of: "instruction budget exceeded", with: "LIMIT")
            .replacingOccurrences(of: "deadline exceeded", with: "LIMIT")
        #expect(
            normalized == """
                > = nosuch.field
                error: repl:1: attempt to index a nil value (global 'nosuch')
                stack traceback:
                \trepl:1: in main chunk
                > lua while true do end
                error: repl:1: LIMIT
                stack traceback:
                \trepl:1: in main chunk
                > = 6 * 7
                42
                > quit
                """)
    }
}

@Suite struct ReloadFailureLabelTests {
    /// With colour on (a terminal), a failed reload is still labelled as one.
    @Test func aFailedReloadIsLabelledWithColourToo() throws {
        let folder = ScriptFolder()
        let path = folder.write("r.lua", "return stack { endpoint { 'a' } }")
        let session = Session(host: try RouteScriptHost(contentsOf: path), json: false, style: Style(color: true))
        folder.write("r.lua", "return stack {")
        let lines = session.reloadAfterChange()?.lines ?? []
        #expect(
            lines.first?.hasPrefix("\u{1B}[31mreload failed: \u{1B}[0m\(path.relativeToWorkingDirectory):1:") == true,
            "\(lines)")
        // While the watcher says the save is still being written, nothing is shown.
        #expect(session.reloadAfterChange(cutShort: { true }) == nil)
    }
}

/// `path` in the REPL takes a repeated key as a list, checks a query schema's keys and fills
/// an optional segment or leaves it out (examples/catalog.lua).
@Suite struct TypedPathTests {
    @Test func theREPLsPathWritesListsAndChecksKeys() throws {
        let session = Session(host: try RouteScriptHost(contentsOf: example("catalog.lua")), json: false, style: .plain)
        #expect(session.execute("path products page=2 tags=a tags=b").lines == ["products?page=2&tags=a&tags=b"])
        #expect(session.execute("path reviews id=42").lines == ["product/42/reviews"])
        #expect(session.execute("path reviews id=42 page=3").lines == ["product/42/reviews/3"])
        let bad = session.execute("path orders")
        #expect(bad.failed)
        #expect(
            bad.lines.joined().contains("route 'orders' needs query 'status' (one of open, shipped)"), "\(bad.lines)")
    }
}

/// A REPL over a copy of examples/recipes/discard.lua in a folder of its own (save-test writes
/// beside it).
func discardSession() throws -> (ScriptFolder, RouteScriptHost, Session) {
    let folder = ScriptFolder()
    let path = folder.write(
        "discard.lua", try String(contentsOfFile: repositoryRoot + "/examples/recipes/discard.lua", encoding: .utf8))
    let host = try RouteScriptHost(contentsOf: path)
    return (folder, host, Session(host: host, json: false, style: .plain))
}

/// A leave guard's question in the REPL: printed instead of a plan, `confirm` and `cancel`
/// answer it, navigation waits for the answer, and `save-test` writes the confirmed change
/// (examples/recipes/discard.lua).
@Suite struct LeaveQuestionSessionTests {
    @Test func theREPLAsksAndTakesTheAnswer() throws {
        let (folder, host, session) = try discardSession()
        _ = session.execute("go accounts/transfer")
        _ = session.execute("flag amount=50")
        #expect(
            session.execute("back").lines
                == ["? Discard this transfer of 50?  (accounts/transfer's leave guard: confirm or cancel)"])
        let blocked = session.execute("go accounts")
        #expect(blocked.failed)
        #expect(
            blocked.lines.joined().contains("pendingConfirmation")
                || blocked.lines.joined().contains("waiting for an answer"))
        #expect(session.execute("cancel").lines == ["(cancelled: nothing changed)"])
        #expect(host.state.request?.original == "accounts/transfer")
        _ = session.execute("back")
        let confirmed = session.execute("confirm")
        #expect(!confirmed.failed && host.state.request?.path == "accounts", "\(confirmed.lines)")
        let json = Session(host: host, json: true, style: .plain)
        _ = json.execute("go accounts/transfer")
        #expect(
            json.execute("go accounts").lines
                == [#"{"question":{"text":"Discard this transfer of 50?","node":"accounts/transfer"}}"#])
        _ = json.execute("confirm")
        _ = session.execute("save-test discard_again")
        let recorded = try String(contentsOfFile: folder.path + "/discard_again_test.lua", encoding: .utf8)
        #expect(recorded.contains("app:back()\n  app:confirm()"), "\(recorded)")
    }
}

/// Commands the table gives every surface: `tap` and `open` in the REPL, `--json` after any
/// command, and `save-test` writing what was typed as the test API's calls (the recorder reads
/// the history's commands, nothing parsed back from text) — a test that passes on its first run.
@Suite struct CommandTableSessionTests {
    @Test func tapOpenAndTheirRecording() throws {
        let (folder, host, session) = try discardSession()
        #expect(!session.execute("open accounts/transfer").failed)
        #expect(host.state.request?.original == "accounts/transfer")
        // The action's flag, pressed in the REPL as the page presses it.
        #expect(!session.execute("tap Type an amount").failed)
        #expect(host.options.flags["amount"] == "50")
        let unknown = session.execute("tap Send")
        #expect(unknown.failed && unknown.lines.joined().contains("has no action 'Send' (actions: 'Type an amount')"))
        #expect(session.execute("back").lines.first?.hasPrefix("? Discard this transfer of 50?") == true)
        #expect(!session.execute("confirm").failed)
        #expect(session.execute("state --json").lines.first?.hasPrefix(#"{"state":{"#) == true)
        #expect(session.execute("go accounts/transfer --json").lines.first?.hasPrefix("{") == true)
        // `copy-state`: a command added in three files (the table, the command, the session).
        let copied = session.execute("copy-state").lines.joined()
        #expect(copied.contains(#""request":"accounts/transfer""#) && copied.contains(#""restore":"#), "\(copied)")
        let document = session.execute("copy-state --json").lines.first ?? ""
        #expect(document.hasPrefix(#"{"document":{"name":"state","value":{"#), "\(document)")
        // The history's entries carry their commands (the page reads them too).
        let entries = session.live.history
        #expect(entries.map { $0.commands.map(\.op) }.contains(["back", "confirm"]))
        #expect(entries.contains { $0.commands == [.tap("Type an amount")] })
        #expect(entries.first?.json.contains(#""commands":[{"op":"dispatch","request":"accounts/transfer"}]"#) == true)
        _ = session.execute("save-test pressed")
        let recorded = try String(contentsOfFile: folder.path + "/pressed_test.lua", encoding: .utf8)
        #expect(recorded.contains(#"app:go("accounts/transfer")"#), "open is recorded as the request it opened")
        #expect(recorded.contains(#"app:tap("Type an amount")"#) && recorded.contains("app:back()\n  app:confirm()"))
        let result = TestRunner(options: .init()).run(file: folder.path + "/pressed_test.lua")
        #expect(result.loadError == nil)
        #expect(result.cases.map(\.status) == [.passed], "\(result.cases.first?.message ?? "")\n\(recorded)")
    }

    /// `push` in the REPL (docs/dsl.md, "Push"): the same screen again, Back popping it, a row
    /// and an action that push, the recording replayed by `luna test`.
    @Test func pushInTheREPLAndItsRecording() throws {
        let folder = ScriptFolder()
        let script = folder.write("bank.lua", try String(contentsOfFile: example("bank.lua"), encoding: .utf8))
        let session = Session(host: try RouteScriptHost(contentsOf: script), json: false, style: .plain)
        _ = session.execute("go accounts/1234")
        let pushed = session.execute("push accounts/5678").lines.joined(separator: "\n")
        #expect(
            pushed.contains(
                "create accounts/:account#2\n    setStack accounts-tab [accounts, accounts/:account, accounts/:account#2]"
            ),
            "\(pushed)")
        #expect(pushed.contains(#"screen accounts/:account#2 "Account •5678" account=5678"#), "\(pushed)")
        let json = session.execute("push accounts/1234 --json").lines.first ?? ""
        #expect(json.contains(#""op":"create","id":"accounts/:account#3""#), "\(json)")
        let refused = session.execute("push payees/ada")
        #expect(
            refused.failed && refused.lines.joined().contains("accounts-tab does not take pushes of payees/:payee"),
            "\(refused.lines)")
        #expect(
            session.execute("back").lines.first?.hasPrefix("back → accounts/:account (account)  account=5678") == true)
        #expect(session.live.history.last?.kind == .back)
        #expect(session.live.history.contains { $0.kind == .push && $0.commands == [.push("accounts/5678")] })
        // The tab bar's sheet over the pushed account, closed back to it; a result handed back.
        _ = session.execute("go transfer")
        #expect(session.live.withHost { $0.tree?.rendered() }?.contains("modal stack transfer-flow") == true)
        #expect(
            session.execute("close").lines.first?.hasPrefix("close → accounts/:account (account)  account=5678") == true
        )
        _ = session.execute("go transfer/payee")
        let handed = session.execute("back name=Ada payee=ada").lines.joined(separator: "\n")
        #expect(handed.contains("deliver transfer {name=Ada, payee=ada}"), "\(handed)")
        #expect(handed.contains(#"screen transfer "Transfer to Ada" result={name=Ada, payee=ada}"#), "\(handed)")
        _ = session.execute("close")
        _ = session.execute("save-test pushed")
        let recorded = try String(contentsOfFile: folder.path + "/pushed_test.lua", encoding: .utf8)
        #expect(recorded.contains(#"app:push("accounts/5678")"#) && recorded.contains(#"app:push("accounts/1234")"#))
        #expect(
            recorded.contains(#"app:back({ name = "Ada", payee = "ada" })"#) && recorded.contains("app:close()"),
            "\(recorded)")
        let result = TestRunner(options: .init()).run(file: folder.path + "/pushed_test.lua")
        #expect(result.cases.map(\.status) == [.passed], "\(result.cases.first?.message ?? "")\n\(recorded)")
    }

    /// A tap that set a flag is part of the recording: the saved test opens the script with the
    /// flags it had before the tap (none), not the ones the tap left.
    @Test func aRecordedTapStartsFromTheFlagsBeforeIt() throws {
        let folder = ScriptFolder()
        let script = folder.write("shop.lua", try String(contentsOfFile: example("shop.lua"), encoding: .utf8))
        let session = Session(host: try RouteScriptHost(contentsOf: script), json: false, style: .plain)
        _ = session.execute("go signin")
        #expect(!session.execute("tap Sign in").failed)
        _ = session.execute("save-test tapped")
        let source = try String(contentsOfFile: folder.path + "/tapped_test.lua", encoding: .utf8)
        #expect(source.contains(#"local app = luna.open("shop.lua")"#), "\(source)")
        #expect(source.contains(#"app:tap("Sign in")"#))
        let result = TestRunner(options: .init()).run(file: folder.path + "/tapped_test.lua")
        #expect(result.cases.map(\.status) == [.passed], "\(result.cases.first?.message ?? "")")
    }

    /// The test API refuses what the page and the REPL refuse: a flag's value is a string (a
    /// number was quietly turned into one before).
    @Test func theTestAPIKeepsTheTablesRules() throws {
        let folder = ScriptFolder()
        _ = folder.write("books.lua", try String(contentsOfFile: example("books.lua"), encoding: .utf8))
        let file = folder.write(
            "rules_test.lua",
            """
            local app = luna.open("books.lua")
            test("a number is not a flag's value", function()
              expect(function() app:flag("beta", 1) end).to_fail_with("usage")
              expect(app.error.message).to_be('flag\\'s "value" is a string or null')
              app:flag("beta", "on")
              app:go("books/42")
              app:undo()
              app:redo()
              expect(app.route).to_be("books/:id")
              app:travel(0)
              expect(function() app:go("books", { kep = true }) end).to_fail_with("usage")
            end)
            """)
        let result = TestRunner(options: .init()).run(file: file)
        #expect(result.loadError == nil, "\(result.loadError ?? "")")
        #expect(result.cases.map(\.status) == [.passed], "\(result.cases.first?.message ?? "")")
    }
}

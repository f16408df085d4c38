import LunaLive
import LunaTestSupport
import RouteCore
import RouteScript
import Testing

/// `luna verify` (docs/verify.md): planted defects are each found, with the shortest
/// counterexample; the examples report none.
@Suite struct VerifyTests {
    static func verify(_ source: String, limit: Int = 5_000) throws -> Verification {
        let host = RouteScriptHost(options: Verification.options())
        try host.load(source: source, name: "planted.lua")
        return try Verification.run(host, limit: limit)
    }

    static func lines(_ steps: [Command]?) -> [String] { (steps ?? []).map(CommandSpec.line) }

    @Test func aDeadEndIsFoundWithTheShortestWayThere() throws {
        let result = try Self.verify(
            """
            return switcher { initial = "home",
              stack { endpoint { "home", rows = { { "Kiosk", go = "kiosk" } },
                children = { endpoint { "./about" } } } },
              endpoint { "kiosk", title = "Kiosk" },
            }
            """)
        let dead = try #require(result.findings.first { $0.check == .dead_end })
        #expect(dead.node == "kiosk")
        #expect(Self.lines(dead.steps) == ["go kiosk"])
        #expect(dead.location?.line == 4)
        #expect(result.findings.count == 1, "\(result.findings.map(\.message))")
        // Switched off with a reason: reported as skipped, not found.
        let kiosk = try Self.verify(
            """
            return switcher { initial = "home",
              stack { endpoint { "home", rows = { { "Kiosk", go = "kiosk" } } } },
              endpoint { "kiosk", verify = { dead_end = "a kiosk screen" } },
            }
            """)
        #expect(kiosk.findings.isEmpty)
        #expect(kiosk.skipped.map(\.reason) == ["a kiosk screen"])
    }

    @Test func aLinkThatShowsOtherThanTheTapsIsFound() throws {
        // Help is a sheet of the tab bar: the taps open it over the second tab's screen, a
        // cold link over the tab bar's entry (the first tab).
        let result = try Self.verify(
            """
            return junction { id = "tabs", initial = "home",
              modals = { endpoint { "help" } },
              stack { id = "one", endpoint { "home" } },
              stack { id = "two", endpoint { "settings", actions = { { "Help", go = "help" } } } },
            }
            """)
        let finding = try #require(result.findings.first { $0.check == .link_taps })
        #expect(finding.node == "help")
        #expect(finding.message.contains("a link to help shows tabs > one > home > help"), "\(finding.message)")
        #expect(Self.lines(finding.steps) == ["go settings --keep", "tap Help"], "\(Self.lines(finding.steps))")
    }

    @Test func aRowToNowhereAndAnUnreachableScreenAreFound() throws {
        let result = try Self.verify(
            """
            return stack { initial = "home",
              endpoint { "home", rows = { { "Review", go = "transfer/review" } },
                children = { endpoint { "transfer/amount", children = { endpoint { "./review" } } } } },
              endpoint { "hidden", link = false },
              endpoint { "...", title = "Not found" },
            }
            """)
        let target = try #require(result.findings.first { $0.check == .targets })
        #expect(target.message.contains("row 'Review' of home goes to 'transfer/review'"), "\(target.message)")
        #expect(target.location?.line == 2)
        let unreachable = try #require(result.findings.first { $0.check == .unreachable })
        #expect(unreachable.node == "hidden")
        #expect(unreachable.location?.line == 4)
    }

    @Test func aResultThatMissesTheScreenThatOpenedThePickerIsFound() throws {
        // The row on `a` opens b's picker by its declared chain: Back hands the value to `b`.
        let result = try Self.verify(
            """
            return stack { initial = "a",
              endpoint { "a", rows = { { "Pick", go = "b/picker" } } },
              endpoint { "b", verify = { dead_end = "planted" },
                children = { endpoint { "./picker", verify = { dead_end = "planted" }, rows = { { "One", result = { n = 1 } } } } } },
            }
            """)
        let finding = try #require(result.findings.first { $0.check == .results })
        #expect(finding.message == "a result from b/picker goes to b, not to a, which opened it")
        #expect(Self.lines(finding.steps) == ["go b/picker", "back n=1"])
        #expect(result.findings.count == 1, "\(result.findings.map(\.message))")
    }

    @Test func aSavedStringThatNoLongerRestoresAsItSaysIsFound() throws {
        let folder = ScriptFolder()
        let script = folder.write(
            "saved.lua",
            #"return stack { initial = "books", endpoint { "books", children = { endpoint { "./:id", where = { id = "[0-9]+" } } } } }"#
        )
        folder.write(
            "saved.restore",
            """
            # route  string  [warning]
            books/:id {"v":1,"r":"books/42","p":["k","root",[["s","books"],["s","books/:id",{"p":{"id":"42"},"r":"books/42"}]]]}
            books/:id {"v":1,"r":"books/x","p":["k","root",[["s","books"]]]}
            books {"v":1,"r":"books/x","p":["k","root",[["s","books"]]]} no longer matches
            books {"v":9}
            """)
        let result = try Verification.run(try RouteScriptHost(contentsOf: script))
        let lines = result.findings.filter { $0.check == .restoration }.map {
            "\($0.location?.line ?? 0) \($0.message)"
        }
        #expect(
            lines == [
                "3 the saved string shows books, not books/:id",
                "5 the saved string no longer restores: the restoration string has version 9; this Luna reads versions 1 to 2",
            ], "\(lines)")
    }

    @Test func everyFlagValueIsTriedAndAGuardedScreenIsNeverKept() throws {
        let result = try Self.verify(
            """
            return switcher { initial = "home", flags = { signedIn = { "yes", "no" } },
              endpoint { "signin", link = false, actions = { { "Sign in", flag = { signedIn = "yes" }, go = "home" } } },
              stack { enabled = function() return flags.signedIn ~= "no" end, fallback = "signin",
                endpoint { "home", rows = { { "Account", go = "home/account" } },
                  children = { endpoint { "./account" } } } },
            }
            """)
        #expect(result.flags.map(\.name) == ["signedIn"])
        #expect(result.findings.isEmpty, "\(result.findings.map(\.message))")
        // Undo after a sign-out is explored (a history travel the guards judge): no state it
        // reaches shows the account.
        #expect(result.undos > 0)
        #expect(result.states > 4)
    }

    /// A guard that reads state other than the flags (a hook sets a Lua global) lets a refused
    /// screen stay below the top: Back would reach it. The walk finds it kept.
    @Test func aGuardBypassedByAScreenKeptBelowIsFound() throws {
        let result = try Self.verify(
            """
            locked = false
            return stack { initial = "home",
              endpoint { "home", rows = { { "Secret", go = "home/secret" } }, children = {
                endpoint { "./secret", enabled = function() return not locked end, fallback = "home",
                  verify = { restoration = "planted" },
                  rows = { { "Lock", go = "home/secret/lock" } },
                  children = { endpoint { "./lock", verify = { restoration = "planted" },
                    presenter = { update = function() locked = true end } } } },
              } },
            }
            """)
        let guards = result.findings.filter { $0.check == .guards }
        #expect(guards.map(\.node) == ["home/secret"], "\(result.findings.map(\.message))")
        #expect(guards.first?.message == "home/secret is kept though its guard refuses it under no flags")
    }

    @Test func aBoundThatCutsTheWalkShortSaysWhichChecksAreIncomplete() throws {
        let result = try Self.verify(
            """
            return stack { initial = "a",
              endpoint { "a", rows = { { "B", go = "b" } }, children = { endpoint { "b", rows = { { "C", go = "c" } } } } },
              endpoint { "c" },
            }
            """, limit: 2)
        #expect(result.bounded)
        #expect(!result.complete.contains(.dead_end) && !result.complete.contains(.unreachable))
    }

    /// Every example, the recipes too: a gate's timeout (splash.lua) and a leave guard's question
    /// (discard.lua, answered yes) are explored, not dead ends.
    @Test(arguments: [
        "shop.lua", "bank.lua", "books.lua", "catalog.lua", "routerservice.lua", "animals.lua", "device.lua",
        "featherweight.lua", "recipes/splash.lua", "recipes/discard.lua", "recipes/signin-continue.lua",
        "recipes/sheet-stack.lua", "recipes/split.lua",
    ])
    func theExamplesHaveNoFinding(script: String) throws {
        let host = try RouteScriptHost(contentsOf: example(script), options: Verification.options())
        let result = try Verification.run(host)
        #expect(!result.bounded)
        #expect(result.findings.isEmpty, "\(result.findings.map(\.message))")
        // discard.lua's leave guard: the steps that removed its screen asked it, as the table says.
        if script == "recipes/discard.lua" { #expect(result.leavesAsked > 0) }
    }
}

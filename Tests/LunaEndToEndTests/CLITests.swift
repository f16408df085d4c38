import Foundation
import LunaConsole
import LunaLive
import LunaTestSupport
import RouteCore
import RouteScript
import Testing

/// Golden tests of the `luna` binary on examples/ (exact output, exit status).
@Suite struct CLITests {
    static let fixtures = repositoryRoot + "/Tests/LunaEndToEndTests/Fixtures/"

    @Test func versionAndHelp() throws {
        let version = try luna(["--version"])
        #expect(version.status == 0)
        // The versions of every contract a tool or an app reads (docs/cli.md, "Versions").
        #expect(
            version.stdout
                == "luna 0.1.0 (Lua 5.4; JSON output format 2, live-link protocol 2, restoration strings v2, exported trees v1)\n"
        )
        // In step with the changelog: its first released version is the one luna prints.
        let changelog = try String(contentsOfFile: repositoryRoot + "/CHANGELOG.md", encoding: .utf8)
        let released = changelog.split(separator: "\n").first { $0.hasPrefix("## [") && !$0.contains("Unreleased") }
        let number = released?.dropFirst(4).prefix { $0 != "]" }
        #expect(number.map { version.stdout.hasPrefix("luna \($0) ") } == true, "CHANGELOG: \(released ?? "none")")
        let help = try luna(["--help"])
        #expect(help.status == 0)
        for command in ["repl", "dispatch", "routes", "check", "graph"] {
            #expect(help.stdout.contains("  \(command) "), "\(command)")
            let sub = try luna([command, "--help"])
            #expect(sub.status == 0)
            #expect(sub.stdout.contains("USAGE: luna \(command) <script>"), "\(command)")
        }
    }

    @Test func dispatchPrintsOneJSONObjectPerRequest() throws {
        let result = try luna([
            "dispatch", "examples/books.lua", "books/42?title=Dune", "books/42?title=Dune", "--json",
        ])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(
            lines[0]
                == #"{"luna":2,"request":"books/42?title=Dune","path":"books/42","route":"books/:id","name":"book","params":{"id":"42"},"query":{"title":"Dune"},"fragment":null,"plan":[{"op":"create","id":"root"},{"op":"create","id":"junction:today"},{"op":"create","id":"stack:today"},{"op":"create","id":"stack:books"},{"op":"create","id":"books"},{"op":"create","id":"books/:id"},{"op":"create","id":"stack:profile"},{"op":"setStack","id":"stack:books","items":["books","books/:id"]},{"op":"setOptions","id":"junction:today","options":["stack:today","stack:books","stack:profile"]},{"op":"select","id":"junction:today","index":1,"option":"stack:books"},{"op":"select","id":"root","index":2,"option":"junction:today"}],"reasons":[],"tree":{"attributes":{},"children":[{"attributes":{},"children":[{"attributes":{},"children":[],"id":"stack:today","kind":"stack","title":"Today"},{"attributes":{},"children":[{"attributes":{},"fragment":null,"id":"books","kind":"screen","modal":null,"params":{},"query":{},"route":"books","title":"Books"},{"attributes":{},"fragment":null,"id":"books/:id","kind":"screen","modal":null,"params":{"id":"42"},"query":{"title":"Dune"},"route":"books/:id","title":"Dune"}],"id":"stack:books","kind":"stack","title":"Books"},{"attributes":{},"children":[],"id":"stack:profile","kind":"stack","title":"Profile"}],"id":"junction:today","kind":"junction","selected":1,"title":"Main"}],"id":"root","kind":"switcher","section":2,"selected":0,"title":"root"}}"#
        )
        #expect(lines[1].contains(#""plan":[],"#), "re-dispatching the current request: an empty plan")
    }

    @Test func aFailedDispatchIsAnErrorObjectAndStatusOneButTheOthersRun() throws {
        let result = try luna(["dispatch", "examples/routerservice.lua", "products/7/reviews", "home", "--json"])
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines[0]
                == #"{"luna":2,"request":"products/7/reviews","error":{"kind":"disabled","message":"route 'products/:id/reviews' is disabled"}}"#
        )
        #expect(lines[1].hasPrefix(#"{"luna":2,"request":"home","path":"home""#))
        let text = try luna(["dispatch", "examples/books.lua", "books/%zz"])
        #expect(text.status == 1)
        #expect(text.stderr == "luna: error: bad percent-encoding in segment 2 ('%zz')\n")
    }

    @Test func dispatchTextHasNoColourWhenPiped() throws {
        let result = try luna(["dispatch", "examples/books.lua", "today"], environment: ["NO_COLOR": ""])
        #expect(result.status == 0)
        #expect(!result.stdout.contains("\u{1B}["))
        #expect(result.stdout.hasPrefix("today → today\n  plan:\n    create root\n"))
    }

    @Test func flagsAndDevicesReachTheScript() throws {
        let on = try luna(["dispatch", "examples/routerservice.lua", "checkout", "--flag", "newCheckout=on", "--json"])
        #expect(on.stdout.contains(#""route":"checkout","#))
        let pad = try luna(["dispatch", "examples/device.lua", "inbox/3", "--device", "pad", "--json"])
        #expect(pad.stdout.contains(#""id":"drafts","kind":"screen""#))
        #expect(pad.stdout.contains(#""id":"mail","kind":"stack","title":"Mailboxes""#))
    }

    @Test func usageErrorsAndLoadErrorsExitWithTwo() throws {
        let missing = try luna(["dispatch"])
        #expect(missing.status == 2)
        #expect(missing.stderr.hasPrefix("luna: error: Missing expected argument '<script>'"))
        let device = try luna(["dispatch", "examples/books.lua", "x", "--device", "tv"])
        #expect(device.status == 2)
        #expect(device.stderr.hasPrefix("luna: error: --device must be phone or pad"))
        let folder = ScriptFolder()
        let broken = folder.write("broken.lua", "return endpoint { 'a', childs = {} }")
        let load = try luna(["routes", broken])
        #expect(load.status == 2)
        #expect(
            load.stderr
                == "luna: error: \(broken.relativeToWorkingDirectory):1: endpoint: unknown field 'childs' (did you mean 'children'?)\n"
        )
    }

    @Test func routesListsTheTableMostSpecificFirst() throws {
        let result = try luna(["routes", "examples/featherweight.lua"])
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                RANK PATTERN                 NAME  NODE CHAIN
                1    welcome                 -     root > stack:welcome > welcome
                2    about                   -     root > about
                3    welcome/register        -     root > stack:welcome > welcome > welcome/register
                4    welcome/login           -     root > stack:welcome > welcome > welcome/login
                5    welcome/register/step2  -     root > stack:welcome > welcome > welcome/register > welcome/register/step2

                """)
        let json = try luna(["routes", "examples/featherweight.lua", "--json"])
        #expect(
            json.stdout.hasPrefix(
                #"{"luna":2,"routes":[{"rank":1,"pattern":"welcome","name":null,"id":"welcome","chain":["root","stack:welcome","welcome"],"title":"Welcome","params":[],"fillable":true,"owner":null}"#
            ))
    }

    @Test func checkReportsEachKindOfProblem() throws {
        let result = try luna(["check", Self.fixtures + "lint.lua"])
        #expect(result.status == 1)
        #expect(
            result.stdout == """
                Tests/LunaEndToEndTests/Fixtures/lint.lua:4: warning: route 'users/:name' can never win: 'users/:id' (lint.lua:3) matches everything it matches and is an earlier route of the same rank
                Tests/LunaEndToEndTests/Fixtures/lint.lua:5: warning: route 'files/:_' can never win: 'files/:path' (lint.lua:6) matches everything it matches and is a more specific route
                Tests/LunaEndToEndTests/Fixtures/lint.lua:11: warning: route 'users/:who' can never win: 'users/:id' (lint.lua:3) matches everything it matches and is an earlier route of the same rank
                Tests/LunaEndToEndTests/Fixtures/lint.lua:14: error: route 'about' duplicates 'about' (lint.lua:8)
                Tests/LunaEndToEndTests/Fixtures/lint.lua:7: warning: validator of 'id' ('[0-9]{0}') rejects every value: it matches only the empty string, and segments are never empty
                Tests/LunaEndToEndTests/Fixtures/lint.lua:10: warning: stack 'dead' has no reachable endpoint: every route under it can never win
                Tests/LunaEndToEndTests/Fixtures/lint.lua:14: warning: modal 'about-again' can never be presented: every route under it can never win
                Tests/LunaEndToEndTests/Fixtures/lint.lua: 9 routes, 1 error, 6 warnings

                """)
        let clean = try luna(["check", "examples/books.lua"])
        #expect(clean.status == 0)
        #expect(clean.stdout == "examples/books.lua: 12 routes, 0 errors, 0 warnings\n")
        // Problems that are load errors: exit status 2.
        let folder = ScriptFolder()
        for (source, message) in [
            ("return endpoint { 'a/:id/:id' }", "pattern 'a/:id/:id': parameter 'id' appears twice"),
            ("return endpoint { 'a/:id', where = { id = '(' } }", "where.id: invalid regular expression '('"),
        ] {
            let path = folder.write("bad.lua", source)
            let bad = try luna(["check", path])
            #expect(bad.status == 2)
            #expect(bad.stderr.contains(message), "\(bad.stderr)")
            // With --json every command prints the error object on stdout, as check does.
            for arguments in [
                ["check", path, "--json"], ["dispatch", path, "a/1", "--json"], ["routes", path, "--json"],
            ] {
                let result = try luna(arguments)
                #expect(result.status == 2, "\(arguments)")
                #expect(
                    result.stdout.hasPrefix(#"{"luna":2,"script":"#) && result.stdout.contains(#""error":"#),
                    "\(arguments): \(result.stdout)")
            }
        }
    }

    /// A script that names a presenter the app supplies opens in every `luna` command: the
    /// presenter is headless here, with a one-line note, and an export keeps its name.
    @Test func presentersTheAppSuppliesAreHeadlessInTheTool() throws {
        let folder = ScriptFolder()
        let path = folder.write(
            "app.lua", "return stack { endpoint { 'home', presenter = 'Sheet', modals = { endpoint { './share' } } } }")
        let note = "luna: note: presenter 'Sheet' is the app's; shown headless here"
        let dispatched = try luna(["dispatch", path, "home/share"])
        #expect(dispatched.status == 0, "\(dispatched.stderr)")
        #expect(dispatched.stderr.contains(note))
        #expect(try luna(["check", path]).status == 0)
        #expect(try luna(["routes", path]).status == 0)
        let exported = try luna(["export", "json", path])
        #expect(exported.status == 0)
        #expect(exported.stdout.contains(#""presenter": "Sheet""#))
        let repl = try luna(["repl", path, "--no-watch"], input: "go home\n")
        #expect(repl.stdout.contains("screen home"), "\(repl.stdout)\(repl.stderr)")
        folder.write(
            "app_test.lua", "local app = luna.open('app.lua')\ntest('t', function() app:go('home/share') end)\n")
        #expect(try luna(["test", folder.path + "/app_test.lua"]).status == 0)
    }

    @Test func graphPrintsDOTAndRendersThroughDot() throws {
        let dot = try luna(["graph", "examples/books.lua"])
        #expect(dot.status == 0)
        #expect(dot.stdout.hasPrefix("digraph \"books.lua\" {\n  rankdir=LR;\n"))
        #expect(dot.stdout.contains(#""today" -> "today/story/:type/:id" [style=dashed, label="modal"];"#))
        #expect(dot.stdout.contains(#""books" -> "books/:id" [label="push"];"#))
        #expect(dot.stdout.contains(#""root" [shape=diamond"#))
        #expect(dot.stdout.hasSuffix("}\n"))
        let hasDot = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/dot")
        }
        let svg = try luna(["graph", "examples/books.lua", "--format", "svg"])
        if hasDot {
            #expect(svg.status == 0)
            #expect(svg.stdout.contains("<svg"))
        } else {
            #expect(svg.status == 2)
            #expect(svg.stderr.contains("'dot' is not on PATH"))
        }
    }

    /// Every input line gets its answer: an unfinished chunk swallowed the next command.
    @Test func unfinishedLuaNeverSwallowsTheNextLine() throws {
        let plain = try luna(["repl", "examples/books.lua", "--no-watch"], input: "= 1 +\ngo books\n")
        #expect(plain.stdout.contains("error: repl:1: unexpected symbol near <eof>"), "\(plain.stdout)")
        #expect(plain.stdout.contains("books → books"))
        let json = try luna(
            ["repl", "examples/books.lua", "--no-watch", "--json"], input: "= 1 +\n2\n= 3 +\n\ngo books\n")
        let lines = json.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(lines)")
        #expect(
            Array(lines.prefix(4)) == [
                #"{"continue":true}"#, #"{"lua":["3"]}"#, #"{"continue":true}"#, #"{"cancelled":true}"#,
            ])
        #expect(lines.last?.hasPrefix(#"{"request":"books""#) == true)
    }

    @Test func replInPipeModeRunsTheSameCommandsWithoutAPrompt() throws {
        let result = try luna(
            ["repl", "examples/books.lua", "--no-watch", "books"], input: "go books/7\nstate\n= 2 + 3\nquit\n")
        #expect(result.status == 0)
        #expect(!result.stdout.contains("luna>"))
        #expect(result.stdout.hasPrefix("books → books\n"))
        #expect(result.stdout.contains("request  books/7\nroute    books/:id (book)\nparams   id=7\n"))
        #expect(result.stdout.hasSuffix("5\n"))
        let json = try luna(["repl", "examples/books.lua", "--no-watch", "--json"], input: "go login\ntree\nnope\n")
        let lines = json.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(
            lines[1]
                == #"{"attributes":{},"children":[{"attributes":{},"fragment":null,"id":"login","kind":"screen","modal":null,"params":{},"query":{},"route":"login","title":"Login"}],"id":"root","kind":"switcher","section":0,"selected":0,"title":"root"}"#
        )
    }
}

@Suite struct ExportCommandTests {
    @Test func exportJSONWritesTheTreeAndNamesTheHooksOnStandardError() throws {
        let result = try luna(["export", "json", example("routerservice.lua")])
        #expect(result.status == 0)
        let value = try JSONValue.parse(result.stdout, maxDepth: 512)
        #expect(value["luna"]?.integer == 1)
        #expect(value["root"]?["kind"]?.string == "switcher")
        #expect(
            result.stderr.contains(
                "the app supplies these hooks (RouteHooks): checkout#enabled, products/:id/reviews#enabled, item/:id#redirect"
            ))
        // What was written loads without Lua once the hooks are given.
        var hooks = RouteHooks()
        hooks.enabled["checkout#enabled"] = { _ in true }
        hooks.enabled["products/:id/reviews#enabled"] = { _ in true }
        hooks.redirects["item/:id#redirect"] = { _ in nil }
        let tree = try RouteTree(json: result.stdout, hooks: hooks)
        #expect(tree.routeNames["product"] != nil)
    }

    @Test func exportAASAAndPlistWriteTheLinkFiles() throws {
        let aasa = try luna(["export", "aasa", example("shop.lua"), "--app-id", "ABCDE12345.com.example.shop"])
        #expect(aasa.status == 0, "\(aasa.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(aasa.stdout.utf8)) as? [String: Any]
        let details = (object?["applinks"] as? [String: Any])?["details"] as? [[String: Any]]
        #expect(details?.first?["appIDs"] as? [String] == ["ABCDE12345.com.example.shop"])
        #expect(aasa.stderr.isEmpty)
        // A script without hosts: written, with a warning that says what to do.
        let books = try luna(["export", "aasa", example("books.lua"), "--app-id", "ABCDE12345.com.example.books"])
        #expect(books.status == 0 && books.stderr.contains("declares no link hosts"))
        for bad in [[], ["--app-id", "com.example.shop"], ["--app-id", "abcde12345.com.example"]] {
            let refused = try luna(["export", "aasa", example("shop.lua")] + bad)
            #expect(refused.status == 2, "\(bad)")
            #expect(refused.stderr.contains("--app-id"), "\(refused.stderr)")
        }
        let plist = try luna(["export", "plist", example("shop.lua"), "--name", "com.example.shop"])
        #expect(plist.status == 0)
        let types = try PropertyListSerialization.propertyList(from: Data(plist.stdout.utf8), format: nil)
        #expect(
            ((types as? [String: Any])?["CFBundleURLTypes"] as? [[String: Any]])?.first?["CFBundleURLSchemes"]
                as? [String] == ["myshop"])
    }

    /// `luna export html -o DIR`: one self-contained file, and what Lua decided on standard error.
    @Test func exportHTMLWritesASelfContainedPrototype() throws {
        let folder = ScriptFolder()
        let out = folder.path + "/prototype"
        let result = try luna(["export", "html", example("shop.lua"), "-o", out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("wrote \(out)/index.html: "), "\(result.stderr)")
        #expect(result.stderr.contains("Lua was evaluated at export time for the guard of junction:home"))
        let page = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        #expect(page.contains("window.lunaPrototype = {"))
        // Nothing is fetched: no stylesheet link, no script source, no socket address.
        #expect(!page.contains("href=\"/app.css\"") && !page.contains("src=\"/app.js\""))
        #expect(page.components(separatedBy: "</script>").count == 3, "two script elements, each closed once")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["index.html"])
        // A bound that leaves steps out says so; html needs a folder.
        let bounded = try luna(["export", "html", example("shop.lua"), "-o", out, "--limit", "3"])
        #expect(bounded.status == 0 && bounded.stderr.contains("the bound (--limit 3) left out"), "\(bounded.stderr)")
        let noFolder = try luna(["export", "html", example("shop.lua")])
        #expect(noFolder.status == 2 && noFolder.stderr.contains("html needs -o DIR"), "\(noFolder.stderr)")
        // A start that fails (its guard raises) is an error with its place; so is a folder
        // that cannot be written.
        let failing = folder.write(
            "failing.lua", "return stack { initial = 'a',\n  endpoint { 'a', enabled = function() error('boom') end } }"
        )
        let refused = try luna(["export", "html", failing, "-o", folder.path + "/failing"])
        #expect(refused.status == 2 && refused.stderr.contains("failing.lua:2: boom"), "\(refused.stderr)")
        let unwritable = try luna(["export", "html", example("shop.lua"), "-o", "/proc/luna-no-such-place"])
        #expect(unwritable.status == 2 && unwritable.stderr.contains("cannot write"), "\(unwritable.stderr)")
    }

    @Test func goRefusesABadURL() throws {
        let noToken = try luna(["go", "http://127.0.0.1:9/", "books"])
        #expect(noToken.status == 2 && noToken.stderr.contains("no token"), "\(noToken.stderr)")
        let nobody = try luna(["go", "http://127.0.0.1:9/?token=abc", "books"])
        #expect(nobody.status == 2 && nobody.stderr.contains("cannot connect to 127.0.0.1:9"), "\(nobody.stderr)")
    }

    @Test func exportSwiftWritesAFileAndRefusesBadInput() throws {
        let folder = ScriptFolder()
        let output = folder.path + "/Routes.swift"
        let written = try luna(["export", "swift", example("books.lua"), "--type", "BooksRoute", "-o", output])
        #expect(written.status == 0)
        #expect(written.stdout.isEmpty)
        let text = try String(contentsOfFile: output, encoding: .utf8)
        #expect(text.contains("public struct BooksRoute: Hashable, Sendable {"))
        #expect(text.contains("public static func book(id: String, query: [String: String] = [:]"))

        let help = try luna(["export", "--help"])
        #expect(help.stdout.contains("USAGE: luna export [<options>] <format> <script>"), "\(help.stdout)")
        let format = try luna(["export", "yaml", example("books.lua")])
        #expect(format.status == 2)
        #expect(format.stderr.contains("the format is json, swift, aasa, plist or html"))
        let type = try luna(["export", "swift", example("books.lua"), "--type", "my route"])
        #expect(type.status == 2)
        let broken = folder.write("broken.lua", "return stack {")
        let load = try luna(["export", "json", broken])
        #expect(load.status == 2)
        #expect(load.stderr.hasPrefix("luna: error: "))
        let unwritable = try luna(["export", "json", example("books.lua"), "-o", folder.path + "/no/such/dir/x.json"])
        #expect(unwritable.status == 2)
        #expect(unwritable.stderr.contains("cannot write"))
    }
}

@Suite struct PathCommandTests {
    @Test func pathFillsANamedRouteAndRefusesWhatDoesNotFit() throws {
        let book = try luna(["path", example("books.lua"), "book", "id=42", "title=Dune II"])
        #expect(book.status == 0)
        #expect(book.stdout == "books/42?title=Dune%20II\n")
        let json = try luna(["path", example("books.lua"), "story", "type=news", "id=7", "--json"])
        #expect(json.stdout == "{\"luna\":2,\"path\":\"today/story/news/7\"}\n")
        // The path it prints dispatches to the same route and values.
        let back = try luna(["dispatch", example("books.lua"), "books/42?title=Dune%20II", "--json"])
        #expect(back.stdout.contains(#""name":"book","params":{"id":"42"},"query":{"title":"Dune II"}"#))

        let unknown = try luna(["path", example("books.lua"), "nope"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "luna: error: no route is named 'nope' (known names: all_news, book, story)\n")
        let refused = try luna(["path", example("books.lua"), "story", "type=news", "id=x", "--json"])
        #expect(refused.status == 1)
        #expect(refused.stdout.hasPrefix("{\"luna\":2,\"error\":{"))
        let usage = try luna(["path", example("books.lua"), "book", "id"])
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("'id' is not KEY=VALUE"))
    }
}

/// `link = false` through the command line's roads: `luna dispatch`, the REPL's `go` and
/// `sync`, and `luna test`'s `app:go`; a plain path to the same screen is the app's own.
@Suite struct ClosedToLinksCommandTests {
    @Test func dispatchAndTheREPLRefuseALinkIntoAClosedRoute() throws {
        let dispatched = try luna(["dispatch", "examples/shop.lua", "myshop://checkout/pay", "checkout/pay", "--json"])
        #expect(dispatched.status == 1)
        let lines = dispatched.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(
            lines.first?.contains(
                #""kind":"invalidRequest","message":"route 'checkout/pay' has link = false: a link cannot open it","file":"shop.lua","line":38"#
            )
                == true, "\(dispatched.stdout)")
        #expect(lines.last?.contains(#""route":"checkout/pay""#) == true)

        let repl = try luna(
            ["repl", "examples/shop.lua", "--no-watch"],
            input: "go https://shop.example/checkout\nsync myshop://checkout\nstate\n")
        #expect(
            repl.stdout.components(
                separatedBy: "shop.lua:37: route 'checkout' has link = false: a link cannot open it"
            )
            .count == 3, "\(repl.stdout)")
        #expect(!repl.stdout.contains("screen checkout"))
    }

    @Test func lunaTestsAppGoIsRefusedToo() throws {
        let folder = ScriptFolder()
        folder.write("shop.lua", try String(contentsOfFile: example("shop.lua"), encoding: .utf8))
        folder.write(
            "links_test.lua",
            """
            local app = luna.open('shop.lua')
            test('closed', function()
              expect(function() app:go('myshop://checkout/pay') end).to_fail_with('invalidRequest')
              app:go('checkout/pay')
            end)
            """)
        let result = try luna(["test", folder.path + "/links_test.lua"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }
}

/// `luna check` checks where rows and actions go as it checks fallbacks: a target that
/// matches no route, or only the catch-all, is a warning at its screen's line.
@Suite struct CheckTargetsTests {
    @Test func rowsAndActionsThatGoNowhereAreWarnings() throws {
        let folder = ScriptFolder()
        let script = folder.write(
            "bank.lua",
            """
            return stack {
              endpoint { "home",
                rows = { { "Review", go = "transfer/review?amount=5" }, { "Amount", go = "transfer/amount" } },
                actions = { { "Send", go = "transfer/review" }, { "Sign out", flag = { signedIn = "no" } } },
              },
              endpoint { "transfer/amount", children = { endpoint { "./review" } } },
              endpoint { "...", title = "Not found" },
            }
            """)
        let result = try luna(["check", script])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(
            result.stdout.contains(
                "bank.lua:2: warning: row 'Review' of endpoint 'home' goes to 'transfer/review?amount=5', which matches only the catch-all"
            ), "\(result.stdout)")
        #expect(
            result.stdout.contains(
                "bank.lua:2: warning: action 'Send' of endpoint 'home' goes to 'transfer/review', which matches only the catch-all"
            ))
        #expect(!result.stdout.contains("'Amount'"))
        #expect(result.stdout.contains("4 routes, 0 errors, 2 warnings"), "\(result.stdout)")
    }

    /// A row or action that pushes a screen its stack does not take is a warning (the push
    /// would fail with `notPushable`); one it takes, or the same screen again, is not.
    @Test func aPushToAScreenTheStackDoesNotTakeIsAWarning() throws {
        let folder = ScriptFolder()
        let script = folder.write(
            "push.lua",
            """
            return junction {
              stack { id = "accounts",
                endpoint { "accounts/:id",
                  rows = { { "Again", push = "accounts/7" }, { "Payee", push = "payees/ada" } },
                },
              },
              stack { id = "payees", endpoint { "payees/:payee", actions = { { "Account", push = "accounts/7" } } } },
            }
            """)
        let result = try luna(["check", script])
        #expect(
            result.stdout.contains(
                "push.lua:3: warning: row 'Payee' of endpoint 'accounts/:id' pushes 'payees/ada', which stack 'accounts' does not take (give it pushes = { … } naming 'payees/:payee')"
            ), "\(result.stdout)")
        #expect(
            result.stdout.contains(
                "push.lua:7: warning: action 'Account' of endpoint 'payees/:payee' pushes 'accounts/7', which stack 'payees' does not take"
            ), "\(result.stdout)")
        #expect(!result.stdout.contains("'Again'"))
        #expect(result.stdout.contains("0 errors, 2 warnings"), "\(result.stdout)")
    }
}

/// Every load error names its place in text as in JSON: a tree's or a sample's error carries
/// its place apart from its message, and the text puts it first.
@Suite struct LocatedErrorTests {
    @Test(arguments: [
        (
            #"return stack { endpoint { "cards/:card", sample = { cardId = { "1" } } } }"#,
            "sample names 'cardId', which is not a parameter of 'cards/:card' (its parameters: card)"
        ),
        ("return stack { initial = \"nowhere\",\n endpoint { \"a\" } }", "initial 'nowhere' matches no route"),
    ])
    func aLoadErrorPrintsItsPlace(source: String, message: String) throws {
        let folder = ScriptFolder()
        let script = folder.write("app.lua", source)
        let result = try luna(["dispatch", script, "a"])
        #expect(result.status == 2)
        #expect(result.stderr.contains(":1: " + message), "\(result.stderr)")
        #expect(result.stderr.contains("app.lua:1: "), "\(result.stderr)")
    }
}

/// Small things a new user ran into: `graph -o` (as `export -o`), a plist that needs the app's
/// bundle id instead of writing `links`, and the REPL's `clear`.
@Suite struct NewUserCommandTests {
    @Test func graphWritesAFileAndPlistNeedsTheBundleID() throws {
        let folder = ScriptFolder()
        let dot = folder.path + "/shop.dot"
        let graph = try luna(["graph", "examples/shop.lua", "-o", dot])
        #expect(graph.status == 0 && graph.stdout.isEmpty, "\(graph.stderr)")
        #expect(try String(contentsOfFile: dot, encoding: .utf8).hasPrefix("digraph \"shop.lua\" {"))
        let plist = try luna(["export", "plist", "examples/shop.lua"])
        #expect(plist.status != 0)
        #expect(plist.stderr.contains("plist needs --name com.example.app"), "\(plist.stderr)")
        let named = try luna(["export", "plist", "examples/shop.lua", "--name", "com.example.shop"])
        #expect(named.stdout.contains("<string>com.example.shop</string>") && !named.stdout.contains(">links<"))
    }

    @Test func clearClearsATerminalOnly() throws {
        let session = Session(host: try RouteScriptHost(contentsOf: example("books.lua")), json: false, style: .plain)
        session.continuation = .interactive
        #expect(session.execute("clear").lines == ["\u{1B}[H\u{1B}[2J\u{1B}[3J"])
        session.continuation = .none
        #expect(session.execute("clear").lines.isEmpty)
        #expect(session.execute("help").lines.contains { $0.contains("clear") })
    }
}

/// `luna verify`: a finding prints its place, check and counterexample (REPL lines and a
/// `luna test` case) and exits 1; a clean script exits 0; `--json` prints one object.
@Suite struct VerifyCommandTests {
    @Test func aDeadEndIsReportedWithItsCounterexample() throws {
        let folder = ScriptFolder()
        let script = folder.write(
            "kiosk.lua",
            """
            return switcher { initial = "home",
              stack { endpoint { "home", rows = { { "Kiosk", go = "kiosk" } } } },
              endpoint { "kiosk", title = "Kiosk" },
            }
            """)
        let result = try luna(["verify", script])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(
            result.stdout.contains(
                "kiosk.lua:3: dead_end: no way back to home from kiosk (Back, a sheet's close, the tabs, its actions and the flags lead elsewhere)\n  counterexample (the REPL):\n    go kiosk\n  as a luna test case:\n    app:go(\"kiosk\")"
            ), "\(result.stdout)")
        #expect(result.stdout.contains("kiosk.lua: 1 finding"))
        let json = try luna(["verify", script, "--json"])
        #expect(json.status == 1)
        #expect(
            json.stdout.contains(#""check":"dead_end""#)
                && json.stdout.contains(#""steps":[{"op":"dispatch","request":"kiosk"}]"#))
        // A `.verify` file beside it: `luna test` runs the walk, each finding a failed case.
        folder.write("kiosk.verify", "# every state of kiosk.lua\nlimit 100\n")
        let tested = try luna(["test", folder.path])
        #expect(tested.status == 1, "\(tested.stdout)")
        #expect(tested.stdout.contains("✗ verify dead_end kiosk"), "\(tested.stdout)")
        #expect(tested.stdout.contains("counterexample: go kiosk"), "\(tested.stdout)")
        folder.write("kiosk.verify", "limit many\n")
        #expect(try luna(["test", folder.path + "/kiosk.verify"]).status == 2)
        let clean = try luna(["verify", example("shop.lua")])
        #expect(clean.status == 0, "\(clean.stdout)")
        #expect(clean.stdout.contains("shop.lua: 0 findings"))
    }
}

import Foundation
import LuaHost
import LunaLive
import RouteScript
import Testing

@testable import LunaTest

/// The repository root, from this file's path.
let repositoryRoot: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
}()

/// A folder with a copy of examples/books.lua and the test files a case writes.
final class TestFolder {
    let path: String

    init() throws {
        path = repositoryRoot + "/.build/test-scripts/luna-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: repositoryRoot + "/examples/books.lua", toPath: path + "/books.lua")
    }

    @discardableResult
    func write(_ name: String, _ text: String) -> String {
        let full = path + "/" + name
        _ = FileManager.default.createFile(atPath: full, contents: Data(text.utf8))
        return full
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

func run(_ body: String, update: Bool = false, in folder: TestFolder? = nil) throws -> TestRunner.FileResult {
    let folder = try folder ?? TestFolder()
    let file = folder.write("case_test.lua", "local app = luna.open(\"books.lua\")\n" + body)
    var options = TestRunner.Options()
    options.update = update
    return TestRunner(options: options).run(file: file)
}

@Suite struct RunnerTests {
    @Test(
        arguments: [
            ("app:go('books/42') expect(app.route).to_be('books/:id')", nil),
            ("app:go('books/42') expect(app.route).to_be('books')", #"expected "books", got "books/:id""#),
            ("expect({ a = { 1, 2 } }).to_equal({ a = { 1, 2 } })", nil),
            (
                "expect({ a = { 1, 2 } }).to_equal({ a = { 1, 3 } })",
                #"expected { a = { 1, 3 } }, got { a = { 1, 2 } }"#
            ),
            ("expect({ 'x', 'y' }).to_contain('y')", nil),
            ("expect('hello').to_contain('z')", #"expected "hello" to contain "z""#),
            ("expect('books/42').to_match('^books/%d+$')", nil),
            ("expect(42).to_match('x')", #"expected 42 to match the pattern "x""#),
            ("expect(function() app:go('%zz') end).to_fail_with('invalidRequest')", nil),
            (
                "expect(function() app:go('%zz') end).to_fail_with('noMatch')",
                #"expected a failure of kind "noMatch", got "invalidRequest": bad percent-encoding in segment 1 ('%zz')"#
            ),
            (
                "expect(function() end).to_fail_with('noMatch')",
                #"expected a failure of kind "noMatch", but it succeeded"#
            ),
        ] as [(String, String?)])
    func assertionsPassAndFailWithExactMessages(line: String, message: String?) throws {
        let result = try run("test('case', function()\n  \(line)\nend)\n")
        let only = try #require(result.cases.first)
        if let message {
            #expect(only.status == .failed)
            #expect(only.message?.hasPrefix(message) == true, "\(line): \(only.message ?? "")")
            #expect(only.location?.hasSuffix("case_test.lua:3") == true, "the expectation's own line")
        } else {
            #expect(only.status == .passed, "\(only.message ?? "")")
        }
    }

    @Test func aWrongRouteShowsTheExplainOfTheRequest() throws {
        let result = try run(
            "test('c', function()\n app:go('books/x/y')\n expect(app.route).to_be('books/:id')\nend)\n")
        let message = try #require(result.cases.first?.message)
        #expect(message.hasPrefix("expected \"books/:id\", got \"...\"\n  request \"books/x/y\":\n"))
        #expect(message.contains("✗ books/:id  — segment 3: 'y' is past the end of the pattern"))
        #expect(message.contains("wins: ..."))
    }

    @Test func snapshotsAreWrittenComparedWithADiffAndUpdated() throws {
        let folder = try TestFolder()
        let body = "test('c', function()\n app:go(GO)\n expect_tree(app, 'shot')\nend)\n"
        #expect(
            try run(body.replacingOccurrences(of: "GO", with: "'books/42'"), in: folder).cases.first?.status == .passed)
        let golden = folder.path + "/__snapshots__/case_test/shot.tree.txt"
        #expect(FileManager.default.fileExists(atPath: golden))
        #expect(
            try run(body.replacingOccurrences(of: "GO", with: "'books/42'"), in: folder).cases.first?.status == .passed)
        let changed = try run(body.replacingOccurrences(of: "GO", with: "'books/7'"), in: folder)
        let message = try #require(changed.cases.first?.message)
        #expect(message.contains("--- expected\n+++ actual"))
        #expect(message.contains("-    │   └── screen books/:id \"Book 42\" id=42"))
        #expect(message.contains("+    │   └── screen books/:id \"Book 7\" id=7"))
        #expect(
            try run(body.replacingOccurrences(of: "GO", with: "'books/7'"), update: true, in: folder).cases.first?
                .status == .passed)
        #expect(try String(contentsOfFile: golden, encoding: .utf8).contains("\"Book 7\""))
    }

    @Test func everyCaseStartsFresh() throws {
        let result = try run(
            """
            counter = (counter or 0) + 1
            test('one', function() app:go('books/42') expect(counter).to_be(1) end)
            test('two', function() expect(app.route).to_be(nil) expect(counter).to_be(1) end)
            """)
        #expect(result.cases.map(\.status) == [.passed, .passed])
    }

    @Test(arguments: [
        ("while true do end", "the case stopped: instruction budget exceeded"),
        (
            "local t = {} while true do t[#t + 1] = string.rep('x', 1000) .. #t end",
            "the case stopped: memory limit exceeded (not enough memory)"
        ),
        ("error(setmetatable({}, { __tostring = function() return 'custom' end }))", "custom"),
        ("io.open('/etc/passwd')", "attempt to index a nil value (global 'io')"),
        ("os.execute('true')", "attempt to call a nil value (field 'execute')"),
        ("luna.open('/etc/passwd')", "luna.open: '/etc/passwd' is not a relative path to a .lua script"),
        ("require('os')", "require"),
    ])
    func hostileCasesFailWithTheLimitAndTheRunGoesOn(body: String, message: String) throws {
        let result = try run(
            "test('hostile', function()\n \(body)\nend)\ntest('after', function() app:go('books') end)\n")
        #expect(result.cases.count == 2)
        #expect(result.cases.first?.status == .failed)
        #expect(result.cases.first?.message?.contains(message) == true, "\(result.cases.first?.message ?? "")")
        #expect(result.cases.last?.status == .passed)
    }

    @Test func aTestFileThatDoesNotLoadIsALoadError() throws {
        let folder = try TestFolder()
        let broken = folder.write("broken_test.lua", "test('x', function() end")
        #expect(TestRunner(options: .init()).run(file: broken).loadError?.contains("broken_test.lua:1:") == true)
        let missing = folder.write("missing_test.lua", "local app = luna.open('nope.lua')")
        let error = TestRunner(options: .init()).run(file: missing).loadError
        #expect(error?.contains("luna.open: no file 'nope.lua'") == true)
    }

    /// Failures point at the user's own line: the failing action's call, a refused
    /// `luna.open`; a golden diff shows the old line before the new one.
    @Test func failuresPointAtTheTestsOwnLines() throws {
        let folder = try TestFolder()
        let file = folder.write(
            "lines_test.lua",
            """
            local app = luna.open("books.lua")
            test("action", function()
              app:go("books")

              app:go("books/%zz")
            end)
            test("open", function()
              luna.open("../elsewhere.lua")
            end)
            """)
        let result = TestRunner(options: .init()).run(file: file)
        #expect(
            result.cases.first?.location?.hasSuffix("lines_test.lua:5") == true,
            "\(result.cases.first?.location ?? "none")")
        #expect(result.cases.first?.message?.hasPrefix("invalidRequest: bad percent-encoding") == true)
        #expect(
            result.cases.last?.message?.contains("lines_test.lua:8: luna.open: no file '../elsewhere.lua'") == true,
            "\(result.cases.last?.message ?? "")")
        #expect(
            Snapshots.unifiedDiff(expected: "a\nold\nc", actual: "a\nnew\nc")
                == "--- expected\n+++ actual\n@@\n a\n-old\n+new\n c")
    }

    /// One model for a switcher: it holds its active section only, and that is the one
    /// selected (app:selected was nil for every section but the first).
    @Test func aSwitchersSelectedIsItsActiveSection() throws {
        let result = try run(
            """
            test("s", function()
              app:go("books/42")
              expect(app:selected("root")).to_be("junction:today")
              local tree = app:tree_table()
              expect(tree.selected).to_be(1)
              expect(tree.section).to_be(3)
              expect(#tree.children).to_be(1)
            end)
            """)
        #expect(result.cases.map(\.status) == [.passed], "\(result.cases.first?.message ?? result.loadError ?? "")")
    }

    @Test func coverageCountsWhatTheTestsReached() throws {
        let folder = try TestFolder()
        let file = folder.write(
            "cov_test.lua",
            "local app = luna.open('books.lua')\ntest('c', function() app:go('books/42') app:go('profile') app:go('orders/5') end)\n"
        )
        let runner = TestRunner(options: .init())
        _ = runner.run(file: file)
        let report = runner.coverage.report { $0.split(separator: "/").last.map(String.init) ?? $0 }
        // Reached means dispatched to: books/:id, profile and orders/:id.
        #expect(report.contains("  endpoints: 3/12 (25.0%)"), "\(report)")
        #expect(report.contains("    not covered: today/all_news  (books.lua:25)"))
        #expect(report.contains("  modals: 1/2 (50.0%)"))
        let lcov = runner.coverage.lcov { _, file in "/x/" + file }
        #expect(lcov.contains("SF:/x/books.lua\n"))
        #expect(lcov.contains("DA:25,0\n"))
        #expect(lcov.hasSuffix("end_of_record\n"))
    }

    /// A case on shop.lua (which starts at `initial = "home"`) that goes to search shows the
    /// switcher, the tab bar and its four stacks, and reached home and search: they are covered
    /// (the start was not counted, and containers only when a plan created them: 0/6).
    @Test func coverageCountsWhatACaseShowedFromTheStart() throws {
        let folder = try TestFolder()
        try FileManager.default.copyItem(
            atPath: repositoryRoot + "/examples/shop.lua", toPath: folder.path + "/shop.lua")
        let file = folder.write(
            "cov_test.lua", "local app = luna.open('shop.lua')\ntest('s', function() app:go('search') end)\n")
        let runner = TestRunner(options: .init())
        _ = runner.run(file: file)
        let report = runner.coverage.report { $0.split(separator: "/").last.map(String.init) ?? $0 }
        #expect(report.contains("  containers: 6/6 (100.0%)"), "\(report)")
        #expect(report.contains("  endpoints: 2/10 (20.0%)"), "\(report)")
        #expect(!report.contains("    not covered: home  (shop.lua:21)"))
    }

    @Test func coverageCountsGuardBranchesAndHooks() throws {
        let folder = try TestFolder()
        try FileManager.default.copyItem(
            atPath: repositoryRoot + "/examples/routerservice.lua", toPath: folder.path + "/routerservice.lua")
        let file = folder.write(
            "guards_test.lua",
            "local app = luna.open('routerservice.lua')\ntest('c', function() app:go('checkout') app:go('item/9') app:go('products/3') end)\n"
        )
        let runner = TestRunner(options: .init())
        _ = runner.run(file: file)
        let report = runner.coverage.report { _ in "routerservice.lua" }
        #expect(report.contains("  guard branches: 2/6 (33.3%)"), "\(report)")
        #expect(report.contains("    not covered: checkout enabled: allowed  (routerservice.lua:21)"))
        #expect(report.contains("    not covered: item/:id redirect: stayed  (routerservice.lua:28)"))
        #expect(report.contains("  hooks: 2/2 (100.0%)"))
    }
}

@Suite struct TestAPITypesTests {
    /// types/luna.lua describes every app action the command table gives the test API (the
    /// block is written from the table: `LUNA_UPDATE_TYPES=1 swift test --filter TestAPITypesTests`
    /// rewrites it), and the prelude's observations and globals.
    @Test func everyAppMethodIsDescribed() throws {
        let path = repositoryRoot + "/types/luna.lua"
        var types = try String(contentsOfFile: path, encoding: .utf8)
        let begin = try #require(types.range(of: TestAPITypes.begin + "\n") ?? types.range(of: "@@BLOCK@@"))
        let end = try #require(
            types.range(of: TestAPITypes.end, range: begin.lowerBound..<types.endIndex) ?? types.range(of: "@@BLOCK@@"))
        let written = String(types[begin.lowerBound..<end.upperBound])
        if ProcessInfo.processInfo.environment["LUNA_UPDATE_TYPES"] == "1", written != TestAPITypes.block {
            types.replaceSubrange(begin.lowerBound..<end.upperBound, with: TestAPITypes.block)
            try types.write(toFile: path, atomically: true, encoding: .utf8)
        } else {
            #expect(written == TestAPITypes.block, "types/luna.lua's app actions are not the command table's")
        }
        #expect(TestAPITypes.block.contains("function App:go(request, options) end"))
        #expect(TestAPITypes.block.contains("function App:flag(name, value) end"))
        let prelude = try String(contentsOfFile: repositoryRoot + "/Sources/LunaTest/Prelude.swift", encoding: .utf8)
        let methods = prelude.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "function methods.") else { return nil }
            return String(line[range.upperBound...].prefix { $0 != "(" })
        }
        #expect(methods.count >= 4)
        for method in methods { #expect(types.contains("function App:\(method)("), "\(method)") }
        for global in [
            "function luna.open(", "function test(", "function expect(", "function expect_tree(",
            "function expect_plan(",
        ] {
            #expect(types.contains(global))
        }
    }
}

@Suite struct SharedScriptIsolationTests {
    /// A script whose tree runs no Lua is loaded once per run and shared: every case still
    /// starts from the initial state, with its own flags, and a reload in one case does not
    /// reach another.
    @Test func casesOverASharedScriptStayIsolated() throws {
        let folder = try TestFolder()
        folder.write(
            "pure.lua",
            "return stack { endpoint { 'home', children = { endpoint { './:id' } } }, endpoint { 'about' } }")
        let file = folder.write(
            "pure_test.lua",
            """
            local app = luna.open('pure.lua')
            test('one', function() app:go('home/1') app:flag('beta', 'on') app:reload() expect(app.route).to_be('home/:id') end)
            test('two', function() expect(app.route).to_be(nil) app:go('about') expect(app:stack('root')).to_equal({ 'about' }) end)
            test('three', function() expect(app.route).to_be(nil) app:go('home') expect(app.plan_text[1]).to_be('create root') end)
            """)
        let result = TestRunner(options: .init()).run(file: file)
        #expect(result.cases.map(\.status) == [.passed, .passed, .passed], "\(result.cases.compactMap(\.message))")
    }
}

@Suite struct RecorderQuotingTests {
    /// What `save-test` writes into a test file reads back in Lua as the same string.
    @Test(arguments: [
        "books/42?title=Dune", "say \"hi\"", #"back\slash"#, "line\nbreak", "carriage\rreturn", "tab\there",
        "nul\u{0}9digits", "\u{1}2\u{1F}3\u{7F}", "é 日本 🙂",
    ])
    func quotedStringsReadBackInLua(text: String) throws {
        let vm = try LuaVM()
        let value = try vm.run("return " + TestSource.quoted(text), chunkName: "=quoted")
        #expect(value == [.string(text)])
    }
}

/// `continue = true`: a sign-in button that continues to where the user was going (the
/// request a guard kept), or goes to its `go` when nothing was kept — in `luna test`
/// (`app:tap`) and in the exported prototype.
@Suite struct ContinueActionTests {
    static let script = """
        return switcher { initial = "orders/7",
          endpoint { "signin", title = "Sign in",
            actions = { { "Sign in", flag = { signedIn = "yes" }, go = "home", continue = true } } },
          junction { id = "tabs", enabled = function() return flags.signedIn == "yes" end, fallback = "signin",
            stack { endpoint { "home", children = { endpoint { "orders/:id" } } } } },
        }
        """

    @Test func aContinuingActionGoesWhereTheUserWasGoingElseToItsGo() throws {
        let folder = try TestFolder()
        _ = folder.write("app.lua", Self.script)
        let file = folder.write(
            "continue_test.lua",
            """
            local app = luna.open("app.lua")
            test("continues to the kept link", function()
              expect(app.route).to_be("signin")
              app:tap("Sign in")
              expect(app.route).to_be("orders/:id")
            end)
            test("goes home when nothing was kept", function()
              app:flag("signedIn", nil)
              app:go("signin")
              app:tap("Sign in")
              expect(app.route).to_be("home")
            end)
            test("an unknown button says which there are", function()
              app:flag("signedIn", nil)
              app:go("signin")
              expect(function() app:tap("Register") end).to_fail_with("usage")
            end)
            """)
        let result = TestRunner(options: .init()).run(file: file)
        #expect(result.loadError == nil, "\(result.loadError ?? "")")
        #expect(
            result.cases.map(\.status) == [.passed, .passed, .passed],
            "\(result.cases.compactMap(\.message))")
    }

    @Test func theExportedPrototypeContinuesToo() throws {
        let host = RouteScriptHost()
        try host.load(source: Self.script, name: "app.lua")
        let prototype = try Prototype.explore(host, script: "app.lua")
        let data = try #require(try JSONSerialization.jsonObject(with: Data(prototype.json.utf8)) as? [String: Any])
        let states = try #require(data["states"] as? [[String: Any]])
        let commands = try #require(data["commands"] as? [[String: Any]])
        let moves = try #require(states[0]["moves"] as? [[Any]])
        // From the sign-in screen a link sent to, the button continues to the order.
        let tap = try #require(
            commands.firstIndex { $0["op"] as? String == "tap" && $0["label"] as? String == "Sign in" })
        let signedIn = try #require(moves.first { $0[0] as? Int == tap }?[1] as? [String: Any])
        #expect(signedIn["route"] as? String == "orders/:id")
        // The explorer and the page decide alike: with a kept request the button's `go` is
        // not taken; without one it is.
        let fresh = RouteScriptHost()
        try fresh.load(source: Self.script, name: "app.lua")
        _ = try fresh.dispatch("orders/7")
        let button = try #require(fresh.declaredActions["signin"]?.first)
        #expect(fresh.keepsARequest && button.request(keepsARequest: fresh.keepsARequest) == nil)
        _ = try fresh.dispatch("signin")
        #expect(!fresh.keepsARequest && button.request(keepsARequest: fresh.keepsARequest) == "home")
    }
}

import Foundation
import LunaTestSupport
import Testing

/// `luna test` through the built binary: the examples' tests, exit codes, JUnit accepted by
/// an XML schema (xmllint) and LCOV accepted by genhtml.
@Suite struct TestCommandTests {
    @Test func theExamplesTestsPass() throws {
        let result = try luna(["test", "examples"], environment: ["NO_COLOR": "1"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("PASS examples/books_test.lua (7 cases)"))
        // The link corpus beside the scripts is run too, with what no link opens.
        #expect(result.stdout.contains("PASS examples/shop.links (12 cases)\n  links reach 5 of 7 linkable routes"))
        // The recipes of docs/recipes.md, in a folder below: searched too.
        #expect(result.stdout.contains("PASS examples/recipes/signin-continue_test.lua (5 cases)"))
        #expect(result.stdout.contains("PASS examples/catalog.links (10 cases)\n  links reach 6 of 6 linkable routes"))
        #expect(result.stdout.contains("PASS examples/bank_test.lua (10 cases)"))
        #expect(result.stdout.contains("PASS examples/bank.verify (1 cases)"))
        #expect(result.stdout.hasSuffix("83 passed, 0 failed\n"))
    }

    @Test func exitCodesSayPassedFailedAndDidNotLoad() throws {
        let folder = ScriptFolder()
        folder.write("books.lua", try String(contentsOfFile: example("books.lua"), encoding: .utf8))
        folder.write(
            "good_test.lua", "local app = luna.open('books.lua')\ntest('ok', function() app:go('books') end)\n")
        #expect(try luna(["test", folder.path + "/good_test.lua"]).status == 0)
        folder.write(
            "bad_test.lua", "local app = luna.open('books.lua')\ntest('no', function() expect(1).to_be(2) end)\n")
        let failed = try luna(["test", folder.path + "/bad_test.lua"])
        #expect(failed.status == 1)
        #expect(failed.stdout.contains("  ✗ no  (") && failed.stdout.contains("bad_test.lua:2: expected 2, got 1"))
        #expect(failed.stdout.hasSuffix("0 passed, 1 failed\n"))
        folder.write("broken_test.lua", "test(")
        #expect(try luna(["test", folder.path]).status == 2)
        #expect(try luna(["test", folder.path + "/nothing-here"]).status == 2)
        let json = try luna(["test", folder.path + "/bad_test.lua", "--json"])
        #expect(json.stdout.hasPrefix(#"{"file":"#) && json.stdout.contains(#""status":"failed","test":"no"}"#))
    }

    /// A report that cannot be written fails the run with a message (it exited 0).
    @Test func anUnwritableReportFailsTheRun() throws {
        let folder = ScriptFolder()
        folder.write("books.lua", try String(contentsOfFile: example("books.lua"), encoding: .utf8))
        folder.write("ok_test.lua", "local app = luna.open('books.lua')\ntest('ok', function() app:go('books') end)\n")
        for option in ["--junit", "--coverage-lcov"] {
            let result = try luna(["test", folder.path + "/ok_test.lua", option, "/nonexistent-folder/report"])
            #expect(result.status == 2, "\(option)")
            #expect(
                result.stderr.contains("luna: error: cannot write '/nonexistent-folder/report'"), "\(result.stderr)")
        }
    }

    @Test func junitPassesTheSchemaAndLCOVPassesGenhtml() throws {
        let folder = ScriptFolder()
        let junit = folder.path + "/junit.xml"
        let lcov = folder.path + "/routes.info"
        folder.write("books.lua", try String(contentsOfFile: example("books.lua"), encoding: .utf8))
        folder.write(
            "mixed_test.lua",
            "local app = luna.open('books.lua')\ntest('a <passing> case', function() app:go('books/42') end)\ntest('a failing & case', function() expect('x').to_be('y') end)\n"
        )
        folder.write("broken_test.lua", "error('boom')")
        let run = try luna(["test", folder.path, "--junit", junit, "--coverage-lcov", lcov, "--coverage"])
        #expect(run.status == 2)
        #expect(run.stdout.contains("coverage of "))
        let schema = repositoryRoot + "/Tests/LunaTestTests/Fixtures/junit.xsd"
        let xmllint = try tool("/usr/bin/xmllint", ["--noout", "--schema", schema, junit])
        #expect(xmllint.status == 0, "\(xmllint.output)")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains(#"<testcase name="a &lt;passing&gt; case""#))
        #expect(xml.contains(#"<failure message="expected &quot;y&quot;, got &quot;x&quot;""#))
        #expect(xml.contains(#"type="load""#))
        let genhtml = try tool("/usr/bin/genhtml", ["--quiet", "--output-directory", folder.path + "/html", lcov])
        #expect(genhtml.status == 0, "\(genhtml.output)")
        #expect(FileManager.default.fileExists(atPath: folder.path + "/html/index.html"))
    }

    func tool(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func watchRunsAgainWhenATestFileIsSaved() throws {
        let folder = ScriptFolder()
        folder.write("books.lua", try String(contentsOfFile: example("books.lua"), encoding: .utf8))
        let test = folder.write(
            "w_test.lua", "local app = luna.open('books.lua')\ntest('a', function() app:go('books') end)\n")
        let run = try LiveProcess(["test", folder.path, "--watch"], environment: ["NO_COLOR": "1"])
        defer {
            // --watch runs until stopped; Foundation's waitUntilExit can hang here, so reap it directly.
            let pid = run.process.processIdentifier
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        #expect(run.lines { $0 == "1 passed, 0 failed" } != nil)
        try EditorSave.tempThenRename.save(
            "local app = luna.open('books.lua')\ntest('a', function() expect(1).to_be(2) end)\n", to: test)
        #expect(run.lines { $0 == "0 passed, 1 failed" } != nil)
    }
}

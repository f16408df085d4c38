import ArgumentParser
import Foundation
import LunaConsole
import LunaLive
import LunaTest
import RouteScript

struct TestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract:
            "Run navigation tests: *_test.lua files and link corpora (*.links) under the paths given (default: this folder).",
        discussion: """
            Exit status: 0 when every case passed, 1 when one failed, 2 when a test file or the script it \
            opens failed to load (or a usage error).
            """)

    @Argument(help: "Test files or folders (searched recursively for *_test.lua and *.links).") var paths: [String] = []
    @Option(help: "Only the cases whose name contains TEXT.") var filter: String?
    @Flag(help: "Rewrite the golden files under __snapshots__ instead of comparing.") var update = false
    @Flag(help: "Print route coverage: endpoints reached, containers shown, modals presented.") var coverage = false
    @Option(name: .customLong("coverage-lcov"), help: "Write route coverage as LCOV to FILE.") var lcov: String?
    @Option(help: "Write JUnit XML to FILE.") var junit: String?
    @Flag(help: "One JSON object per case.") var json = false
    @Flag(help: "Run again whenever a test file, a script or a module it opens is saved.") var watch = false
    @OptionGroup var options: ScriptOptions

    func run() throws {
        let files = TestRunner.discover(paths.isEmpty ? ["."] : paths)
        guard !files.isEmpty else {
            writeError(
                "luna: error: no *_test.lua or *.links files under \(paths.isEmpty ? "." : paths.joined(separator: ", "))"
            )
            throw ExitCode(2)
        }
        guard watch else { throw ExitCode(runOnce(files)) }
        // Watch the test files and the scripts beside them — from before the first run, so a
        // save during it is not missed — and run again on every save.
        let watcher = makeFileWatcher()
        watcher.watch(watched(files))
        _ = runOnce(files)
        let clock = ContinuousClock()
        while true {
            watcher.watch(watched(files))
            var next: FileChange?
            while next == nil {
                usleep(50_000)
                watcher.collect(now: clock.now)
                next = watcher.settled(now: clock.now)
                // A script still being written: wait for the rest before running the tests.
                if next == .modified, watcher.waitForRest(now: clock.now) { next = nil }
            }
            emit("")
            _ = runOnce(TestRunner.discover(paths.isEmpty ? ["."] : paths))
        }
    }

    private func watched(_ files: [String]) -> [String] {
        var all = Set(files)
        let enumerator = files.map { ($0 as NSString).deletingLastPathComponent }
        for folder in Set(enumerator) {
            let items = (try? FileManager.default.subpathsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
            for item in items where item.hasSuffix(".lua") && !item.contains("__snapshots__") {
                all.insert((folder.isEmpty ? "" : folder + "/") + item)
            }
        }
        return all.sorted()
    }

    private func runOnce(_ files: [String]) -> Int32 {
        var runnerOptions = TestRunner.Options()
        runnerOptions.filter = filter
        runnerOptions.update = update
        runnerOptions.scriptOptions = options.routeScriptOptions(output: { writeError($0) })
        let runner = TestRunner(options: runnerOptions)
        let style = json ? Style.plain : terminalStyle
        var results: [TestRunner.FileResult] = []
        for file in files {
            let result = runner.run(file: file)
            results.append(result)
            if json {
                Reports.json(result).forEach(emit)
                continue
            }
            if let error = result.loadError {
                emit(style.red("ERROR ") + file + ": " + ScriptPaths.relocate(error, script: file))
                continue
            }
            let failed = result.cases.filter { $0.status == .failed }
            emit((failed.isEmpty ? style.green("PASS ") : style.red("FAIL ")) + "\(file) (\(result.cases.count) cases)")
            for note in result.notes { emit("  " + note) }
            for failure in failed {
                emit("  ✗ \(failure.name)" + (failure.line.map { "  (\($0))" } ?? ""))
                let location = failure.location.map { $0 + ": " } ?? ""
                for (index, line) in (location + (failure.message ?? "")).split(
                    separator: "\n", omittingEmptySubsequences: false
                ).enumerated() {
                    emit((index == 0 ? "    " : "    ") + line)
                }
            }
        }
        let cases = results.flatMap(\.cases)
        let passed = cases.filter { $0.status == .passed }.count
        let failed = cases.count - passed
        let loadErrors = results.filter { $0.loadError != nil }.count
        if coverage, !json {
            runner.coverage.report(display: ScriptPaths.display).forEach(emit)
        }
        var unwritten: [String] = []
        if let lcov {
            let text = runner.coverage.lcov { script, file in
                let folder = (script as NSString).deletingLastPathComponent
                return ScriptPaths.display(folder.isEmpty ? file : folder + "/" + file)
            }
            if !FileManager.default.createFile(atPath: lcov, contents: Data(text.utf8)) { unwritten.append(lcov) }
        }
        if let junit, !FileManager.default.createFile(atPath: junit, contents: Data(Reports.junit(results).utf8)) {
            unwritten.append(junit)
        }
        if !json {
            emit(
                "\(passed) passed, \(failed) failed"
                    + (loadErrors > 0 ? " (\(loadErrors) test files did not load)" : ""))
        }
        // A report that could not be written fails the run: CI would otherwise read no report
        // as no failure.
        for path in unwritten { FileHandle.standardError.write(Data("luna: error: cannot write '\(path)'\n".utf8)) }
        return loadErrors > 0 || !unwritten.isEmpty ? 2 : failed > 0 ? 1 : 0
    }
}

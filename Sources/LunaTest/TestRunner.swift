import LuaHost
import LunaLive
import RouteCore
import RouteScript

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs `*_test.lua` files: every case in a Lua state of its own (the test file is run again
/// for each case, so no case sees another's state), against apps opened fresh by the case.
///
/// ```swift
/// let runner = TestRunner(options: .init())
/// let result = runner.run(file: "examples/books_test.lua")
/// print(result.cases.map(\.status))
/// ```
package final class TestRunner {
    package struct Options: Sendable {
        /// Only cases whose name contains this.
        package var filter: String?
        /// Rewrite golden files instead of comparing with them.
        package var update = false
        /// Limits of the test file's own Lua (per load and per case).
        package var limits = LuaLimits(instructions: 50_000_000, deadline: .seconds(5))
        package var memoryLimit = 64 * 1024 * 1024
        /// Limits of the scripts the tests open.
        package var scriptOptions = RouteScriptOptions()
        package init() {}
    }

    package struct CaseResult: Sendable {
        package enum Status: String, Sendable { case passed, failed }
        package var name: String
        /// `file:line` of the case's `test(...)` call.
        package var line: String?
        package var status: Status
        package var message: String?
        /// `file:line` of the failing expectation.
        package var location: String?
        package var milliseconds: Double
    }

    package struct FileResult: Sendable {
        package var file: String
        /// Set when the test file (or a script it opens at load) failed to load: exit status 2.
        package var loadError: String?
        package var cases: [CaseResult]
        /// What the file reports besides its cases (a link corpus: the routes no link opens).
        package var notes: [String] = []
    }

    package let options: Options
    package let coverage = Coverage()
    let templates = Templates()
    /// The test API's prelude, compiled by the first world of the run.
    var preludeBytecode: [UInt8]?
    private let clock = ContinuousClock()

    package init(options: Options) { self.options = options }

    /// The `*_test.lua` files, link corpora (`*.links`) and `luna verify` files (`*.verify`)
    /// under `paths` (files as given,
    /// folders recursively), sorted.
    package static func discover(_ paths: [String]) -> [String] {
        var found: [String] = []
        // Each real directory once (a link back up, `inner/up -> ..`, would repeat files or
        // never end); regular files only (a named pipe called `f_test.lua` would block).
        var visited: Set<[UInt64]> = []
        func firstVisit(_ info: stat) -> Bool {
            visited.insert([UInt64(info.st_dev), UInt64(info.st_ino)]).inserted
        }
        func walk(_ folder: String) {
            guard let directory = opendir(folder) else { return }
            defer { closedir(directory) }
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name.hasPrefix(".") || name == "__snapshots__" { continue }
                let path = folder == "." ? name : folder + "/" + name
                var info = stat()
                guard stat(path, &info) == 0 else { continue }
                if (info.st_mode & S_IFMT) == S_IFDIR {
                    if firstVisit(info) { walk(path) }
                } else if name.hasSuffix("_test.lua") || name.hasSuffix(".links") || name.hasSuffix(".verify"),
                    (info.st_mode & S_IFMT) == S_IFREG
                {
                    found.append(path)
                }
            }
        }
        for path in paths {
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                if firstVisit(info) { walk(path) }
            } else {
                found.append(path)  // as given: a file that is not regular fails with a message
            }
        }
        return found.sorted()
    }

    /// Runs one test file.
    package func run(file: String) -> FileResult {
        if file.hasSuffix(".links") { return LinkCorpus.run(file, runner: self) }
        if file.hasSuffix(".verify") { return VerifyFile.run(file, runner: self) }
        let source: String
        do { source = try readText(file) } catch {
            return FileResult(file: file, loadError: "\(error)", cases: [])
        }
        // First pass: the cases' names.
        let names: [(String, String?)]
        let bytecode: [UInt8]?
        do {
            let world = try TestWorld(file: file, runner: self)
            names = try world.load(source, collecting: true).map { ($0.name, $0.line) }
            bytecode = try world.bytecode(source)
        } catch {
            return FileResult(file: file, loadError: Self.describe(error), cases: [])
        }
        var results: [CaseResult] = []
        for (index, (name, line)) in names.enumerated() {
            if let filter = options.filter, !name.contains(filter) { continue }
            let start = clock.now
            var result = CaseResult(name: name, line: line, status: .passed, milliseconds: 0)
            do {
                // A fresh state per case, running the file's precompiled chunk.
                let world = try TestWorld(file: file, runner: self)
                if let bytecode {
                    try world.load(bytecode: bytecode, only: index + 1)
                } else {
                    _ = try world.load(source)
                }
                if let failure = try world.runCase(index + 1) {
                    result.status = .failed
                    result.message = failure.message
                    result.location = failure.location
                }
            } catch {
                result.status = .failed
                result.message = TestWorld.stopped(Self.describe(error))
            }
            result.milliseconds = LiveSession.milliseconds(clock.now - start)
            results.append(result)
        }
        return FileResult(file: file, loadError: nil, cases: results)
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? LuaError { return error.message }
        return Failure(error).message
    }

    func readText(_ path: String) throws -> String {
        guard let text = String(validUTF8: try ScriptFiles.readBytes(path)) else {
            throw TestError("'\(path)' is not UTF-8")
        }
        return text
    }
}

struct TestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

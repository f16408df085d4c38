import Foundation
import RouteScript

extension Bench {
    /// `luna test`'s cost per case, isolation included (a fresh Lua state for the test file and
    /// a fresh load of the script in every case): 100 cases on examples/books.lua and 1,000
    /// cases on a 1,000-route script, against the load of the script alone. `luna test` runs
    /// as the built binary (`LUNA_BIN`, which scripts/bench sets: the test runner is not part
    /// of Luna's public API); the median start-up of `luna --version` is taken off each run.
    mutating func measureTestCases() throws {
        guard let binary = ProcessInfo.processInfo.environment["LUNA_BIN"] else {
            notes.append("luna test bench: LUNA_BIN is not set (scripts/bench sets it)")
            return
        }
        func run(_ arguments: [String]) throws -> (status: Int32, nanoseconds: Double) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
            process.currentDirectoryURL = URL(fileURLWithPath: NSTemporaryDirectory())
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let clock = ContinuousClock()
            let start = clock.now
            try process.run()
            process.waitUntilExit()
            return (process.terminationStatus, Harness.nanoseconds(clock.now - start))
        }
        let startups = try (0..<(quick ? 3 : 9)).map { _ in try run(["--version"]).nanoseconds }.sorted()
        let startup = startups[startups.count / 2]
        let folder = NSTemporaryDirectory() + "luna-bench-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(4)
        let books = parts.joined(separator: "/") + "/examples/books.lua"
        try FileManager.default.copyItem(atPath: books, toPath: folder + "/books.lua")
        var cases = ["local app = luna.open('books.lua')"]
        for index in 0..<100 {
            cases.append(
                "test('case \(index)', function() app:go('books/\(index)') expect(app.route).to_be('books/:id') end)")
        }
        try cases.joined(separator: "\n").write(toFile: folder + "/books_test.lua", atomically: true, encoding: .utf8)
        var routes = ["return stack {"]
        routes.append("  endpoint { \"home\" },")
        for index in 0..<999 { routes.append("  endpoint { \"section\(index % 40)/r\(index)/:id\" },") }
        routes.append("}")
        try routes.joined(separator: "\n").write(toFile: folder + "/big.lua", atomically: true, encoding: .utf8)
        var big = ["local app = luna.open('big.lua')"]
        for index in 0..<1000 {
            let route = index % 999
            big.append("test('case \(index)', function() app:go('section\(route % 40)/r\(route)/7') end)")
        }
        try big.joined(separator: "\n").write(toFile: folder + "/big_test.lua", atomically: true, encoding: .utf8)
        for (key, script, file, count) in [
            ("books", "books.lua", "books_test.lua", 100), ("routes1000", "big.lua", "big_test.lua", 1000),
        ] {
            let result = try run(["test", folder + "/" + file])
            guard result.status == 0 else {
                notes.append("luna test bench \(key): luna test exited with \(result.status)")
                continue
            }
            scalars["test_case_\(key)_ms"] = max(0, result.nanoseconds - startup) / 1e6 / Double(count)
            let loads = Harness(rounds: quick ? 3 : 9)
            scalars["test_load_\(key)_ms"] =
                loads.nanoseconds(operations: 1) {
                    blackHole(try? RouteScriptHost(contentsOf: folder + "/" + script))
                } / 1e6
        }
    }
}

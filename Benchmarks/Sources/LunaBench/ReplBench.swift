import Foundation

extension Bench {
    /// The live session's cost per REPL command: 2,000 dispatches typed into `luna repl
    /// --json` on examples/books.lua (each one recorded in the history, observed, and printed
    /// from its view: the change, its plan and the tree), against the same 2,000 requests given
    /// to `luna dispatch --json` (the host alone, printed the same way). Both run the built
    /// binary (`LUNA_BIN`); the median start-up of each command with no request is taken off.
    /// `LUNA_BIN_BASE`, when set, names another build measured in the same run (before/after).
    mutating func measureRepl() throws {
        guard let builds = lunaBuilds("repl") else { return }
        let books = Self.examples + "/books.lua"
        let count = 2_000
        let requests = (0..<count).map { $0 % 3 == 2 ? "today" : "books/\($0)" }
        func run(_ binary: String, _ arguments: [String], input: String) throws -> Double {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
            let pipe = Pipe()
            process.standardInput = pipe
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let clock = ContinuousClock()
            let start = clock.now
            try process.run()
            pipe.fileHandleForWriting.write(Data(input.utf8))
            try pipe.fileHandleForWriting.close()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw BenchError("luna \(arguments[0]) failed") }
            return Harness.nanoseconds(clock.now - start)
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let rounds = quick ? 3 : 7
        let script = requests.map { "go " + $0 }.joined(separator: "\n") + "\n"
        for (suffix, build) in builds {
            var repl: [Double] = []
            var dispatch: [Double] = []
            var replStart: [Double] = []
            var dispatchStart: [Double] = []
            // Interleaved, so a slow moment of the machine falls on both.
            for _ in 0..<rounds {
                replStart.append(try run(build, ["repl", books, "--json"], input: ""))
                repl.append(try run(build, ["repl", books, "--json"], input: script))
                dispatchStart.append(try run(build, ["dispatch", books, "--json", "books"], input: ""))
                dispatch.append(try run(build, ["dispatch", books, "--json"] + requests, input: ""))
            }
            let perCommand = max(0, median(repl) - median(replStart)) / Double(count)
            let perDispatch = max(0, median(dispatch) - median(dispatchStart)) / Double(count)
            scalars["repl_command_us\(suffix)"] = perCommand / 1e3
            scalars["cli_dispatch_us\(suffix)"] = perDispatch / 1e3
            scalars["repl_command_vs_cli_dispatch\(suffix)"] = perCommand / perDispatch
        }
    }

    /// The built `luna` (`LUNA_BIN`, key suffix "") and, when `LUNA_BIN_BASE` is set, another
    /// build measured in the same run (suffix "_base"); nil, with a note, without `LUNA_BIN`.
    mutating func lunaBuilds(_ part: String) -> [(suffix: String, binary: String)]? {
        let environment = ProcessInfo.processInfo.environment
        guard let binary = environment["LUNA_BIN"] else {
            notes.append("\(part) bench: LUNA_BIN is not set (scripts/bench sets it)")
            return nil
        }
        return [("", binary)] + (environment["LUNA_BIN_BASE"].map { [("_base", $0)] } ?? [])
    }

    /// The repository's examples folder.
    static var examples: String {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(4)
        return parts.joined(separator: "/") + "/examples"
    }
}

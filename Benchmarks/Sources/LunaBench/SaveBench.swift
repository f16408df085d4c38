import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension Bench {
    /// Save → REPL notice: `luna repl SCRIPT` runs (the built binary, `LUNA_BIN`), the script is
    /// saved in place with one title changed, and the time until the REPL prints its
    /// `reloaded in …` line is taken — the watcher, the reload and the printing together.
    /// examples/books.lua and generated scripts of 1,000 and 10,000 routes; the median of 10
    /// saves after one untimed. `LUNA_BIN_BASE`, when set, is measured in the same run.
    mutating func measureSaveToRepl() throws {
        guard let builds = lunaBuilds("save") else { return }
        let books = try String(contentsOfFile: Self.examples + "/books.lua", encoding: .utf8)
        let scripts = [
            ("books", books, "Books"), ("1k", script(1000), "Generated"), ("10k", script(10_000), "Generated"),
        ]
        for (key, text, title) in scripts {
            for (suffix, build) in builds {
                let milliseconds = try Self.saveToNotice(
                    binary: build, script: text, title: title, saves: quick ? 4 : 10)
                scalars["save_to_repl_\(key)_ms\(suffix)"] = milliseconds
            }
        }
    }

    /// The median time from a save to the REPL's reload line.
    static func saveToNotice(binary: String, script: String, title: String, saves: Int) throws -> Double {
        let folder = NSTemporaryDirectory() + "luna-bench-save-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/live.lua"
        try script.write(toFile: path, atomically: false, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["repl", path]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        defer {
            try? input.fileHandleForWriting.close()
            process.terminate()
            process.waitUntilExit()
        }
        let reader = LineReader(fd: output.fileHandleForReading.fileDescriptor)
        // Loaded and watching once it answers a command.
        input.fileHandleForWriting.write(Data("state\n".utf8))
        guard reader.next(where: { $0.contains("nothing dispatched") }) != nil else {
            throw BenchError("save bench: the REPL did not start")
        }
        var times: [Double] = []
        let clock = ContinuousClock()
        for round in 0...saves {
            let edited = script.replacingOccurrences(of: "title = \"\(title)\"", with: "title = \"\(title) \(round)\"")
            let start = clock.now
            try edited.write(toFile: path, atomically: false, encoding: .utf8)
            guard reader.next(where: { $0.hasPrefix("reloaded in ") }) != nil else {
                throw BenchError("save bench: no reload after a save")
            }
            if round > 0 { times.append(Harness.nanoseconds(clock.now - start) / 1e6) }
            usleep(50_000)  // the next save is a new one, not part of this one
        }
        return times.sorted()[times.count / 2]
    }
}

/// Lines from a descriptor, waited for with a bound (10 s).
final class LineReader {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(fd: Int32) { self.fd = fd }

    func next(where matches: (String) -> Bool) -> String? {
        let limit = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < limit {
            while let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                if matches(line) { return line }
            }
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 1, 100) >= 0 else { return nil }
            if fds[0].revents != 0 {
                var chunk = [UInt8](repeating: 0, count: 65536)
                let count = read(fd, &chunk, chunk.count)
                guard count > 0 else { return nil }
                buffer += chunk[..<count]
            }
        }
        return nil
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension Bench {
    /// `luna verify` (the built binary, `LUNA_BIN`): examples/shop.lua and examples/bank.lua
    /// walked whole, and a generated 1,000-route script to its 5,000-state bound — the walk's
    /// seconds and states as the command reports them (`--json`), states per second, and the
    /// process's peak memory over the states (`wait4`'s maximum resident set). The median of 3
    /// runs (1 with --quick). The anchor is shop.lua: memory per state is bank's and the
    /// generated script's peak over shop's, per state beyond shop's.
    mutating func measureVerify() throws {
        guard let builds = lunaBuilds("verify") else { return }
        let folder = NSTemporaryDirectory() + "luna-bench-verify-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let generated = folder + "/generated1k.lua"
        // The reload bench's script, started on its first route without parameters.
        var text = script(1000)
        if let initial = workload.routes(1000).first(where: { !$0.contains(":") && !$0.contains("...") }) {
            text = text.replacingOccurrences(
                of: "return junction { title = \"Generated\",",
                with: "return junction { title = \"Generated\", initial = \"\(initial)\",")
        }
        try text.write(toFile: generated, atomically: true, encoding: .utf8)
        let scripts = [
            ("shop", Self.examples + "/shop.lua"), ("bank", Self.examples + "/bank.lua"), ("1k", generated),
        ]
        for (suffix, binary) in builds {
            var peaks: [String: Double] = [:]
            var states: [String: Double] = [:]
            for (key, path) in scripts {
                var runs: [(seconds: Double, states: Double, peak: Double)] = []
                for _ in 0..<(quick ? 1 : 3) { runs.append(try Self.verifyRun(binary: binary, script: path)) }
                runs.sort { $0.seconds < $1.seconds }
                let median = runs[runs.count / 2]
                scalars["verify_\(key)_s\(suffix)"] = median.seconds
                scalars["verify_\(key)_states\(suffix)"] = median.states
                scalars["verify_\(key)_states_per_s\(suffix)"] = median.states / max(median.seconds, 1e-9)
                scalars["verify_\(key)_peak_mb\(suffix)"] = median.peak / 1_048_576
                peaks[key] = median.peak
                states[key] = median.states
            }
            for key in ["bank", "1k"] {
                guard let peak = peaks[key], let anchor = peaks["shop"], let count = states[key],
                    let anchorCount = states["shop"], count > anchorCount
                else { continue }
                scalars["verify_\(key)_bytes_per_state\(suffix)"] = (peak - anchor) / (count - anchorCount)
            }
        }
    }

    /// One `luna verify --json` run: the walk's seconds and states, and the peak resident bytes.
    static func verifyRun(binary: String, script: String) throws -> (seconds: Double, states: Double, peak: Double) {
        let output = Pipe()
        var pid: pid_t = 0
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, output.fileHandleForWriting.fileDescriptor, 1)
        let arguments = [binary, "verify", script, "--json"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        guard posix_spawn(&pid, binary, &actions, nil, &argv, environ) == 0 else {
            throw BenchError("verify bench: could not start \(binary)")
        }
        try output.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        var status: Int32 = 0
        var usage = rusage()
        guard wait4(pid, &status, 0, &usage) == pid else { throw BenchError("verify bench: wait4 failed") }
        guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let seconds = (json["seconds"] as? NSNumber)?.doubleValue,
            let states = (json["states"] as? NSNumber)?.doubleValue
        else {
            throw BenchError("verify bench: no report from \(script)")
        }
        // Linux reports the maximum resident set in kilobytes.
        return (seconds, states, Double(usage.ru_maxrss) * 1024)
    }
}

import Foundation

extension Bench {
    /// Prints the Markdown table of medians and ratios and writes the JSON results.
    func report(jsonPath: String?) throws {
        var lines: [String] = []
        lines.append("Matcher, end to end (ns per request, medians; ratio = Luna ÷ anchor):")
        lines.append("")
        lines.append(
            "| N | set | Luna | Hummingbird | ratio | RoutingKit | ratio | RK route() | Lua trie | ratio | regex scan | floor |"
        )
        lines.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for n in sizes {
            for set in sets {
                guard let row = matcher[String(n)]?[set] else { continue }
                let luna = row["luna_ns"] ?? 0
                let kit = row["routingkit_ns"] ?? 0
                let trie = row["lua_trie_ns"] ?? 0
                let bird = row["hummingbird_ns"] ?? 0
                lines.append(
                    "| \(n) | \(set) | \(f(luna)) | \(f(bird)) | \(r(luna / bird)) | \(f(kit)) | \(r(luna / kit)) | \(f(row["routingkit_route_ns"] ?? 0)) | \(f(trie)) | \(r(luna / trie)) | \(row["regex_scan_ns"].map { f($0) } ?? "–") | \(f(row["floor_ns"] ?? 0)) |"
                )
            }
        }
        lines.append("")
        lines.append("Build time and memory per N:")
        lines.append("")
        lines.append(
            "| N | Luna build ms | RoutingKit build ms | ratio | Hummingbird build ms | Luna bytes | RoutingKit bytes | ratio | Hummingbird bytes | ratio |"
        )
        lines.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for n in sizes {
            guard let b = building[String(n)] else { continue }
            let lunaBytes = b["luna_bytes"] ?? 0
            lines.append(
                "| \(n) | \(f(b["luna_build_ms"] ?? 0, 2)) | \(f(b["routingkit_build_ms"] ?? 0, 2)) | \(r((b["luna_build_ms"] ?? 0) / (b["routingkit_build_ms"] ?? 1))) | \(f(b["hummingbird_build_ms"] ?? 0, 2)) | \(Int(lunaBytes)) | \(Int(b["routingkit_bytes"] ?? 0)) | \(r(lunaBytes / max(1, b["routingkit_bytes"] ?? 1))) | \(Int(b["hummingbird_bytes"] ?? 0)) | \(r(lunaBytes / max(1, b["hummingbird_bytes"] ?? 1))) |"
            )
        }
        lines.append("")
        let s = scalars
        let kit1k = matcher["1000"]?["match"]?["routingkit_ns"] ?? 1
        lines.append("| measure | value | anchor | ratio |")
        lines.append("|---|---:|---:|---:|")
        /// One row: the figure, its anchor (text with its value) and their ratio, if any.
        func row(_ measure: String, _ value: String, _ anchor: String = "", _ ratio: Double? = nil) {
            lines.append("| \(measure) | \(value) | \(anchor) | \(ratio.map(r) ?? "") |")
        }
        let dispatch = s["dispatch_ns"] ?? 0
        let dispatchLua = s["dispatch_lua_ns"] ?? 0
        row("dispatch, no callback (ns)", f(dispatch), "RoutingKit match at 1k: \(f(kit1k))", dispatch / kit1k)
        row(
            "dispatch, one Lua callback (ns)", f(dispatchLua), "no callback: \(f(dispatch))",
            dispatchLua / (s["dispatch_ns"] ?? 1))
        let callSwift = s["lua_call_swift_ns"] ?? 0
        row(
            "Lua callback with ctx from Swift (ns)", f(callSwift),
            "from C, values as literals: \(f(s["lua_call_c_ns"] ?? 0))",
            s["lua_call_ratio"] ?? callSwift / (s["lua_call_c_ns"] ?? 1))
        row(
            "Lua callback with ctx from Swift (ns)", f(callSwift),
            "from C, values as run-time strings: \(f(s["lua_call_c_runtime_ns"] ?? 0))",
            s["lua_call_runtime_ratio"] ?? 0)
        for k in ["1k", "10k"] {
            let load = s["lua_load_\(k)_ms"] ?? 0
            let anchor = "plain Lua load of the script: \(f(load, 2))"
            // The ratio is the median of the alternated rounds' ratios (not a ratio of medians).
            let reload = s["reload_\(k)_ms"] ?? 0
            row(
                "reload \(k) routes, unchanged routes (ms)", f(reload, 2), anchor,
                s["reload_vs_lua_load_\(k)"] ?? reload / load)
            if let whole = s["reload_\(k)_with_free_ms"] {
                row(
                    "reload \(k) routes, unchanged, old state's freeing waited for (ms)", f(whole, 2), anchor,
                    s["reload_with_free_vs_lua_load_\(k)"] ?? whole / load)
            }
            if let one = s["reload_one_route_\(k)_ms"] {
                row(
                    "reload \(k) routes, one route edited (ms)", f(one, 2), anchor,
                    s["reload_one_route_vs_lua_load_\(k)"] ?? one / load)
            }
            if let json = s["tree_from_json_\(k)_ms"] {
                row(
                    "RouteTree(json:) of the \(k)-route script's export (ms)", f(json, 2), anchor,
                    s["tree_from_json_vs_lua_load_\(k)"] ?? json / load)
            }
        }
        for (label, key) in [("100 cases on books.lua", "books"), ("1,000 cases on 1,000 routes", "routes1000")] {
            let perCase = s["test_case_\(key)_ms"] ?? 0
            let load = s["test_load_\(key)_ms"] ?? 0
            row(
                "luna test, \(label): per case (ms)", f(perCase, 3), "the script's load alone: \(f(load, 3))",
                perCase / max(load, 1e-9))
        }
        let command = s["repl_command_us"] ?? 0
        let cli = s["cli_dispatch_us"] ?? 0
        row(
            "luna repl, a dispatch typed: per command (µs)", f(command, 1), "luna dispatch, per request: \(f(cli, 1))",
            command / max(cli, 1e-9))
        if let base = s["repl_command_us_base"] {
            row(
                "luna repl per command, LUNA_BIN_BASE's build (µs)", f(base, 1), "this build: \(f(command, 1))",
                command / max(base, 1e-9))
        }
        for key in ["books", "1k", "10k"] {
            guard let save = s["save_to_repl_\(key)_ms"] else { continue }
            let base = s["save_to_repl_\(key)_ms_base"]
            row(
                "save → REPL notice, \(key) (ms)", f(save, 1), base.map { "LUNA_BIN_BASE's build: \(f($0, 1))" } ?? "",
                base.map { save / max($0, 1e-9) })
        }
        for key in ["books", "1k"] {
            guard let link = s["save_to_device_\(key)_ms"] else { continue }
            let repl = s["save_to_repl_\(key)_ms"]
            row(
                "save → linked app's presenter, \(key) (ms)", f(link, 1),
                repl.map { "save → REPL notice: \(f($0, 1))" } ?? "", repl.map { link / max($0, 1e-9) })
        }
        for key in ["shop", "bank", "1k"] {
            guard let seconds = s["verify_\(key)_s"], let states = s["verify_\(key)_states"] else { continue }
            let anchor = key == "shop" ? nil : s["verify_shop_states_per_s"]
            let perState = s["verify_\(key)_bytes_per_state"].map { ", \(f($0)) bytes per state over shop's" } ?? ""
            row(
                "luna verify, \(key): \(Int(states)) states (s)", f(seconds, 2),
                "\(f(s["verify_\(key)_states_per_s"] ?? 0)) states/s, peak \(f(s["verify_\(key)_peak_mb"] ?? 0, 1)) MB\(perState)",
                anchor.map { (s["verify_\(key)_states_per_s"] ?? 0) / max($0, 1e-9) })
        }
        row(
            "a loaded host at 10k routes: bytes per route", f(s["host_bytes_per_route_10k"] ?? 0),
            "its Lua state's share: \(f(s["host_lua_bytes_per_route_10k"] ?? 0))")
        row(
            "128-segment adversarial request (ns)", f(s["adversarial_128_ns"] ?? 0),
            "trie nodes: \(Int(s["adversarial_trie_nodes"] ?? 0))")
        lines += regexReport()
        lines += limitsReport()
        print(lines.joined(separator: "\n"))
        guard let jsonPath else { return }

        // JSON: matcher[N][set] and the top-level figures.
        var json: [String: Any] = [:]
        var matcherJSON: [String: Any] = [:]
        for (n, rows) in matcher { matcherJSON[n] = rows }
        json["matcher"] = matcherJSON
        json["build"] = building
        for (key, value) in scalars { json[key] = value }
        json["quick"] = quick
        json["machine"] = machineDescription()
        let data = try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys])
        try FileManager.default.createDirectory(
            atPath: (jsonPath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: jsonPath))
    }

    func f(_ value: Double, _ digits: Int = 0) -> String {
        if digits == 0 { return value >= 100 ? String(Int(value.rounded())) : String(format: "%.1f", value) }
        return String(format: "%.\(digits)f", value)
    }

    func r(_ value: Double) -> String { value.isFinite ? String(format: "%.2f×", value) : "–" }

    func machineDescription() -> String {
        let cpu =
            (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
        return "\(cpu), \(ProcessInfo.processInfo.activeProcessorCount) cores"
    }
}

import Foundation
import LuaCallBench
import LuaHost
import RouteCore
import RouteScript
import RoutingKit

/// Measures Luna against its anchors in one run and writes results/latest.json.
///   LunaBench [--quick] [--json PATH] [--only PARTS]   (with --only: JSON only to a --json PATH)
///   LunaBench lookups luna|luna-constant|luna-miss|routingkit COUNT [ROUTES]   (for scripts/bench-instructions)
///   LunaBench record PATH KEY=VALUE …          (adds figures to a results file, keeping its others)
@main
struct LunaBench {
    /// Merges `KEY=VALUE` figures (numbers) into the JSON object at `path`.
    static func record(_ pairs: [String], into path: String) throws {
        var object: [String: Any] = [:]
        if let data = FileManager.default.contents(atPath: path),
            let existing = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        {
            object = existing
        }
        for pair in pairs {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let value = Double(parts[1]) else {
                throw BenchError("record: '\(pair)' is not KEY=NUMBER")
            }
            object[parts[0]] = value
        }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: URL(fileURLWithPath: path))
    }

    static func main() throws {
        let arguments = CommandLine.arguments
        if arguments.count >= 3, arguments[1] == "record" {
            try record(Array(arguments.dropFirst(3)), into: arguments[2])
            return
        }
        if arguments.count >= 2, arguments[1] == "link-latency" { Bench.linkLatency(Array(arguments.dropFirst(2))) }
        if arguments.count >= 4, ["reloads", "reloads-edit"].contains(arguments[1]) {
            // For profiling: COUNT reloads of a generated N-route script (reloads-edit: the
            // last pattern renamed back and forth between reloads, as the one-route bench).
            let bench = Bench(quick: true)
            let path = NSTemporaryDirectory() + "luna-profile-\(getpid()).lua"
            let source = bench.script(Int(arguments[2]) ?? 1000)
            try source.write(toFile: path, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: path) }
            var options = RouteScriptOptions()
            options.loadLimits = LuaLimits(instructions: 0, deadline: nil)
            let host = try RouteScriptHost(contentsOf: path, options: options)
            let versions = [Bench.editingLastRoute(source), source]
            for round in 0..<(Int(arguments[3]) ?? 1) {
                if arguments[1] != "reloads" {
                    try versions[round % 2].write(toFile: path, atomically: false, encoding: .utf8)
                }
                _ = try host.reload()
            }
            return
        }
        if arguments.count >= 4, arguments[1] == "reloads-file" {
            // For profiling: COUNT reloads of the script at PATH, as saved unchanged.
            var options = RouteScriptOptions()
            options.loadLimits = LuaLimits(instructions: 0, deadline: nil)
            let host = try RouteScriptHost(contentsOf: arguments[2], options: options)
            for _ in 0..<(Int(arguments[3]) ?? 1) { _ = try host.reload() }
            return
        }
        if arguments.count >= 4, arguments[1] == "trees-from-json" {
            // For profiling: COUNT trees read from the JSON export of a generated N-route
            // script (`RouteTree(json:)`, an app's start-up from `luna export json`).
            var options = RouteScriptOptions()
            options.loadLimits = LuaLimits(instructions: 0, deadline: nil)  // slow under valgrind
            let host = RouteScriptHost(options: options)
            try host.load(source: Bench(quick: true).script(Int(arguments[2]) ?? 1000), name: "bench.lua")
            let json = try host.exportJSON()
            for _ in 0..<(Int(arguments[3]) ?? 1) { blackHole(try RouteTree(json: json)) }
            return
        }
        if arguments.count >= 4, arguments[1] == "lua-loads" {
            // For profiling: COUNT plain Lua loads of a generated N-route script (the reload
            // benchmark's anchor), each in a new state with builders that return their table.
            let source = Bench(quick: true).script(Int(arguments[2]) ?? 1000)
            for _ in 0..<(Int(arguments[3]) ?? 1) { try Bench.plainLuaLoad(source) }
            return
        }
        if arguments.count >= 4, arguments[1] == "dispatches" {
            // For profiling: COUNT dispatches that change a parameter, with (lua) or without a
            // callback, or (push) that push and pop a screen (the general planner's path).
            let host = try Bench.dispatchHost(Workload.locate(), luaCallback: arguments[2] == "lua")
            let other = arguments[2] == "push" ? "bench/1/more" : "bench/2"
            for index in 0..<(Int(arguments[3]) ?? 1000) {
                _ = try host.dispatch(index & 1 == 0 ? "bench/1" : other)
            }
            return
        }
        if arguments.count >= 3, arguments[1] == "memory" {
            // Where the matcher's bytes go at N: definitions, compiled trie, the rest.
            let patterns = Workload.locate().routes(Int(arguments[2]) ?? 1000)
            var heap = heapInUse()
            let definitions = patterns.map { try! RouteDefinition(pattern: Pattern($0)) }
            let definitionBytes = heapInUse() - heap
            heap = heapInUse()
            let matcher = Matcher(routes: definitions)
            let matcherBytes = heapInUse() - heap
            print(
                "definitions \(definitionBytes) matcher \(matcherBytes) compiled \(matcher.compiledBytes) nodes \(matcher.nodeCount)"
            )
            blackHole((definitions, matcher))
            return
        }
        if arguments.count >= 3, arguments[1] == "luacalls-c" {
            blackHole(
                lua_call_bench_from_c(
                    Bench.callback, Int32(arguments[2]) ?? 1000,
                    arguments.count > 3 && arguments[3] == "runtime" ? 1 : 0))
            return
        }
        if arguments.count >= 3, arguments[1] == "luacalls" {
            // For profiling: COUNT presenter-style calls with ctx from Swift.
            let call = try Bench.swiftCall()
            for _ in 0..<(Int(arguments[2]) ?? 1000) { call() }
            return
        }
        if arguments.count >= 4, arguments[1] == "lookups" {
            try lookups(
                which: arguments[2], count: Int(arguments[3]) ?? 1000,
                routes: arguments.count > 4 ? Int(arguments[4]) ?? 1000 : 1000)
            return
        }
        let quick = arguments.contains("--quick")
        let only = arguments.firstIndex(of: "--only").map {
            Set(arguments[$0 + 1].split(separator: ",").map(String.init))
        }
        // A run of some parts writes JSON only where told: by default it would replace the
        // whole run's results/latest.json with its few figures.
        let jsonPath =
            arguments.firstIndex(of: "--json").map { arguments[$0 + 1] } ?? (only == nil ? "results/latest.json" : nil)
        var bench = Bench(quick: quick)
        if only == nil && !arguments.contains("--one-process") {
            // Each part in a process of its own: what one part leaves behind (a 100k-route
            // heap, Lua states, the allocator's free lists) moved the figures of the parts
            // after it (the Lua call ratio by up to 1.4×).
            try bench.runIsolated(executable: arguments[0])
        } else {
            try bench.run(only: only)
        }
        try bench.report(jsonPath: jsonPath)
    }

    /// Runs `count` lookups at N = `routes` (1k unless given; for instruction, malloc and
    /// cache-miss counts under valgrind).
    static func lookups(which: String, count: Int, routes: Int) throws {
        let workload = Workload.locate()
        let patterns = workload.routes(routes)
        let requests = workload.requests("match", routes)
        var total = 0
        // The loop's own time per lookup on stderr (setup excluded), for alternated wall-clock
        // comparisons of two builds.
        func timed(_ body: () -> Void) {
            let started = ContinuousClock.now
            body()
            let perLookup = Harness.nanoseconds(.now - started) / Double(max(1, count))
            FileHandle.standardError.write(Data("lookup_ns \(perLookup)\n".utf8))
        }
        if which == "luna" {
            let luna = LunaMatcher(patterns)
            timed { for index in 0..<count { total &+= luna.route(requests[index % requests.count]) } }
        } else if which == "luna-constant" {
            let luna = LunaMatcher(patterns)
            let constant = requests.filter { request in
                guard let match = try? luna.matcher.match(request) else { return false }
                return luna.matcher.parameterNames[match.route].isEmpty
            }
            timed { for index in 0..<count { total &+= luna.route(constant[index % constant.count]) } }
        } else if which == "luna-miss" {
            let luna = LunaMatcher(patterns)
            let misses = workload.requests("missdeep", routes)
            timed { for index in 0..<count { total &+= luna.route(misses[index % misses.count]) } }
        } else {
            let kit = RoutingKitMatcher(patterns)
            timed { for index in 0..<count { total &+= kit.route(requests[index % requests.count]) } }
        }
        print(total)
    }
}

struct Bench {
    let quick: Bool
    let harness: Harness
    let workload = Workload.locate()
    let sizes = [10, 100, 1000, 10000, 100_000]
    let sets = ["match", "missearly", "missdeep"]
    var matcher: [String: [String: [String: Double]]] = [:]
    var building: [String: [String: Double]] = [:]
    var scalars: [String: Double] = [:]
    var notes: [String] = []

    init(quick: Bool) {
        self.quick = quick
        harness = Harness(rounds: quick ? 3 : 9)
    }

    /// Runs every part, or only those named (`--only 1000,dispatch,calls,adversarial,reload1000`:
    /// for iterating on one figure; the report is partial then).
    /// Every part of the full run, in order.
    var parts: [String] {
        sizes.map(String.init) + [
            "adversarial", "regex", "limits", "calls", "dispatch", "reload1000", "reload10000", "testcases", "repl",
            "save", "link", "verify",
            "hostmemory",
        ]
    }

    /// Runs each part in a new process of this executable and merges what each wrote.
    mutating func runIsolated(executable: String) throws {
        let folder = NSTemporaryDirectory() + "luna-bench-parts-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for part in parts {
            let output = folder + "/\(part).json"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["--only", part, "--json", output] + (quick ? ["--quick"] : [])
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw BenchError("part '\(part)' failed (status \(process.terminationStatus))")
            }
            try merge(Data(contentsOf: URL(fileURLWithPath: output)))
        }
    }

    /// Adds one part's JSON results to this run's.
    mutating func merge(_ data: Data) throws {
        guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw BenchError("a part's results are not a JSON object")
        }
        for (key, value) in json {
            switch key {
            case "matcher":
                for (n, rows) in value as? [String: [String: [String: Double]]] ?? [:] { matcher[n] = rows }
            case "build":
                for (n, row) in value as? [String: [String: Double]] ?? [:] { building[n] = row }
            case "quick", "machine": break
            default:
                if let number = value as? Double { scalars[key] = number }
            }
        }
    }

    mutating func run(only: Set<String>? = nil) throws {
        func wanted(_ part: String) -> Bool { only?.contains(part) ?? true }
        for n in sizes where wanted(String(n)) { try measureMatchers(n) }
        if wanted("adversarial") { try measureAdversarial() }
        if wanted("regex") { try measureRegex() }
        if wanted("limits") { try measureLimits() }
        if wanted("calls") { try measureCalls() }
        if wanted("dispatch") { try measureDispatch() }
        if wanted("reload1000") { try measureReload(1000) }
        if wanted("verify") { try measureVerify() }
        if wanted("reload10000") { try measureReload(10000) }
        if wanted("testcases") { try measureTestCases() }
        if wanted("repl") { try measureRepl() }
        if wanted("save") { try measureSaveToRepl() }
        if wanted("link") { try measureSaveToDevice() }
        if wanted("hostmemory") { try measureHostMemory(10000) }
    }

    // MARK: Matchers

    mutating func measureMatchers(_ n: Int) throws {
        let patterns = workload.routes(n)
        var buildings: [String: Double] = [:]
        // Build time: medians of several builds, after one untimed build of each (so
        // neither pays the process's first-use costs: page faults, runtime metadata).
        blackHole(LunaMatcher(patterns))
        blackHole(RoutingKitMatcher(patterns))
        blackHole(HummingbirdMatcher(patterns))
        let builds = Harness(rounds: n >= 100_000 ? 3 : (quick ? 3 : 5))
        buildings["luna_build_ms"] = builds.nanoseconds(operations: 1) { blackHole(LunaMatcher(patterns)) } / 1e6
        buildings["routingkit_build_ms"] =
            builds.nanoseconds(operations: 1) { blackHole(RoutingKitMatcher(patterns)) } / 1e6
        buildings["hummingbird_build_ms"] =
            builds.nanoseconds(operations: 1) { blackHole(HummingbirdMatcher(patterns)) } / 1e6
        // Memory: the heap each matcher holds once built (what building grew it by),
        // averaged over several live copies at small N, where one build is a few KB and the
        // allocator's reuse of freed blocks would otherwise dominate.
        let copies = max(1, min(64, 10_000 / n))
        var heap = heapInUse()
        var lunas = (0..<copies).map { _ in LunaMatcher(patterns) }
        buildings["luna_bytes"] = Double(heapInUse() - heap) / Double(copies)
        let luna = lunas[0]
        lunas.removeAll()
        heap = heapInUse()
        var kits = (0..<copies).map { _ in RoutingKitMatcher(patterns) }
        buildings["routingkit_bytes"] = Double(heapInUse() - heap) / Double(copies)
        let kit = kits[0]
        kits.removeAll()
        heap = heapInUse()
        var birds = (0..<copies).map { _ in HummingbirdMatcher(patterns) }
        buildings["hummingbird_bytes"] = Double(heapInUse() - heap) / Double(copies)
        let bird = birds[0]
        birds.removeAll()
        building[String(n)] = buildings
        let regex = n <= 1000 ? RegexScanMatcher(patterns) : nil
        for set in sets {
            let requests = workload.requests(set, n)
            let count = requests.count
            var row: [String: Double] = [:]
            row["luna_ns"] = harness.nanoseconds(operations: count) {
                var total = 0
                for request in requests { total &+= luna.route(request) }
                blackHole(total)
            }
            row["routingkit_ns"] = harness.nanoseconds(operations: count) {
                var total = 0
                for request in requests { total &+= kit.route(request) }
                blackHole(total)
            }
            // Hummingbird backtracks through every parameter edge on a deep miss (about a
            // millisecond a request at 10k routes): at N ≥ 10k it runs on a sample.
            let birdRequests = n >= 10_000 ? Array(requests.prefix(quick ? 64 : 256)) : requests
            row["hummingbird_ns"] = Harness(rounds: n >= 10_000 ? 3 : (quick ? 3 : 9)).nanoseconds(
                operations: birdRequests.count
            ) {
                var total = 0
                for request in birdRequests { total &+= bird.route(request) }
                blackHole(total)
            }
            // The anchors do the same work: how often each finds a route where Luna does
            // (and none where Luna finds none). Rankings differ at the margins.
            var agree = 0
            for request in birdRequests where (luna.winner(request) >= 0) == (bird.winner(request) >= 0) {
                agree += 1
            }
            row["hummingbird_agree"] = Double(agree) / Double(max(1, birdRequests.count))
            // RoutingKit's route() alone, on paths split beforehand.
            let split = requests.map { request -> [String] in
                pathPart(request).split(separator: "/").map(String.init)
            }
            row["routingkit_route_ns"] = harness.nanoseconds(operations: count) {
                var total = 0
                for path in split {
                    var parameters = RoutingKit.Parameters()
                    total &+= kit.router.route(path: path, parameters: &parameters) ?? -1
                }
                blackHole(total)
            }
            let trie = try LuaTrieMatcher(patterns, requests: requests)
            row["lua_trie_ns"] = harness.nanoseconds(operations: count) { blackHole(trie.routeAllRequests()) }
            row["floor_ns"] = harness.nanoseconds(operations: count) {
                var total: UInt64 = 0
                for request in requests { total &+= floorPass(request) }
                blackHole(total)
            }
            if let regex {
                let sample = Array(requests.prefix(quick ? 128 : 512))
                row["regex_scan_ns"] = Harness(rounds: 3).nanoseconds(operations: sample.count) {
                    var total = 0
                    for request in sample { total &+= regex.route(request) }
                    blackHole(total)
                }
            }
            matcher[String(n), default: [:]][set] = row
        }
        FileHandle.standardError.write(Data("bench: matchers at N=\(n) done\n".utf8))
    }

    /// A 128-segment request against a table built to make a naive backtracker explode:
    /// at every depth a constant and a parameter edge both match, and nothing ends.
    mutating func measureAdversarial() throws {
        var patterns: [String] = []
        for depth in 1...64 {
            patterns.append(Array(repeating: "a", count: depth).joined(separator: "/") + "/end")
            patterns.append(
                Array(repeating: ":p", count: depth).enumerated().map { ":p\($0.offset)" }.joined(separator: "/")
                    + "/stop")
        }
        let luna = LunaMatcher(patterns)
        let request = Array(repeating: "a", count: 128).joined(separator: "/")
        scalars["adversarial_128_ns"] = harness.nanoseconds(operations: 100) {
            var total = 0
            for _ in 0..<100 { total &+= luna.route(request) }
            blackHole(total)
        }
        scalars["adversarial_trie_nodes"] = Double(luna.matcher.nodeCount)
    }

    // MARK: Calls and dispatch

    /// The C and Swift calls in alternating rounds (this machine's speed drifts: measuring
    /// one after the other would put the drift into the ratio); each figure is the median of
    /// its rounds and each ratio the median of the rounds' ratios. C runs twice: pushing the
    /// ctx's values as literals (Lua finds a literal by its address, without hashing) and as
    /// strings held at run time (interned by content, as Swift's strings are).
    mutating func measureCalls() throws {
        let callback = Self.callback
        let iterations = quick ? 20_000 : 100_000
        let call = try Self.swiftCall()
        for _ in 0..<1000 { call() }  // warm-up
        var literal: [Double] = []
        var runtime: [Double] = []
        var swift: [Double] = []
        var ratios: [Double] = []
        var runtimeRatios: [Double] = []
        for _ in 0..<(quick ? 5 : 11) {
            let c = Double(lua_call_bench_from_c(callback, Int32(iterations), 0)) / Double(iterations)
            let s = Harness.elapsed { for _ in 0..<iterations { call() } } / Double(iterations)
            let r = Double(lua_call_bench_from_c(callback, Int32(iterations), 1)) / Double(iterations)
            literal.append(c)
            runtime.append(r)
            swift.append(s)
            ratios.append(s / c)
            runtimeRatios.append(s / r)
        }
        scalars["lua_call_c_ns"] = Harness.median(literal)
        scalars["lua_call_c_runtime_ns"] = Harness.median(runtime)
        scalars["lua_call_swift_ns"] = Harness.median(swift)
        scalars["lua_call_ratio"] = Harness.median(ratios)
        scalars["lua_call_runtime_ratio"] = Harness.median(runtimeRatios)
    }

    static let callback = "return function(ctx) local id = ctx.params.id end"

    /// The same call through LuaHost: ctx built with the public API, protected call,
    /// instruction hook and capped allocator on.
    static func swiftCall() throws -> () -> Void {
        let vm = try LuaVM()
        let function = try vm.run(callback, chunkName: "=bench")[0]
        let flags = vm.newTable()
        let device = vm.newTable()
        try vm.rawSet(device, key: "idiom", value: "phone")
        let params = ["id": "42"]
        let query: [String: String] = [:]
        let slot = vm.newTable(fieldCapacity: 9)
        return {
            // As ScriptCallbacks passes a hook its ctx: built in place as the call's argument,
            // from a dictionary of params, and kept in one registry entry for reuse.
            _ = try? vm.call(function, nil, buildingTable: 9, keepingIn: slot) { ctx in
                ctx.set("path", "bench/42")
                ctx.set("params", strings: params)
                ctx.set("query", strings: query)
                ctx.set("route", "bench/:id")
                ctx.set("name", "bench")
                ctx.set("id", "bench/:id")
                ctx.set("flags", flags)
                ctx.set("device", device)
            }
        }
    }

    /// A dispatch that changes only a parameter: match, resolve, reduce, plan and apply one
    /// `update`, without and with a Lua `update` hook receiving ctx. 1k other routes.
    mutating func measureDispatch() throws {
        for (key, luaCallback) in [("dispatch_ns", false), ("dispatch_lua_ns", true)] {
            let host = try Self.dispatchHost(workload, luaCallback: luaCallback)
            let iterations = quick ? 5_000 : 20_000
            scalars[key] = harness.nanoseconds(operations: iterations) {
                for index in 0..<iterations { _ = try? host.dispatch(index & 1 == 0 ? "bench/1" : "bench/2") }
            }
        }
    }

    /// A host on a stack of `bench/:id` (with or without a Lua `update` hook receiving ctx,
    /// with a child `bench/:id/more` to push) and the 1k workload routes, after a first
    /// dispatch to `bench/0`.
    static func dispatchHost(_ workload: Workload, luaCallback: Bool) throws -> RouteScriptHost {
        let others = workload.routes(1000).map { "  endpoint { \"\($0)\" }," }.joined(separator: "\n")
        let hook = luaCallback ? ", presenter = { update = function(view, ctx) local id = ctx.params.id end }" : ""
        let child = ", children = { endpoint { \"bench/:id/more\" } }"
        let host = RouteScriptHost()
        try host.load(
            source: "return stack {\n  endpoint { \"bench/:id\"\(hook)\(child) },\n\(others)\n}\n", name: "bench.lua")
        _ = try host.dispatch("bench/0")
        return host
    }

    // MARK: Memory of a whole host

    /// Bytes per route of a loaded host at N routes: the heap it holds once loaded and one
    /// request dispatched — its Lua state (which allocates through malloc), the compiled
    /// tree and matcher, the presentables — over the heap before, divided by N. The Lua
    /// state's own share is reported too. Median of three hosts.
    mutating func measureHostMemory(_ n: Int) throws {
        let folder = NSTemporaryDirectory() + "luna-bench-memory-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/generated.lua"
        try script(n).write(toFile: path, atomically: true, encoding: .utf8)
        var options = RouteScriptOptions()
        options.loadLimits = LuaLimits(instructions: 0, deadline: .seconds(30))
        options.memoryLimit = 0
        let first = workload.routes(n).first { !$0.contains(":") && !$0.contains("...") }
        var totals: [Double] = []
        var luas: [Double] = []
        for _ in 0..<3 {
            let before = heapInUse()
            let host = try RouteScriptHost(contentsOf: path, options: options)
            if let first { _ = try host.dispatch(first) }
            totals.append(Double(heapInUse() - before) / Double(n))
            luas.append(Double(host.luaMemoryInUse) / Double(n))
            blackHole(host)
        }
        scalars["host_bytes_per_route_\(n / 1000)k"] = Harness.median(totals)
        scalars["host_lua_bytes_per_route_\(n / 1000)k"] = Harness.median(luas)
        FileHandle.standardError.write(Data("bench: host memory at N=\(n) done\n".utf8))
    }

    // MARK: Reload

    /// A generated script of N routes: a junction of stacks, one per first segment.
    func script(_ n: Int) -> String {
        var groups: [String: [String]] = [:]
        var order: [String] = []
        for pattern in workload.routes(n) {
            let tab = String(pattern.split(separator: "/").first ?? "root")
            if groups[tab] == nil { order.append(tab) }
            groups[tab, default: []].append(pattern)
        }
        var lines = ["return junction { title = \"Generated\","]
        for tab in order {
            lines.append("  stack { title = \"\(tab)\",")
            for pattern in groups[tab] ?? [] { lines.append("    endpoint { \"\(pattern)\" },") }
            lines.append("  },")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `source` with its last route's pattern renamed (`edited-…`).
    static func editingLastRoute(_ source: String) -> String {
        source.replacingOccurrences(
            of: "endpoint { \"", with: "endpoint { \"edited-", options: [],
            range: source.range(of: "endpoint { \"", options: .backwards))
    }

    /// The reload's anchor: `source` loaded by plain Lua in a new state, with builders that
    /// only return their table.
    static func plainLuaLoad(_ source: String) throws {
        var plain = LuaVM.Options()
        plain.sandbox = .unsafe
        plain.memoryLimit = 0
        plain.loadLimits = LuaLimits(instructions: 0, deadline: nil)
        let builders =
            "function endpoint(t) return t end stack = endpoint junction = endpoint switcher = endpoint fork = endpoint"
        let vm = try LuaVM(options: plain)
        _ = try vm.run(builders, chunkName: "=builders")
        _ = try vm.run(source, chunkName: "@generated.lua")
    }

    mutating func measureReload(_ n: Int) throws {
        let folder = NSTemporaryDirectory() + "luna-bench-reload-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/generated.lua"
        let source = script(n)
        try (source + "-- save 0\n").write(toFile: path, atomically: true, encoding: .utf8)
        var options = RouteScriptOptions()
        options.loadLimits = LuaLimits(instructions: 0, deadline: .seconds(30))
        let host = try RouteScriptHost(contentsOf: path, options: options)
        if let first = workload.routes(n).first(where: { !$0.contains(":") && !$0.contains("...") }) {
            _ = try host.dispatch(first)
        }
        // Each round times the three in turn: the script saved again unchanged (its routes the
        // same: the compiled matcher is kept), then with one route edited (the last pattern
        // renamed back and forth, not the one on screen: the matcher is compiled again; the
        // two versions are made before the clock runs, so only the save and the reload are
        // timed), then a plain Lua load of it. The host's speed moves from minute to minute:
        // alternated, the drift falls on all three alike, and each ratio is the median of the
        // rounds' ratios (timed one after the other, a 1k reload's ratio moved from 3.5x to
        // 5.2x between runs of the same build).
        // A one-route edit renames the last route back or forth; a reload runs the script
        // (README: hot reload: a reload equals a fresh load of the saved file). The texts are
        // made before the clock runs.
        let renamed = Self.editingLastRoute(source)
        var routeRenamed = false
        var failures = 0
        func unchanged() { _ = try? host.reload() }
        func edited() {
            routeRenamed.toggle()
            try? (routeRenamed ? renamed : source).write(toFile: path, atomically: false, encoding: .utf8)
            if (try? host.reload()) == nil { failures += 1 }
        }
        func luaLoad() { try? Self.plainLuaLoad(source) }
        // What an app that ships the tree without Lua does at launch: `RouteTree(json:)` on
        // the script's `luna export json`.
        let exported = try host.exportJSON()
        func fromJSON() { blackHole(try? RouteTree(json: exported)) }
        unchanged()  // warm-up
        edited()
        edited()
        luaLoad()
        fromJSON()
        // A reload returns before the old script's Lua state is freed (on a background
        // thread): each timed reload is what a save waits for, and the freeing is waited for
        // after the clock stops, so no round overlaps the one before; a reload with the
        // freeing waited for is timed apart (`reload_*_with_free_ms`), as the whole work.
        let reaper = LuaStateReaper.shared
        func timed(_ body: () -> Void) -> Double {
            let time = Harness.elapsed(body) / 1e6
            reaper.waitUntilFreed()
            return time
        }
        // Milliseconds, per round: (unchanged, edited, plain Lua load, unchanged with the free,
        // the exported tree read).
        let times = (0..<(quick ? 3 : 9)).map { _ in
            (
                timed(unchanged), timed(edited), timed(luaLoad),
                timed {
                    unchanged()
                    reaper.waitUntilFreed()
                },
                timed(fromJSON)
            )
        }
        guard failures == 0 else { throw BenchError("reload at N=\(n): \(failures) edited reloads failed") }
        let k = "\(n / 1000)k"
        scalars["tree_from_json_\(k)_ms"] = Harness.median(times.map(\.4))
        scalars["tree_from_json_vs_lua_load_\(k)"] = Harness.median(times.map { $0.4 / $0.2 })
        scalars["reload_\(k)_with_free_ms"] = Harness.median(times.map(\.3))
        scalars["reload_with_free_vs_lua_load_\(k)"] = Harness.median(times.map { $0.3 / $0.2 })
        scalars["reload_\(k)_ms"] = Harness.median(times.map(\.0))
        scalars["reload_one_route_\(k)_ms"] = Harness.median(times.map(\.1))
        scalars["lua_load_\(k)_ms"] = Harness.median(times.map(\.2))
        scalars["reload_vs_lua_load_\(k)"] = Harness.median(times.map { $0.0 / $0.2 })
        scalars["reload_one_route_vs_lua_load_\(k)"] = Harness.median(times.map { $0.1 / $0.2 })
        let rounds = Harness(rounds: quick ? 3 : 7)
        let patterns = workload.routes(n)
        scalars["routingkit_build_\(n / 1000)k_ms"] =
            rounds.nanoseconds(operations: 1) {
                blackHole(RoutingKitMatcher(patterns))
            } / 1e6
        scalars["luna_build_\(n / 1000)k_ms"] =
            rounds.nanoseconds(operations: 1) { blackHole(LunaMatcher(patterns)) } / 1e6
        FileHandle.standardError.write(Data("bench: reload at N=\(n) done\n".utf8))
    }
}

/// A benchmark run that could not finish.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

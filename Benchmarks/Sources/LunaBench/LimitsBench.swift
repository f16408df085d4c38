import Foundation
import LuaHost

/// How far past its limits hostile code gets: each shape of the test catalogue runs at load
/// time (500 ms deadline) and in a call (100 ms), three times; the worst overshoot of the
/// deadline and of the memory cap (16 MiB; 256 MiB for the big-string shapes) is reported.
extension Bench {
    static let limitShapes: [(name: String, source: String, memory: Int)] = [
        (
            "coroutine tree (fan-out 20, depth 5)",
            """
            local function node(depth)
              if depth == 0 then while true do end end
              for i = 1, 20 do coroutine.resume(coroutine.create(node), depth - 1) end
            end
            node(5)
            """, 16 << 20
        ),
        (
            "coroutine.wrap tree under pcall",
            """
            local function node(depth)
              if depth == 0 then while true do end end
              for i = 1, 20 do pcall(coroutine.wrap(node), depth - 1) end
            end
            node(5)
            """, 16 << 20
        ),
        ("pattern .-.-.-%b()", "string.find(('('):rep(256), '.-.-.-%b()')", 16 << 20),
        ("pattern [a-]*[a-]*[a-]*[a%-]b", "string.find(('a'):rep(256), '[a-]*[a-]*[a-]*[a%-]b')", 16 << 20),
        ("tonumber(28 MiB)", "local s = ('1'):rep(28 << 20) while true do local x = tonumber(s) end", 256 << 20),
        ("s + 0 (28 MiB)", "local s = ('1'):rep(28 << 20) while true do local x = s + 0 end", 256 << 20),
        ("math.floor(28 MiB)", "local s = ('1'):rep(28 << 20) while true do local x = math.floor(s) end", 256 << 20),
        (
            "memory after a caught trip",
            """
            local co = coroutine.wrap(function()
              pcall(function() while true do end end)
              local t = string.rep('x', 1 << 20)
              while true do t = t .. t end
            end)
            pcall(co)
            """, 16 << 20
        ),
    ]

    mutating func measureLimits() throws {
        var worstOvershoot = 0.0
        var worstMemory = 0.0
        for (k, shape) in Self.limitShapes.enumerated() {
            for (place, deadline) in [("load", 500), ("call", 100)] {
                var overshoots: [Double] = []
                for _ in 0..<3 {
                    var options = LuaVM.Options()
                    options.memoryLimit = shape.memory
                    options.loadLimits = LuaLimits(instructions: 0, deadline: .milliseconds(deadline))
                    options.callLimits = LuaLimits(instructions: 0, deadline: .milliseconds(deadline))
                    let vm = try LuaVM(options: options)
                    let function =
                        place == "call"
                        ? try vm.load("return function() \(shape.source) end", chunkName: "=shape") : .nil
                    let made = place == "call" ? try vm.call(function) : []
                    vm.resetMemoryPeak()
                    let clock = ContinuousClock()
                    let start = clock.now
                    do {
                        if place == "load" {
                            _ = try vm.run(shape.source, chunkName: "=shape")
                        } else {
                            _ = try vm.call(made[0])
                        }
                    } catch {}
                    let milliseconds = Harness.nanoseconds(clock.now - start) / 1e6
                    overshoots.append(max(0, milliseconds - Double(deadline)))
                    worstMemory = max(worstMemory, Double(vm.memoryPeak - shape.memory) / 1_048_576)
                }
                let worst = overshoots.max() ?? 0
                scalars["limits_\(k)_\(place)_overshoot_ms"] = worst
                worstOvershoot = max(worstOvershoot, worst)
            }
        }
        scalars["limits_worst_overshoot_ms"] = worstOvershoot
        scalars["limits_worst_memory_over_cap_mib"] = worstMemory
    }

    func limitsReport() -> [String] {
        let s = scalars
        guard s["limits_worst_overshoot_ms"] != nil else { return [] }
        var lines = [
            "",
            "Hostile shapes: worst time past the deadline of three runs (ms; load 500 ms, call 100 ms):",
            "",
            "| shape | at load | in a call |",
            "|---|---:|---:|",
        ]
        for (k, shape) in Self.limitShapes.enumerated() {
            lines.append(
                "| \(shape.name) | \(f(s["limits_\(k)_load_overshoot_ms"] ?? 0, 1)) | \(f(s["limits_\(k)_call_overshoot_ms"] ?? 0, 1)) |"
            )
        }
        lines.append(
            "| **worst** | \(f(s["limits_worst_overshoot_ms"] ?? 0, 1)) ms | memory past the cap: \(f(s["limits_worst_memory_over_cap_mib"] ?? 0, 2)) MiB |"
        )
        return lines
    }
}

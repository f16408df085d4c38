import Testing

@testable import LuaHost

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Wall-clock time of `body` (ContinuousClock); used to check a limit stopped a script
/// promptly, never to assert speed.
func elapsed(_ body: () throws -> Void) rethrows -> Duration {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    return clock.now - start
}

/// How much slower than a plain debug build this run is: scripts/sanitize sets
/// LUNA_SLOWDOWN (sanitizers slow everything down several times).
let slowdown: Int = {
    guard let raw = getenv("LUNA_SLOWDOWN"), let factor = Int(String(cString: raw)) else { return 1 }
    return max(1, factor)
}()

@Suite struct LuaLimitsTests {
    static func vm(deadline: Duration? = .milliseconds(100), budget: Int = 0) throws -> LuaVM {
        var options = LuaVM.Options()
        options.loadLimits = LuaLimits(instructions: budget, deadline: deadline)
        options.callLimits = LuaLimits(instructions: budget, deadline: deadline)
        return try LuaVM(options: options)
    }

    @Test(arguments: [
        "while true do end",
        "while true do pcall(function() while true do end end) end",
        "while true do pcall(error) end",
        "local function f() return f() end return f()",
        "while true do xpcall(function() while true do end end, function() while true do end end) end",
        "repeat local ok = pcall(string.rep, 'x', 10) until false",
    ])
    func endlessLoopsStopAtTheDeadline(source: String) throws {
        let vm = try Self.vm(deadline: .milliseconds(50))
        var error: LuaError?
        let time = elapsed {
            error = #expect(throws: LuaError.self) { try vm.run(source, chunkName: "@loop.lua") }
        }
        #expect(error?.kind == .deadline)
        #expect(error?.message.hasPrefix("loop.lua:1: deadline exceeded") == true)
        // A hang guard, not a speed assertion (measured figures are in the closing notes):
        // unmetered, these run forever; a second of slack keeps a busy CI machine, which runs
        // the suite in parallel, from failing it.
        #expect(time < .milliseconds(50 + 1000 * slowdown), "stopped after \(time)")
        expectHealthy(vm)
    }

    @Test func anEndlessLoopInACalledFunctionStops() throws {
        let vm = try Self.vm(deadline: .milliseconds(30))
        let spin = try vm.run("return function() while true do end end", chunkName: "@spin.lua")[0]
        let error = #expect(throws: LuaError.self) { try balanced(vm) { try vm.call(spin) } }
        #expect(error?.kind == .deadline)
        #expect(error?.location == LuaError.Location(file: "spin.lua", line: 1))
        expectHealthy(vm)
    }

    @Test func aCoroutineCreatedEarlierAndResumedLaterStops() throws {
        let vm = try Self.vm(deadline: .milliseconds(30))
        _ = try vm.run(
            "co = coroutine.create(function() coroutine.yield() while true do end end) coroutine.resume(co)",
            chunkName: "@co.lua")
        let error = #expect(throws: LuaError.self) {
            try vm.run(
                "while true do local ok, e = coroutine.resume(co) if not ok then co = coroutine.create(function() while true do end end) end end",
                chunkName: "@resume.lua")
        }
        #expect(error?.kind == .deadline)
        expectHealthy(vm)
    }

    @Test func theInstructionBudgetStopsAScriptAndCannotBeSwallowed() throws {
        let vm = try Self.vm(deadline: nil, budget: 100_000)
        let error = #expect(throws: LuaError.self) {
            try vm.run(
                "local n = 0 while true do pcall(function() for i = 1, 1e9 do n = n + 1 end end) end",
                chunkName: "@budget.lua")
        }
        #expect(error?.kind == .budget)
        #expect(error?.message.contains("instruction budget exceeded") == true)
        #expect(vm.instructionsUsed > 100_000 && vm.instructionsUsed < 110_000)
        // The next call gets a fresh budget.
        #expect(try vm.run("local n = 0 for i = 1, 1000 do n = n + i end return n", chunkName: "=ok") == [500_500])
    }

    @Test func eachCallGetsItsOwnBudget() throws {
        let vm = try Self.vm(deadline: nil, budget: 50_000)
        let work = try vm.run(
            "return function() local n = 0 for i = 1, 5000 do n = n + i end return n end", chunkName: "=w")[0]
        for _ in 0..<20 { #expect(try vm.call(work) == [12_502_500]) }
    }

    @Test(arguments: [
        "local t = {} local i = 0 while true do i = i + 1 t[i] = i end",
        "return string.rep('x', 1e9)",
        "local s = 'x' while true do s = s .. s end",
        "local t = {} for i = 1, 1e9 do t[i] = tostring(i) .. 'padding-padding' end",
        "local t = {} while true do t[#t + 1] = {} end",
    ])
    func memoryBombsStopUnderTheCap(source: String) throws {
        var options = LuaVM.Options()
        options.memoryLimit = 16 * 1024 * 1024
        options.loadLimits = LuaLimits(instructions: 0, deadline: .seconds(5))
        let vm = try LuaVM(options: options)
        vm.collectGarbage()
        let before = vm.memoryInUse
        var error: LuaError?
        let time = elapsed {
            error = #expect(throws: LuaError.self) { try vm.run(source, chunkName: "@bomb.lua") }
        }
        // The memory cap stopped it (the 5 s deadline would report .deadline); the time bound
        // only catches pathological slowness.
        #expect(error?.kind == .memory)
        #expect(error?.message.hasPrefix("memory limit exceeded (16 MiB)") == true)
        #expect(time < .seconds(3) * slowdown, "stopped after \(time)")
        #expect(vm.memoryInUse <= 16 * 1024 * 1024)
        vm.collectGarbage()
        #expect(vm.memoryInUse < before + 64 * 1024, "memory before \(before), after \(vm.memoryInUse)")
        expectHealthy(vm)
    }

    @Test func memoryErrorsInsideScriptPcallAreContained() throws {
        var options = LuaVM.Options()
        options.memoryLimit = 8 * 1024 * 1024
        let vm = try LuaVM(options: options)
        let result = try vm.run(
            "local ok, e = pcall(string.rep, 'x', 1e8) return ok, e", chunkName: "=m")
        #expect(result == [false, "not enough memory"])
        expectHealthy(vm)
    }

    @Test func luaStackOverflowIsAnError() throws {
        // The deadline only guards against a hang: the overflow must come first, also under a
        // sanitizer on a busy machine.
        let vm = try Self.vm(deadline: .seconds(2) * slowdown * 2)
        let error = #expect(throws: LuaError.self) {
            try vm.run("local function f(n) return 1 + f(n + 1) end return f(1)", chunkName: "@deep.lua")
        }
        #expect(error?.kind == .runtime)
        #expect(error?.message.contains("stack overflow") == true)
        #expect((error?.traceback?.utf8.count ?? 0) <= 4096 + 100)
        expectHealthy(vm)
    }

    @Test func tracebacksAreCapped() throws {
        let vm = try Self.vm(deadline: .seconds(2))
        let error = #expect(throws: LuaError.self) {
            try vm.run(
                "local function f(n) if n == 0 then error('deep') end return 1 + f(n - 1) end return f(100)",
                chunkName: "@deep.lua")
        }
        let frames = error?.traceback?.split(separator: "\n").dropFirst() ?? []
        #expect(frames.count == 21)  // 20 frames and "..."
        #expect(frames.last == "\t...")
    }
}

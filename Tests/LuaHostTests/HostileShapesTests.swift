import Testing

@testable import LuaHost

/// The catalogue of hostile shapes: once a limit trips, nothing in the state runs on —
/// no coroutine that caught the error, no coroutine made after it, no allocation past the
/// cap — whether the shape runs at load time or in a call. Each shape counts what it did
/// after the trip in a global that is read afterwards: the counts are deterministic, so the
/// tests assert them rather than times (scripts/bench's `limits` part reports the times).
@Suite struct HostileShapesTests {
    static func vm(budget: Int = 0, deadline: Duration? = .milliseconds(100), memory: Int = 16 << 20) throws -> LuaVM {
        var options = LuaVM.Options()
        options.loadLimits = LuaLimits(instructions: budget, deadline: deadline)
        options.callLimits = LuaLimits(instructions: budget, deadline: deadline)
        options.memoryLimit = memory
        return try LuaVM(options: options)
    }

    /// Shapes that catch the limit's error and try to go on; `after` counts what ran after it.
    static let shapes: [(name: String, source: String)] = [
        (
            "a tree of coroutines that catch their children's errors",
            """
            after = 0
            local tripped = false
            local function node(depth)
              if depth == 0 then while true do end end
              for i = 1, 20 do
                local co = coroutine.create(node)
                local ok = coroutine.resume(co, depth - 1)
                if not ok then tripped = true end
                if tripped then after = after + 1 end
              end
            end
            node(5)
            """
        ),
        (
            "coroutine.wrap under pcall",
            """
            after = 0
            local function node(depth)
              if depth == 0 then while true do end end
              for i = 1, 20 do
                local ok = pcall(coroutine.wrap(node), depth - 1)
                if not ok then after = after + 1 end
              end
            end
            node(5)
            """
        ),
        (
            "a coroutine that catches the error and loops on",
            """
            after = 0
            local co = coroutine.create(function()
              pcall(function() while true do end end)
              while true do after = after + 1 end
            end)
            coroutine.resume(co)
            while true do after = after + 1 end
            """
        ),
        (
            "new coroutines made after the trip",
            """
            after = 0
            pcall(function() while true do end end)
            while true do
              pcall(coroutine.resume, coroutine.create(function() after = after + 1 end))
            end
            """
        ),
    ]

    @Test(arguments: [0, 1, 2, 3], ["load", "call"])
    func nothingRunsOnAfterATrip(index: Int, place: String) throws {
        let (name, source) = Self.shapes[index]
        let vm = try Self.vm()
        let error = #expect(throws: LuaError.self) {
            if place == "load" {
                _ = try vm.run(source, chunkName: "@shape.lua")
            } else {
                let function = try vm.load("return function() \(source) end", chunkName: "@shape.lua")
                let made = try vm.call(function)
                _ = try vm.call(made[0])
            }
        }
        #expect(error?.kind == .deadline, "\(name): \(error?.message ?? "")")
        let after = try vm.run("return after", chunkName: "=read")
        // At most a handful of steps (the statement that caught the error), never a
        // multiplied tree: before the fix these counted thousands to millions.
        #expect((after.first.flatMap { Int("\($0)") } ?? -1) <= 2, "\(name) at \(place): after = \(after)")
    }

    /// The memory cap holds after a trip: a coroutine that survives it cannot allocate on.
    /// The first shape took the old host to 941 MB under a 16 MiB cap (`luna check` with
    /// `--memory-mb 16`: a coroutine that resumed the one that tripped doubled a string).
    @Test(arguments: [
        """
        local outer = coroutine.wrap(function()
          local t = string.rep('x', 1 << 20)
          coroutine.resume(coroutine.create(function() while true do end end))
          for i = 1, 9 do t = t .. t end
        end)
        pcall(outer)
        """,
        """
        local co = coroutine.wrap(function()
          pcall(function() while true do end end)
          local t = string.rep('x', 1 << 20)
          while true do t = t .. t end
        end)
        pcall(co)
        local t = string.rep('y', 1 << 20)
        while true do t = t .. t end
        """,
        """
        pcall(function() while true do end end)
        local t = {}
        while true do t[#t + 1] = string.rep('z', 4096) .. #t end
        """,
    ])
    func theMemoryCapHoldsAfterATrip(source: String) throws {
        let vm = try Self.vm(memory: 16 << 20)
        vm.resetMemoryPeak()
        #expect(throws: LuaError.self) { try vm.run(source, chunkName: "@mem.lua") }
        #expect(vm.memoryPeak <= (16 << 20) + (1 << 20), "peak \(vm.memoryPeak)")
    }

    /// While a big string lives, the limits are checked more often (every 16 MiB of string
    /// work a conversion or comparison could do), and back to every 1,000 instructions after.
    @Test func bigStringsShortenTheHookInterval() throws {
        let vm = try Self.vm(deadline: nil, memory: 256 << 20)
        #expect(vm.hookInterval == 1000)
        _ = try vm.run("big = string.rep('1', 1 << 20)", chunkName: "=a")
        #expect((14...16).contains(vm.hookInterval))  // 16 MiB over the string object (1 MiB and a header)
        _ = try vm.run("big = string.rep('1', 32 << 20)", chunkName: "=b")
        #expect(vm.hookInterval == 1)
        _ = try vm.run("big = nil", chunkName: "=c")
        vm.collectGarbage()
        #expect(vm.hookInterval == 1000)
    }

    /// A tight loop of conversions of a big string stops at the deadline.
    @Test(arguments: ["tonumber(s)", "s + 0", "math.floor(s)", "s < t"])
    func conversionsOfBigStringsStop(expression: String) throws {
        let vm = try Self.vm(deadline: .milliseconds(100), memory: 256 << 20)
        let error = #expect(throws: LuaError.self) {
            try vm.run(
                "local s = string.rep('1', 16 << 20) local t = s .. '2' while true do local x = \(expression) end",
                chunkName: "@conv.lua")
        }
        #expect(error?.kind == .deadline)
        #expect(error?.message.hasPrefix("conv.lua:1: deadline exceeded") == true, "\(error?.message ?? "")")
    }
}

/// `--unsafe` keeps the limits: the hook cannot be replaced, no finalizer runs unhooked, nested
/// closes are bounded, and nothing loads bytecode (crafted bytecode can crash the VM).
@Suite struct UnsafeLimitsTests {
    static func vm() throws -> LuaVM {
        var options = LuaVM.Options()
        options.sandbox = .unsafe
        options.loadLimits = LuaLimits(instructions: 0, deadline: .milliseconds(100))
        options.callLimits = LuaLimits(instructions: 0, deadline: .milliseconds(100))
        return try LuaVM(options: options)
    }

    @Test(arguments: [
        (
            "debug.sethook()",
            "u.lua:1: debug.sethook is not available: Luna's limits use the hook (--unsafe keeps them)"
        ),
        (
            "setmetatable({}, { __gc = function() while true do end end })",
            "u.lua:1: setmetatable: __gc metamethods are not allowed in scripts"
        ),
        (
            "debug.setmetatable({}, { __gc = function() while true do end end })",
            "u.lua:1: setmetatable: __gc metamethods are not allowed in scripts"
        ),
        ("load(string.dump(function() end))()", "u.lua:1: attempt to call a nil value"),
        ("pcall(debug.sethook) while true do end", "u.lua:1: deadline exceeded"),
    ])
    func refusedOrStopped(source: String, message: String) throws {
        let vm = try Self.vm()
        let error = #expect(throws: LuaError.self) { _ = try vm.run(source, chunkName: "@u.lua") }
        #expect(error?.message.hasPrefix(message) == true, "\(error?.message ?? "")")
        #expect(try vm.run("return 1 + 1", chunkName: "=ok") == [2])
    }

    /// 20,000 nested coroutine.close calls crashed the host (Lua 5.4.4 overflows its C stack).
    @Test func nestedClosesAreBounded() throws {
        let vm = try Self.vm()
        let result = try vm.run(
            """
            local deepest = 0
            local function nest(n)
              local co = coroutine.create(function()
                local x <close> = setmetatable({}, { __close = function()
                  deepest = math.max(deepest, 20000 - n)
                  if n > 0 then
                    local ok, err = coroutine.close(nest(n - 1))
                    if not ok then error(err, 0) end
                  end
                end })
                coroutine.yield()
              end)
              coroutine.resume(co)
              return co
            end
            local ok, err = coroutine.close(nest(20000))
            return tostring(ok) .. ' ' .. tostring(err) .. ' ' .. deepest
            """, chunkName: "@close.lua")
        // Lua's own C-stack check (which counts the guard's frames) or the guard's bound stops
        // it: an error, never a crash.
        let text = "\(result.first ?? .nil)"
        #expect(
            text.hasPrefix("false C stack overflow") || text.hasPrefix("false coroutine.close: nested more than 100"),
            "\(text)")
        #expect((Int(text.split(separator: " ").last ?? "") ?? 1000) <= 100)
    }
}

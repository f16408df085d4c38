import Testing

@testable import LuaHost

@Suite struct LuaSandboxTests {
    @Test(arguments: [
        ("return io", "nil"),
        ("return debug", "nil"),
        ("return package", "nil"),
        ("return require", "nil"),
        ("return dofile", "nil"),
        ("return loadfile", "nil"),
        ("return collectgarbage", "nil"),
        ("return os.execute", "nil"),
        ("return os.exit", "nil"),
        ("return os.remove", "nil"),
        ("return os.getenv", "nil"),
        ("return string.dump", "nil"),
        ("return coroutine.close", "nil"),
        ("return type(os.time())", "number"),
        ("return type(os.clock())", "number"),
        ("return type(os.date('%Y'))", "string"),
        ("return type(utf8.char(72))", "string"),
        ("return math.max(1, 2)", "2"),
    ])
    func theDefaultProfileHasOnlyTheSafeLibraries(source: String, expected: String) throws {
        let vm = try LuaVM()
        #expect(try vm.run(source, chunkName: "=probe").map(\.description) == [expected])
    }

    @Test func theUnsafeProfileHasEverything() throws {
        var options = LuaVM.Options()
        options.sandbox = .unsafe
        let vm = try LuaVM(options: options)
        #expect(
            try vm.run("return type(io), type(debug), type(os.execute)", chunkName: "=u") == [
                "table", "table", "function",
            ])
    }

    @Test func loadRefusesBinaryChunks() throws {
        let vm = try LuaVM()
        // A binary chunk starts with "\27Lua"; string.dump is absent, so forge the header.
        let result = try vm.run("return load('\\27Lua\\84\\0')", chunkName: "=bin")
        #expect(result[0] == .nil)
        #expect(result[1].stringValue?.contains("attempt to load a binary chunk") == true)
        #expect(try vm.run("return load('\\27Lua', 'x', 'b')", chunkName: "=bin")[0] == .nil)
        // Text chunks still load, with or without an environment.
        #expect(try vm.run("return load('return 1 + 1')()", chunkName: "=txt") == [2])
        #expect(try vm.run("return load('return x', 'c', 't', { x = 7 })()", chunkName: "=env") == [7])
        #expect(try vm.run("x = 5 return load('return x', 'c', 't')()", chunkName: "=genv") == [5])
    }

    @Test func setmetatableRefusesFinalizers() throws {
        let vm = try LuaVM(options: LuaLimitsTests.options(deadline: .milliseconds(50)))
        let error = #expect(throws: LuaError.self) {
            try vm.run("setmetatable({}, { __gc = function() while true do end end })", chunkName: "@gc.lua")
        }
        #expect(error?.message == "gc.lua:1: setmetatable: __gc metamethods are not allowed in scripts")
        // A __gc added to the metatable later does not mark the object, and nothing hangs.
        _ = try vm.run(
            "local mt = {} local t = setmetatable({}, mt) mt.__gc = function() while true do end end t = nil",
            chunkName: "=late")
        vm.collectGarbage()
        expectHealthy(vm)
    }

    @Test func hostObjectMetatablesAreHidden() throws {
        let vm = try LuaVM()
        let cls = vm.registerClass(LuaClassDefinition(name: "view"))
        try vm.rawSet(vm.globals, key: "v", value: vm.wrap(Box(), as: cls))
        #expect(try vm.run("return getmetatable(v)", chunkName: "=mt") == [false])
        #expect(throws: LuaError.self) { try vm.run("setmetatable(v, {})", chunkName: "=mt") }
    }

    @Test func coroutineCloseIsAbsentSoNestedClosesCannotCrash() throws {
        let vm = try LuaVM()
        let error = #expect(throws: LuaError.self) {
            try vm.run(
                "local co = coroutine.wrap(function() coroutine.close(coroutine.running()) end) co()",
                chunkName: "@close.lua")
        }
        #expect(error?.message.contains("attempt to call a nil value (field 'close')") == true)
        expectHealthy(vm)
    }

    /// Pattern matching counts its steps: a search that would backtrack for seconds in C stops
    /// at the deadline like any other code, with the script's position; any subject and shape
    /// may be searched.
    @Test func patternSearchesStopAtTheLimits() throws {
        let vm = try LuaVM()
        for probe in [
            "string.find(string.rep('a', 1000), '.-.-.-b')",
            "string.find(('('):rep(256), '.-.-.-%b()')",
            "string.find(('a'):rep(256), '[a-]*[a-]*[a-]*[a%-]b')",
            "string.match(('a'):rep(5000), ('a*'):rep(8) .. 'b')",
            "string.gsub(('a'):rep(2000), '.-.-b', 'x')",
            "(function() for k in string.gmatch(('a'):rep(2000), '.-.-b') do end end)()",
        ] {
            let error = #expect(throws: LuaError.self) { try vm.run("return " + probe, chunkName: "@pat.lua") }
            // Whichever limit comes first: the deadline, or the budget the steps are charged to.
            #expect(error?.kind == .deadline || error?.kind == .budget, "\(probe)")
            #expect(
                error?.message == "pat.lua:1: deadline exceeded"
                    || error?.message == "pat.lua:1: instruction budget exceeded", "\(probe)")
        }
        // A search that is too much for one call is no longer refused by its shape.
        #expect(try vm.run("return ('aaaa'):match('a*a*a*a*b')", chunkName: "=p") == [.nil])
        #expect(try vm.run("return #(string.rep('x', 300)):match('x+')", chunkName: "=p") == [300])
        // Plain and short searches are fine.
        #expect(
            try vm.run("return string.find(string.rep('a', 1000) .. 'b', 'ab', 1, true)", chunkName: "=p") == [
                1000, 1001,
            ])
        #expect(try vm.run("return (string.rep('a', 1000) .. 'b'):find('b')", chunkName: "=p") == [1001, 1001])
        #expect(try vm.run("return ('key=value'):match('(%w+)=(%w+)')", chunkName: "=p") == ["key", "value"])
        #expect(try vm.run("return ('a.b.c'):gsub('%.', '/')", chunkName: "=p") == ["a/b/c", 2])
        #expect(try vm.run("return ('[x]'):find('[%]]')", chunkName: "=p") == [3, 3])
        expectHealthy(vm)
    }

    @Test func escapeProbesStayInsideTheirOwnVM() throws {
        let first = try LuaVM()
        let second = try LuaVM()
        _ = try first.run(
            """
            getmetatable('').__index.upper = function() return 'hijacked' end
            string.lower = function() return 'hijacked' end
            setmetatable(_ENV, { __index = function(_, k) error('no global ' .. k) end,
                                 __newindex = function() error('read-only') end })
            """, chunkName: "@probe.lua")
        #expect(try first.run("return ('x'):upper()", chunkName: "=p") == ["hijacked"])
        #expect(try second.run("return ('x'):upper(), string.lower('Y')", chunkName: "=p") == ["X", "y"])
        // The host's raw access is not fooled by the hostile metatable on the globals.
        try first.rawSet(first.globals, key: "hostValue", value: 1)
        #expect(try first.rawGet(first.globals, key: "hostValue") == 1)
        #expect(try first.run("return 1 + 2", chunkName: "=p") == [3])
        // `_ENV = nil` only blinds the chunk that does it.
        #expect(throws: LuaError.self) { try second.run("_ENV = nil return print", chunkName: "@env.lua") }
        expectHealthy(second)
        // No debug library, so no registry.
        let registry = #expect(throws: LuaError.self) {
            try second.run("return debug.getregistry()", chunkName: "@reg.lua")
        }
        #expect(registry?.message == "reg.lua:1: attempt to index a nil value (global 'debug')")
        expectHealthy(second)
    }

    @Test func xpcallHandlersStillWorkForOrdinaryErrors() throws {
        let vm = try LuaVM()
        #expect(
            try vm.run("return xpcall(error, function(m) return 'handled: ' .. m end, 'boom', 0)", chunkName: "=x")
                == [false, "handled: boom"])
        #expect(
            try vm.run("return xpcall(function(a, b) return a + b end, print, 2, 3)", chunkName: "=x") == [true, 5])
        #expect(
            try vm.run("return xpcall(error, function() error('again', 0) end, 'boom', 0)", chunkName: "=x")
                == [false, "again"])
        // Yields across xpcall inside a coroutine work (lua_pcallk continuation).
        #expect(
            try vm.run(
                """
                local co = coroutine.wrap(function()
                  return xpcall(function() local v = coroutine.yield(1) return v * 2 end, print)
                end)
                local first = co()
                local ok, second = co(21)
                return first, ok, second
                """, chunkName: "=x") == [1, true, 42])
    }
}

extension LuaLimitsTests {
    static func options(deadline: Duration?, budget: Int = 0) -> LuaVM.Options {
        var options = LuaVM.Options()
        options.loadLimits = LuaLimits(instructions: budget, deadline: deadline)
        options.callLimits = LuaLimits(instructions: budget, deadline: deadline)
        return options
    }
}

import Testing

@testable import LuaHost

@Suite struct LuaErrorTests {
    @Test(arguments: [
        ("error({ code = 1 })", "(error object is a table value)"),
        ("error(nil)", "(error object is a nil value)"),
        ("error(true)", "(error object is a boolean value)"),
        ("error(42)", "42"),
        (
            "error(setmetatable({}, { __tostring = function() error('tostring ran') end }))",
            "(error object is a table value)"
        ),
        (
            "error(setmetatable({}, { __tostring = function() while true do end end }))",
            "(error object is a table value)"
        ),
        ("error(coroutine.create(print))", "(error object is a thread value)"),
    ])
    func nonStringErrorValuesAreDescribedWithoutTostring(source: String, message: String) throws {
        let vm = try LuaVM()
        let error = #expect(throws: LuaError.self) { try balanced(vm) { try vm.run(source, chunkName: "@e.lua") } }
        #expect(error?.kind == .runtime)
        #expect(error?.message == message)
        #expect(error?.traceback?.hasPrefix("stack traceback:") == true)
        expectHealthy(vm)
    }

    /// The outermost call finds the message handler in the main thread's reserved slot; a
    /// call from inside a host function, or on a coroutine's thread, gets its own copy. All
    /// three report the error and leave the stack as they found it.
    @Test func everyKindOfCallReportsItsErrorAndKeepsTheStack() throws {
        let vm = try LuaVM()
        let fail = try vm.run("return function(x) error('boom ' .. tostring(x)) end", chunkName: "@f.lua")[0]
        vm.register("callBack") { args in try args.vm.call(fail, args[1]) }
        for _ in 0..<3 {
            let outer = #expect(throws: LuaError.self) { try balanced(vm) { try vm.call(fail, .integer(1)) } }
            #expect(outer?.message == "f.lua:1: boom 1")
            #expect(outer?.traceback?.contains("f.lua:1:") == true)
        }
        #expect(vm.stackTop == 0)
        let nested = try balanced(vm) {
            try vm.run("return pcall(callBack, 2)", chunkName: "@n.lua")
        }
        #expect(nested[0] == false)
        #expect(nested[1].stringValue == "f.lua:1: boom 2")
        let inCoroutine = try balanced(vm) {
            try vm.run(
                "local co = coroutine.create(function() return pcall(callBack, 3) end) return coroutine.resume(co)",
                chunkName: "@c.lua")
        }
        #expect(inCoroutine[0] == true)
        #expect(inCoroutine[1] == false)
        #expect(inCoroutine[2].stringValue == "f.lua:1: boom 3")
        let fine = try balanced(vm) { try vm.run("return 1 + 1", chunkName: "=ok") }
        #expect(fine == [.integer(2)])
        expectHealthy(vm)
    }

    @Test func anErrorInsideAMessageHandlerIsContained() throws {
        let vm = try LuaVM()
        let result = try vm.run(
            "return xpcall(function() error('first') end, function(m) error({}) end)", chunkName: "@h.lua")
        #expect(result[0] == false)
        #expect(result[1].typeName == "table")
        // A handler that overflows the stack while handling.
        let deep = try vm.run(
            "local function h(m) return h(m) .. '' end return xpcall(error, h, 'x')", chunkName: "@h.lua")
        #expect(deep[0] == false)
        expectHealthy(vm)
    }

    @Test func locationsAreParsedFromMessages() {
        #expect(LuaError.parseLocation("books.lua:12: boom") == .init(file: "books.lua", line: 12))
        #expect(LuaError.parseLocation("[string \"x\"]:3: y") == .init(file: "[string \"x\"]", line: 3))
        #expect(LuaError.parseLocation("no location here") == nil)
        #expect(LuaError.parseLocation(":12: no file") == nil)
        #expect(LuaError.parseLocation("a:b:c") == nil)
        #expect(LuaError.parseLocation("first line\nb.lua:2: later") == nil)
    }

    @Test func everyPublicOperationLeavesTheStackBalanced() throws {
        let vm = try LuaVM()
        let t = try vm.run("return { 1, 2, x = 3 }", chunkName: "=t")[0]
        let f = try vm.run("return function(...) return ... end", chunkName: "=f")[0]
        let top = vm.stackTop
        _ = try vm.run("return 1, 2, 3", chunkName: "=r")
        _ = try vm.load("return 1", chunkName: "=l")
        _ = try? vm.load("return (", chunkName: "=l")
        _ = try vm.call(f, [1, 2, 3])
        _ = try? vm.call(.integer(1))
        _ = try? vm.run("error('x')", chunkName: "=e")
        _ = try vm.rawGet(t, key: "x")
        _ = try vm.rawGet(t, index: 1)
        try vm.rawSet(t, key: "y", value: 4)
        _ = try? vm.rawSet(t, key: .nil, value: 4)
        _ = try? vm.rawGet(.integer(1), key: "x")
        _ = try vm.rawLength(t)
        _ = try vm.entries(t)
        _ = try vm.get(t, key: "x")
        try vm.set(t, key: "z", value: 1)
        _ = try? vm.get(.integer(3), key: "x")
        _ = try vm.length(t)
        _ = try vm.toString(t)
        _ = vm.globals
        _ = vm.newTable()
        _ = vm.function(named: "g") { _ in [] }
        let cls = vm.registerClass(LuaClassDefinition(name: "c"))
        let object = vm.wrap(Box(), as: cls)
        _ = vm.object(in: object, of: cls)
        _ = vm.object(in: t, of: cls)
        vm.collectGarbage()
        #expect(vm.stackTop == top)
        #expect(top == 0)
    }
}

import Testing

@testable import LuaHost

struct HostFailure: Error, CustomStringConvertible {
    var description: String { "the host said no" }
}

@Suite struct LuaHostFunctionTests {
    @Test func hostFunctionsReceiveArgumentsAndReturnResults() throws {
        let vm = try LuaVM()
        vm.register("join") { args in
            [.string(try args.string(1) + args.string(2)), .integer(Int64(args.count))]
        }
        #expect(try vm.run("return join('a', 'b')", chunkName: "=j") == ["ab", 2])
    }

    @Test func argumentErrorsReadLikeLuasOwn() throws {
        let vm = try LuaVM()
        vm.register("stack") { args in
            _ = try args.string(1)
            _ = try args.table(2)
            return []
        }
        let error = #expect(throws: LuaError.self) {
            try balanced(vm) { try vm.run("\nstack('x', nil)", chunkName: "@books.lua") }
        }
        #expect(error?.message == "books.lua:2: bad argument #2 to 'stack' (table expected, got nil)")
        let missing = #expect(throws: LuaError.self) { try vm.run("stack('x')", chunkName: "@b.lua") }
        #expect(missing?.message == "b.lua:1: bad argument #2 to 'stack' (table expected, got no value)")
        let integer = #expect(throws: LuaError.self) {
            vm.register("count") { args in [.integer(try args.integer(1))] }
            return try vm.run("count(1.5)", chunkName: "@c.lua")
        }
        #expect(integer?.message == "c.lua:1: bad argument #1 to 'count' (number has no integer representation)")
    }

    @Test func swiftErrorsBecomeLuaErrorsThatScriptsCanCatch() throws {
        let vm = try LuaVM()
        vm.register("refuse") { _ in throw HostFailure() }
        #expect(
            try vm.run("return pcall(function() refuse() end)", chunkName: "@h.lua") == [
                false, "h.lua:1: refuse: the host said no",
            ])
    }

    @Test func deferInAHostFunctionRunsWhenLuaRaises() throws {
        // Proof that no longjmp crosses a Swift frame: the defer block runs, and the error
        // still reaches the script.
        let vm = try LuaVM()
        let log = LineCollector()
        vm.register("guarded") { args in
            defer { log.append("defer ran") }
            _ = try args.table(1)
            return []
        }
        #expect(try vm.run("return pcall(guarded, 1)", chunkName: "=d")[0] == false)
        #expect(log.lines == ["defer ran"])
    }

    @Test func hostFunctionsCanCallBackIntoLua() throws {
        let vm = try LuaVM()
        vm.register("apply") { args in
            try args.vm.call(.function(try args.function(1)), [args[2]])
        }
        #expect(try vm.run("return apply(function(x) return x + 1, 'ok' end, 41)", chunkName: "=a") == [42, "ok"])
    }

    @Test func errorsFromNestedCallsKeepTheirPosition() throws {
        let vm = try LuaVM()
        vm.register("apply") { args in try args.vm.call(.function(try args.function(1))) }
        let error = #expect(throws: LuaError.self) {
            try vm.run("apply(function()\n error('inner') end)", chunkName: "@n.lua")
        }
        #expect(error?.message == "n.lua:2: inner")
    }

    @Test func cStackOverflowThroughReentrantHostFunctionsIsAnError() throws {
        let vm = try LuaVM()
        vm.register("again") { args in try args.vm.call(.function(try args.function(1)), [args[1]]) }
        let error = #expect(throws: LuaError.self) {
            try vm.run("local function f(self) return again(self) end return f(f)", chunkName: "@re.lua")
        }
        #expect(error?.message.contains("stack overflow") == true)
        expectHealthy(vm)
    }

    @Test func yieldingAcrossAHostFunctionIsAnErrorNotACrash() throws {
        let vm = try LuaVM()
        vm.register("apply") { args in try args.vm.call(.function(try args.function(1))) }
        let result = try vm.run(
            "local co = coroutine.create(function() apply(function() coroutine.yield(1) end) end) return coroutine.resume(co)",
            chunkName: "@y.lua")
        #expect(result[0] == false)
        #expect(result[1].stringValue?.contains("attempt to yield across a C-call boundary") == true)
        expectHealthy(vm)
    }

    @Test func hostFunctionsCalledFromCoroutinesUseTheCoroutineStack() throws {
        let vm = try LuaVM()
        vm.register("twice") { args in [.integer(try args.integer(1) * 2)] }
        let result = try vm.run(
            "local co = coroutine.wrap(function(a) local b = coroutine.yield(twice(a)) return twice(b) end) return co(1), co(5)",
            chunkName: "=co")
        #expect(result == [2, 10])
    }

    @Test func aReleasedReferenceCannotBeUsed() throws {
        let vm = try LuaVM()
        let f = try vm.run("return function() return 1 end", chunkName: "=f")[0]
        f.reference?.release()
        #expect(f.reference?.isReleased == true)
        let error = #expect(throws: LuaError.self) { try vm.call(f) }
        #expect(error?.kind == .released)
        expectHealthy(vm)
    }

    @Test func aClosedVMThrowsAndReleasingAfterCloseIsHarmless() throws {
        let vm = try LuaVM()
        let t = vm.newTable()
        vm.close()
        #expect(vm.isClosed)
        #expect(throws: LuaError.closedVM) { try vm.run("return 1", chunkName: "=c") }
        #expect(throws: LuaError.closedVM) { try vm.rawGet(t, key: "x") }
        t.reference?.release()
        vm.close()
    }

    @Test func referencesAreReleasedDeterministically() throws {
        let vm = try LuaVM()
        _ = try vm.run("weak = setmetatable({}, { __mode = 'v' })", chunkName: "=w")
        do {
            let t = try vm.run("local t = {} weak[1] = t return t", chunkName: "=w")[0]
            vm.collectGarbage()
            #expect(try vm.run("return weak[1] ~= nil", chunkName: "=w") == [true], "held by Swift")
            _ = t
        }
        vm.collectGarbage()
        #expect(try vm.run("return weak[1] == nil", chunkName: "=w") == [true], "released with the last Swift copy")
    }

    @Test func hostObjectsHaveIndexNewIndexAndTostring() throws {
        let vm = try LuaVM()
        let view = View()
        let cls = vm.registerClass(
            LuaClassDefinition(
                name: "view",
                index: { object, key in (object as? View)?.attributes[key.stringValue ?? ""] ?? .nil },
                newIndex: { object, key, value in
                    guard let name = key.stringValue, name != "kind" else { throw HostFailure() }
                    (object as? View)?.attributes[name] =
                        value.stringValue.map(LuaValue.string) ?? value.integerValue.map(LuaValue.integer) ?? .nil
                },
                toString: { _ in "view(screen)" }))
        try vm.rawSet(vm.globals, key: "v", value: vm.wrap(view, as: cls))
        #expect(
            try vm.run("v.badge = 3 return v.kind, v.badge, tostring(v)", chunkName: "=v") == [
                "screen", 3, "view(screen)",
            ])
        #expect(view.attributes["badge"] == 3)
        let error = #expect(throws: LuaError.self) { try vm.run("v.kind = 'x'", chunkName: "@v.lua") }
        #expect(error?.message == "v.lua:1: __newindex: the host said no")
        #expect(vm.object(in: try vm.rawGet(vm.globals, key: "v"), of: cls) === view)
    }

    /// `forEachField` reads a table argument in place: every entry once, across batches (64 a call),
    /// scalars and strings by value, objects of the class as objects, and the rest (tables,
    /// functions, other userdata, table keys) as references that still work.
    @Test func fieldsReadATableArgumentInPlace() throws {
        let vm = try LuaVM()
        let cls = vm.registerClass(LuaClassDefinition(name: "view"))
        let other = vm.registerClass(LuaClassDefinition(name: "other"))
        let views = (0..<40).map { _ in View() }
        try vm.rawSet(vm.globals, key: "other", value: vm.wrap(View(), as: other))
        for (index, view) in views.enumerated() {
            try vm.rawSet(vm.globals, key: .string("v\(index)"), value: vm.wrap(view, as: cls))
        }
        var seen: [(key: LuaValue, value: LuaField)] = []
        vm.register("read") { args in
            try args.forEachField(1, objects: cls) { key, value in seen.append((key, value)) }
            return []
        }
        let views40 = (0..<40).map { "v\($0)" }.joined(separator: ", ")
        _ = try vm.run(
            """
            local t = { \(views40), title = "Dune", n = 7, x = 1.5, flag = false, f = print,
                        list = { 1, 2 }, [{}] = "table key", other = other, [3.5] = "float key" }
            for i = 1, 30 do t["k" .. i] = i end
            read(t)
            """, chunkName: "=fields")
        #expect(seen.count == 40 + 9 + 30)
        var objects: [Int64: AnyObject] = [:]
        var named: [String: LuaValue] = [:]
        var others: [LuaValue] = []
        for (key, value) in seen {
            switch (key, value) {
            case (.integer(let index), .object(let object)): objects[index] = object
            case (.string(let name), .value(let value)): named[name] = value
            case (_, .value(let value)): others.append(value)
            default: Issue.record("unexpected \(key) = \(value)")
            }
        }
        #expect((1...40).allSatisfy { objects[Int64($0)] === views[$0 - 1] })
        #expect(named["title"] == "Dune" && named["n"] == 7 && named["x"] == .number(1.5))
        #expect(named["flag"] == .boolean(false) && named["k30"] == 30)
        guard case .function = named["f"], case .table(let list) = named["list"], case .userdata = named["other"]
        else {
            Issue.record("tables, functions and other userdata come as references: \(named)")
            return
        }
        #expect(try vm.rawGet(.table(list), index: 2) == 2)
        #expect(Set(others.compactMap(\.stringValue)) == ["table key", "float key"])
        let tableKeys = seen.filter { if case .table = $0.key { true } else { false } }
        #expect(tableKeys.count == 1)

        let error = #expect(throws: LuaError.self) { try vm.run("read('x')", chunkName: "=f") }
        #expect(error?.message == "f:1: bad argument #1 to 'read' (table expected, got string)")

        // A read inside another's body (its own batch): both see all their entries.
        var outer: [String] = []
        var inner: [String] = []
        vm.register("nested") { args in
            try args.forEachField(1, objects: cls) { key, _ in
                outer.append(key.stringValue ?? "")
                if outer.count == 1 {
                    try args.forEachField(2, objects: cls) { key, _ in inner.append(key.stringValue ?? "") }
                }
            }
            return []
        }
        _ = try vm.run(
            """
            local a, b = {}, {}
            for i = 1, 70 do a["a" .. i] = i; b["b" .. i] = v1 end
            nested(a, b)
            """, chunkName: "=nested")
        #expect(Set(outer) == Set((1...70).map { "a\($0)" }) && outer.count == 70)
        #expect(Set(inner) == Set((1...70).map { "b\($0)" }) && inner.count == 70)
    }

    /// The first batch of a read runs without a protected call (nothing in it can raise); a
    /// body that changes the table under the read makes the next batch's key invalid, and that
    /// batch — protected — reports it as an error instead of escaping the host.
    @Test func aTableChangedUnderItsReadIsAnErrorNotACrash() throws {
        let vm = try LuaVM()
        var seen = 0
        vm.register("churn") { [unowned vm] args in  // the VM owns the function: no cycle
            try args.forEachField(1, objects: nil) { _, _ in
                seen += 1
                if seen == 1 {
                    _ = try vm.run(
                        """
                        for k in pairs(victim) do victim[k] = nil end
                        for i = 1, 300 do victim["z" .. i] = i end
                        """, chunkName: "=churn")
                }
            }
            return []
        }
        let error = #expect(throws: LuaError.self) {
            try vm.run(
                """
                victim = {}
                for i = 1, 100 do victim["a" .. i] = i end
                churn(victim)
                """, chunkName: "=read")
        }
        #expect(error?.message.contains("invalid key to 'next'") == true, "\(String(describing: error))")
        #expect(seen == 64)  // the first batch, read whole before the body changed the table
        #expect(try vm.run("return 1 + 1", chunkName: "=after") == [2])  // the VM goes on
    }

    /// A constructor's object reaches Lua as a userdata of its class, and is released when
    /// Lua collects it.
    @Test func aConstructorReturnsItsObjectAsUserdata() throws {
        weak var weakView: View?
        let vm = try LuaVM()
        let cls = vm.registerClass(LuaClassDefinition(name: "view", toString: { _ in "a view" }))
        try vm.rawSet(
            vm.globals, key: "make",
            value: vm.constructor(named: "make", class: cls) { args in
                let view = View()
                view.attributes["name"] = args[1]
                weakView = view
                return view
            })
        let made = try vm.run("v = make('tab') return tostring(v), type(v)", chunkName: "=c")
        #expect(made == ["a view", "userdata"])
        do {
            let view = vm.object(in: try vm.rawGet(vm.globals, key: "v"), of: cls) as? View
            #expect(view?.attributes["name"] == "tab")
        }
        _ = try vm.run("v = nil", chunkName: "=c")
        vm.collectGarbage()
        #expect(weakView == nil)
    }

    @Test func hostObjectsAreReleasedWhenLuaCollectsThem() throws {
        weak var weakView: View?
        let vm = try LuaVM()
        let cls = vm.registerClass(LuaClassDefinition(name: "view"))
        do {
            let view = View()
            weakView = view
            try vm.rawSet(vm.globals, key: "v", value: vm.wrap(view, as: cls))
        }
        #expect(weakView != nil)
        _ = try vm.run("v = nil", chunkName: "=g")
        vm.collectGarbage()
        #expect(weakView == nil)
    }

    @Test func closingTheVMReleasesHostObjectsAndFunctions() throws {
        weak var weakView: View?
        weak var weakCapture: View?
        var vm: LuaVM? = try LuaVM()
        do {
            let view = View()
            let captured = View()
            weakView = view
            weakCapture = captured
            let cls = vm!.registerClass(LuaClassDefinition(name: "view"))
            try vm!.rawSet(vm!.globals, key: "v", value: vm!.wrap(view, as: cls))
            vm!.register("f") { _ in [.string(captured.attributes.description)] }
        }
        vm = nil
        #expect(weakView == nil)
        #expect(weakCapture == nil)
    }
}

final class View {
    var attributes: [String: LuaValue] = ["kind": "screen"]
}

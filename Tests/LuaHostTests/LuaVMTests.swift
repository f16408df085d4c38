import Testing

@testable import LuaHost

/// Runs `body` and checks that the VM's stack is where it was.
func balanced<T>(_ vm: LuaVM, _ body: () throws -> T) rethrows -> T {
    let top = vm.stackTop
    defer { #expect(vm.stackTop == top, "the Lua stack is unbalanced") }
    return try body()
}

/// The VM still runs ordinary code correctly.
func expectHealthy(_ vm: LuaVM, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        let result = try vm.run(
            "local t = {} for i = 1, 10 do t[i] = i * i end return table.concat(t, ',')",
            chunkName: "=healthy")
        #expect(result == ["1,4,9,16,25,36,49,64,81,100"], sourceLocation: sourceLocation)
    } catch {
        Issue.record("the VM is not healthy: \(error)", sourceLocation: sourceLocation)
    }
}

@Suite struct LuaVMTests {
    @Test func runsAChunkAndReturnsItsValues() throws {
        let vm = try LuaVM()
        let values = try balanced(vm) {
            try vm.run("return nil, true, 42, 2.5, 'hi', {}", chunkName: "=t")
        }
        #expect(values.count == 6)
        #expect(values[0] == .nil)
        #expect(values[1] == .boolean(true))
        #expect(values[2] == .integer(42))
        #expect(values[3] == .number(2.5))
        #expect(values[4] == .string("hi"))
        #expect(values[5].typeName == "table")
    }

    @Test func valuesRoundTripThroughLua() throws {
        let vm = try LuaVM()
        let identity = try vm.run("return function(...) return ... end", chunkName: "=id")[0]
        let table = vm.newTable()
        let function = vm.function(named: "f") { _ in [] }
        let object = vm.wrap(Box(), as: vm.registerClass(LuaClassDefinition(name: "box")))
        let thread = try vm.run("return coroutine.create(function() end)", chunkName: "=co")[0]
        let inputs: [LuaValue] = [
            .nil, false, true, 0, -7, .integer(Int64.max), 1.5, "", "é ∑ \u{0}x", table, function,
            object, thread,
        ]
        let outputs = try balanced(vm) { try vm.call(identity, inputs) }
        #expect(outputs.count == inputs.count)
        for (input, output) in zip(inputs, outputs) {
            #expect(input.typeName == output.typeName)
            if input.reference == nil { #expect(input == output) }
        }
        // Same Lua object, new reference: rawequal in Lua.
        let same = try vm.run(
            "return function(a, b) return rawequal(a, b) end", chunkName: "=eq")[0]
        #expect(try vm.call(same, [table, outputs[9]]) == [true])
    }

    @Test func chunkNamesGiveFileAndLine() throws {
        let vm = try LuaVM()
        let error = #expect(throws: LuaError.self) {
            try vm.run("local x = 1\nerror('boom')", chunkName: "@books.lua")
        }
        #expect(error?.kind == .runtime)
        #expect(error?.message == "books.lua:2: boom")
        #expect(error?.location == LuaError.Location(file: "books.lua", line: 2))
        #expect(
            error?.traceback
                == "stack traceback:\n\t[C]: in function 'error'\n\tbooks.lua:2: in main chunk")
    }

    @Test func syntaxErrorsAreSyntaxErrors() throws {
        let vm = try LuaVM()
        let error = #expect(throws: LuaError.self) {
            try balanced(vm) { try vm.load("return (", chunkName: "@broken.lua") }
        }
        #expect(error?.kind == .syntax)
        #expect(error?.message == "broken.lua:1: unexpected symbol near <eof>")
        #expect(error?.location?.line == 1)
        expectHealthy(vm)
    }

    @Test func tablesAreReadRawly() throws {
        let vm = try LuaVM()
        let t = try vm.run(
            """
            return setmetatable({ 10, 20, name = 'n' },
              { __index = function() error('metamethod ran') end,
                __len = function() return 99 end })
            """, chunkName: "=t")[0]
        try balanced(vm) {
            #expect(try vm.rawGet(t, key: "name") == "n")
            #expect(try vm.rawGet(t, key: "missing") == .nil)
            #expect(try vm.rawGet(t, index: 2) == 20)
            #expect(try vm.rawLength(t) == 2)
            #expect(try vm.length(t) == 99)
            let entries = try vm.entries(t)
            #expect(entries.count == 3)
            #expect(entries.contains { $0.key == "name" && $0.value == "n" })
            try vm.rawSet(t, key: "added", value: 5)
            #expect(try vm.rawGet(t, key: "added") == 5)
        }
        let error = #expect(throws: LuaError.self) { try vm.get(t, key: "missing") }
        #expect(error?.message.hasSuffix("metamethod ran") == true)
        #expect(throws: LuaError.self) { try vm.rawSet(t, key: .nil, value: 1) }
    }

    @Test func globalsAreReachable() throws {
        let vm = try LuaVM()
        try vm.rawSet(vm.globals, key: "answer", value: 42)
        #expect(try vm.run("return answer", chunkName: "=g") == [42])
        _ = try vm.run("greeting = 'hello'", chunkName: "=g")
        #expect(try vm.rawGet(vm.globals, key: "greeting") == "hello")
    }

    @Test func printGoesToTheOutputHandler() throws {
        let lines = LineCollector()
        var options = LuaVM.Options()
        options.output = { lines.append($0) }
        let vm = try LuaVM(options: options)
        _ = try vm.run(
            "print('a', 1, nil, setmetatable({}, { __tostring = function() return 'T' end }))",
            chunkName: "=p")
        #expect(lines.lines == ["a\t1\tnil\tT"])
    }

    @Test func toStringUsesTostringMetamethods() throws {
        let vm = try LuaVM()
        let v = try vm.run(
            "return setmetatable({}, { __tostring = function() return 'custom' end })",
            chunkName: "=s")[0]
        #expect(try balanced(vm) { try vm.toString(v) } == "custom")
        #expect(try vm.toString(.number(2)) == "2.0")
        #expect(try vm.toString(.integer(2)) == "2")
    }
}

final class Box {}

extension LuaVM {
    /// Runs a chunk and returns its first result as a string (tests).
    func evaluateForTest(_ chunk: String) throws -> String {
        try toString(run(chunk, chunkName: "=t")[0])
    }
}

final class LineCollector: @unchecked Sendable {
    private var storage: [String] = []
    func append(_ line: String) { storage.append(line) }
    var lines: [String] { storage }
}

@Suite struct MakeTableTests {
    /// A table built in place as a call's last argument: the function gets it after the first
    /// argument, a live slot of this state keeps it (the same table, for a later call; Lua
    /// code that kept the previous one keeps that), a released or foreign slot is left alone,
    /// and a failing call leaves the stack as it was.
    @Test func callBuildingItsLastArgumentKeepsItInTheSlot() throws {
        let vm = try LuaVM()
        let record = try vm.run(
            "return function(a, b) seen = b return tostring(a) .. ':' .. (b or a).n end", chunkName: "=r")[0]
        let slot = vm.newTable()
        let one = try balanced(vm) {
            try vm.call(record, .string("x"), buildingTable: 1, keepingIn: slot) { t in t.set("n", .integer(1)) }
        }
        #expect(one == [.string("x:1")])
        #expect(try vm.rawGet(slot, key: "n") == 1)
        let same = try vm.run("return function(t) return rawequal(seen, t) end", chunkName: "=s")[0]
        #expect(try vm.call(same, slot) == [.boolean(true)])
        _ = try vm.run("first = seen", chunkName: "=k")
        let two = try balanced(vm) {
            try vm.call(record, nil, buildingTable: 1, keepingIn: slot) { t in
                t.set("n", .integer(2))
                t.set("nested", fieldCapacity: 1) { inner in inner.set("deep", "yes") }
            }
        }
        #expect(two.first?.stringValue?.hasSuffix(":2") == true)
        #expect(try vm.rawGet(slot, key: "n") == 2)
        // The slot holds the new table; Lua code that kept the old one still has it.
        #expect(try vm.evaluateForTest("return first.n") == "1")
        let other = try LuaVM()
        let foreign = other.newTable()
        _ = try vm.call(record, .string("f"), buildingTable: 1, keepingIn: foreign) { t in t.set("n", .integer(3)) }
        #expect(try other.rawGet(foreign, key: "n") == .nil)
        let released = vm.newTable()
        released.reference?.release()
        #expect(
            try vm.call(record, .string("r"), buildingTable: 1, keepingIn: released) { t in t.set("n", .integer(4)) }
                == [.string("r:4")])
        let fail = try vm.run("return function(a, b) error('no ' .. b.n) end", chunkName: "=f")[0]
        let error = #expect(throws: LuaError.self) {
            try balanced(vm) {
                try vm.call(fail, .string("x"), buildingTable: 1, keepingIn: slot) { t in t.set("n", .integer(5)) }
            }
        }
        #expect(error?.message == "f:1: no 5")
        expectHealthy(vm)
    }

    @Test func makeTableBuildsFieldsInOneGoAndSkipsNil() throws {
        let vm = try LuaVM()
        let inner = vm.makeTable(["id": "42"])
        let table = balanced(vm) { vm.makeTable(["path": "books/42", "params": inner, "gone": .nil, "n": 3]) }
        #expect(try vm.rawGet(table, key: "path") == "books/42")
        #expect(try vm.rawGet(try vm.rawGet(table, key: "params"), key: "id") == "42")
        #expect(try vm.rawGet(table, key: "n") == 3)
        #expect(try vm.entries(table).count == 3)
        let reader = try vm.run("return function(t) return t.params.id .. t.path end", chunkName: "=r")[0]
        #expect(try vm.call(reader, [table]) == ["42books/42"])
    }

    @Test func aWriterBuildsNestedTablesInPlace() throws {
        let vm = try LuaVM()
        let shared = vm.makeTable(["idiom": "phone"])
        let released = vm.newTable()
        released.reference?.release()
        let table = balanced(vm) {
            vm.makeTable(fieldCapacity: 6) { t in
                t.set("path", "books/42")
                t.set("fragment", nil as String?)
                t.set("params", strings: ["id": "42", "page": "ü 2"])
                t.set("query", strings: [:])
                t.set("device", shared)
                t.set("gone", released)
                t.set("deep", fieldCapacity: 1) { deep in
                    deep.set("deeper", fieldCapacity: 1) { deeper in deeper.set("x", .integer(7)) }
                }
            }
        }
        let reader = try vm.run(
            """
            return function(t, shared)
              local n = 0 for _ in pairs(t) do n = n + 1 end
              local q = 0 for _ in pairs(t.query) do q = q + 1 end
              return t.path, t.params.id, t.params.page, q, t.device == shared, t.deep.deeper.x, n, t.fragment, t.gone
            end
            """, chunkName: "=r")[0]
        #expect(try vm.call(reader, [table, shared]) == ["books/42", "42", "ü 2", 0, true, 7, 5, .nil, .nil])
    }

    /// Entries are read in batches of 64 pairs per protected call; tables of every size
    /// around the batch edges come back whole, and the stack stays balanced.
    @Test(arguments: [0, 1, 63, 64, 65, 128, 129, 1000])
    func entriesReadWholeTablesInBatches(count: Int) throws {
        let vm = try LuaVM()
        let t = try vm.run(
            "local t = {} for i = 1, \(count) do t['k' .. i] = i end t[1] = 'array' return t", chunkName: "=t")[0]
        let entries = try balanced(vm) { try vm.entries(t) }
        #expect(entries.count == count + 1)
        #expect(
            Set(
                entries.compactMap { entry -> String? in
                    if case .string(let key) = entry.key { return key }
                    return nil
                }
            ).count == count)
        #expect(entries.contains { $0.key == 1 && $0.value == "array" })
        let sum = entries.reduce(Int64(0)) { total, entry in
            if case .integer(let n) = entry.value { return total + n }
            return total
        }
        #expect(sum == Int64(count * (count + 1) / 2))
    }

    @Test func aWriterOnAClosedStateMakesNothing() throws {
        let vm = try LuaVM()
        vm.close()
        var ran = false
        #expect(vm.makeTable(fieldCapacity: 1) { _ in ran = true } == .nil)
        #expect(!ran)
    }
}

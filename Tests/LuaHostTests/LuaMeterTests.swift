import Testing

@testable import LuaHost

/// Library functions that loop in C (where the instruction hook never runs) are metered:
/// runaway code built from them stops at the deadline, at load time and in calls.
@Suite struct LuaMeterTests {
    /// Loops whose work is done inside C library functions; before metering, each of these ran
    /// for seconds to hours past a 100 ms deadline.
    static let catalogue = [
        "for i = 1, 1e6 do local s = string.rep('x', 2.5e7) end",
        "local t = {} for i = 1, 1000 do t[i] = string.rep('y', 1000) end for i = 1, 1e6 do local s = table.concat(t) end",
        "local t = {} for i = 1, 1e6 do t[i] = 'z' end for i = 1, 1e6 do local s = table.concat(t, ',') end",
        "local s = string.rep('a', 2e7) for i = 1, 1e6 do local u = s:upper() end",
        "local s = string.rep('ab', 1e7) for i = 1, 1e6 do local r = s:reverse() end",
        "local t = {} for i = 1, 1e6 do t[i] = i end for i = 1, 1e6 do table.insert(t, 1, i) end",
        "local t = {} for i = 1, 1e6 do t[i] = i end for i = 1, 1e6 do table.remove(t, 1) end",
        "for i = 1, 1e6 do table.move({}, 1, 2^40, 1) end",
        "local t = {} for i = 1, 1e6 do t[i] = (i * 7919) % 1000003 end for i = 1, 1e6 do table.sort(t) end",
        "local s = string.rep('a', 3e6) local p = string.rep('a', 3000) .. 'b' for i = 1, 1e6 do s:find(p, 1, true) end",
        "local s = string.rep('a', 3e7) for i = 1, 1e6 do utf8.len(s) end",
        "local s = string.rep('a', 9e5) for i = 1, 1e6 do local n = select('#', s:byte(1, -1)) end",
        "local t = {} for i = 1, 9e5 do t[i] = i end for i = 1, 1e6 do local n = select('#', table.unpack(t)) end",
        "local s = string.rep('q', 1e7) for i = 1, 1e6 do local r = string.format('%s%s', s, s) end",
        "local src = 'return ' .. string.rep('1+', 1e6) .. '1' for i = 1, 1e6 do load(src) end",
        "local src = '--[[' .. string.rep(' ', 3e7) .. ']]' for i = 1, 1e6 do load(src) end",
        "local co = coroutine.wrap(function() for i = 1, 1e6 do local s = string.rep('x', 2.5e7) end end) co()",
        "for i = 1, 1e6 do pcall(string.rep, 'x', 2.5e7) end",
    ]

    @Test(arguments: catalogue)
    func libraryLoopsStopAtTheLoadDeadline(source: String) throws {
        let vm = try LuaLimitsTests.vm(deadline: .milliseconds(100), budget: 0)
        var error: LuaError?
        let time = elapsed {
            error = #expect(throws: LuaError.self) { try vm.run(source, chunkName: "@heavy.lua") }
        }
        #expect(error?.kind == .deadline, "\(String(describing: error))")
        #expect(error?.message.contains("deadline exceeded") == true)
        // A hang guard, not a speed assertion: unmetered, these ran for seconds or hours.
        #expect(time < .milliseconds(100 + 1000 * slowdown), "stopped after \(time)")
        expectHealthy(vm)
    }

    @Test(arguments: catalogue)
    func libraryLoopsStopAtTheCallDeadline(source: String) throws {
        let vm = try LuaLimitsTests.vm(deadline: .milliseconds(100), budget: 0)
        let function = try vm.run("return function() \(source) end", chunkName: "@heavy.lua")[0]
        var error: LuaError?
        let time = elapsed {
            error = #expect(throws: LuaError.self) { try balanced(vm) { try vm.call(function) } }
        }
        #expect(error?.kind == .deadline, "\(String(describing: error))")
        #expect(error?.location?.file == "heavy.lua" || error?.message.contains("in a library function") == true)
        #expect(time < .milliseconds(100 + 1000 * slowdown), "stopped after \(time)")
        expectHealthy(vm)
    }

    @Test func libraryWorkIsChargedToTheBudget() throws {
        let vm = try LuaLimitsTests.vm(deadline: nil, budget: 1_000_000)
        let error = #expect(throws: LuaError.self) {
            try vm.run("for i = 1, 1e6 do local s = string.rep('x', 1e6) end", chunkName: "@rep.lua")
        }
        #expect(error?.kind == .budget)
        #expect(error?.message == "rep.lua:1: instruction budget exceeded")
        // 1e6 bytes are 15,625 instructions: the budget runs out after about 64 copies, long
        // before the loop's own instructions would have used it.
        #expect(try vm.run("return string.rep('x', 1e6):len()", chunkName: "=ok") == [1_000_000])
    }

    /// A pattern call is charged by its steps: a plain gsub over 4 MB runs (no shape limit),
    /// and the budget stops one that is too much.
    @Test func patternCallsAreChargedByTheirSteps() throws {
        let vm = try LuaLimitsTests.vm(deadline: nil, budget: 100_000_000)
        #expect(try vm.run("return select(2, string.rep('ab', 2e6):gsub('a', 'b'))", chunkName: "=ok") == [2_000_000])
        let small = try LuaLimitsTests.vm(deadline: nil, budget: 200_000)
        let error = #expect(throws: LuaError.self) {
            try small.run("return (string.rep('ab', 2e6):gsub('a', 'b'))", chunkName: "@g.lua")
        }
        #expect(error?.kind == .budget)
        #expect(error?.message == "g.lua:1: instruction budget exceeded")
    }

    /// The metered replacements behave as the standard functions do.
    @Test(arguments: [
        ("return string.rep('ab', 3, '-')", "ab-ab-ab"),
        ("return string.rep('ab', 0)", ""),
        ("return string.rep('', 5, ',')", ",,,,"),
        ("return ('MiXeD 42'):upper() .. ('MiXeD 42'):lower()", "MIXED 42mixed 42"),
        ("return ('héllo'):reverse() == string.char(111,108,108,169,195,104)", "true"),
        ("return table.concat({1, 'a', 2.5}, ', ')", "1, a, 2.5"),
        ("return table.concat({1, 2, 3, 4}, '', 2, 3)", "23"),
        ("return table.concat({}, 'x')", ""),
        ("local t = {1, 2, 3} table.insert(t, 4) table.insert(t, 1, 0) return table.concat(t, ',')", "0,1,2,3,4"),
        ("local t = {1, 2, 3} table.insert(t, 2, 9) return table.concat(t, ',')", "1,9,2,3"),
        ("local t = {1, 2, 3} local r = table.remove(t, 1) return r .. ':' .. table.concat(t, ',')", "1:2,3"),
        (
            "local t = {1, 2, 3} local r = table.remove(t) return r .. ':' .. table.concat(t, ',') .. ':' .. #t",
            "3:1,2:2"
        ),
        ("local t = {} return tostring(table.remove(t)) .. #t", "nil0"),
        (
            "local ok, e = pcall(table.insert, {1}, 5, 2) return e",
            "bad argument #2 to 'table.insert' (position out of bounds)"
        ),
        ("local ok, e = pcall(table.insert, {1}, 1, 2, 3) return e", "wrong number of arguments to 'insert'"),
        (
            "local t = {} for i = 1, 10000 do t[i] = i end table.move(t, 1, 9999, 2) return t[1] .. ',' .. t[2] .. ',' .. t[10000]",
            "1,1,9999"
        ),
        (
            "local t = {} for i = 1, 10000 do t[i] = i end table.move(t, 2, 10000, 1) return t[1] .. ',' .. t[9999] .. ',' .. t[10000]",
            "2,10000,10000"
        ),
        (
            "local a, b = {}, {} for i = 1, 9000 do a[i] = i end table.move(a, 1, 9000, 3, b) return #b .. ',' .. b[3] .. ',' .. b[9002]",
            "9002,1,9000"
        ),
        ("local t = {5, 2, 8, 1} table.sort(t) return table.concat(t, ',')", "1,2,5,8"),
        (
            "local t = {5, 2, 8, 1} table.sort(t, function(a, b) return a > b end) return table.concat(t, ',')",
            "8,5,2,1"
        ),
        ("local ok, e = pcall(table.sort, {3, 'a', 1}) return tostring(ok)", "false"),
        ("return select('#', table.unpack({1, 2, 3}))", "3"),
        ("return select('#', table.unpack({1, 2, 3}, 2, 5))", "4"),
        ("return string.format('%d,%d', string.find('hello world', 'o w'))", "5,7"),
        ("return string.format('%d,%d', string.find('a.b.c', '.', 3, true))", "4,4"),
        ("return tostring(string.find('abc', 'x', 1, true))", "nil"),
        ("return string.format('%d,%d', string.find('abc', '', 10 - 7))", "3,2"),
        ("return tostring(string.find('abc', 'c', 10, true))", "nil"),
        ("return string.format('%d,%d', string.find('abcabc', 'bc', -3, true))", "5,6"),
        ("return utf8.len('héllo wörld')", "11"),
        ("local s = string.rep('é', 700000) return utf8.len(s) .. ',' .. utf8.len(s, 3)", "700000,699999"),
        (
            "local s = string.rep('a', 2^21) .. '\\255' local n, at = utf8.len(s) return tostring(n) .. ',' .. at",
            "nil,2097153"
        ),
        ("return load('return 1 + 2')()", "3"),
        ("local f, e = load('return +') return e", "[string \"return +\"]:1: unexpected symbol near '+'"),
        ("return load(string.rep(' ', 3e6) .. 'return 7', 'big')()", "7"),
    ])
    func meteredFunctionsBehaveAsTheStandardOnes(source: String, expected: String) throws {
        let vm = try LuaLimitsTests.vm(deadline: .seconds(10))
        let result = try vm.run("local r = (function() \(source) end)() return tostring(r)", chunkName: "=m")
        #expect(result == [.string(expected)])
    }
}

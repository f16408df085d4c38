import CLuaShims
import Glibc
import Testing

@testable import LuaHost

/// Luna's step-counting pattern matcher gives what Lua's own string.find, match, gmatch and
/// gsub give: the same chunk runs in a sandboxed VM and in a plain state with the originals.
@Suite struct LuaPatternTests {
    /// Runs `chunk` (which returns a string) with Lua's own library.
    static func reference(_ chunk: String) -> String {
        guard let result = clua_reference_eval(chunk) else { return "no result" }
        defer { free(result) }
        return String(cString: result)
    }

    /// A chunk that runs every call on every subject and returns one line per call.
    static func chunk(_ calls: [String], subjects: [String]) -> String {
        let quoted = subjects.map { "\"" + $0.unicodeScalars.map { "\\\($0.value)" }.joined() + "\"" }
        return """
            local subjects = { \(quoted.joined(separator: ", ")) }
            local out = {}
            local function show(...)
              local n = select('#', ...)
              local parts = {}
              for i = 1, n do parts[i] = tostring((select(i, ...))) end
              return table.concat(parts, ',')
            end
            for _, s in ipairs(subjects) do
            \(calls.map { "  do local ok, r = pcall(function() return show(\($0)) end) out[#out + 1] = tostring(ok) .. ':' .. (ok and r or tostring(r):gsub('^.-:%d+: ', '')) end" }.joined(separator: "\n"))
            end
            return table.concat(out, '\\n')
            """
    }

    static func compare(_ calls: [String], subjects: [String]) throws -> [String] {
        let text = chunk(calls, subjects: subjects)
        let expected = reference(text).split(separator: "\n", omittingEmptySubsequences: false)
        // Every call ran (a chunk that failed to load would give one "error: …" line).
        #expect(expected.count == calls.count * subjects.count, "\(expected.prefix(2))")
        let vm = try LuaVM()
        let actual = try vm.run(text, chunkName: "=cases").first.map { "\($0)" } ?? ""
        let lines = actual.split(separator: "\n", omittingEmptySubsequences: false)
        var differences: [String] = []
        for (k, (e, a)) in zip(expected, lines).enumerated() where e != a {
            differences.append("call \(calls[k % calls.count]) on subject \(k / calls.count): Lua \(e), Luna \(a)")
        }
        if expected.count != lines.count { differences.append("\(expected.count) lines, Luna \(lines.count)") }
        return differences
    }

    @Test func handWrittenCasesAgreeWithLua() throws {
        let calls = [
            "s:find('b')", "s:find('b', 3)", "s:find('b', -2)", "s:find('', 10)", "s:find('a.', 1, true)",
            "s:find('^a')", "s:find('c$')", "s:find('(a)(b)')", "s:find('()b()')", "s:match('%a+')",
            "s:match('(%d+)%.?(%d*)')", "s:match('%s*(.-)%s*$')", "s:match('[%w_]+')", "s:match('[^%s]+')",
            "s:match('[a-c]+')", "s:match('[]]')", "s:match('[a-]+')", "s:match('%bab')", "s:match('%b()')",
            "s:match('%f[%w]%w+')", "s:match('%f[%W]')", "s:match('(a+)%1')", "s:match('(a*(.)%w(%s*))')",
            "s:match('a-b')", "s:match('a?b')", "s:match('.-$')", "s:match('^(%S+)')", "s:gsub('a', 'x')",
            "s:gsub('%w+', '<%0>')", "s:gsub('(%w)(%w)', '%2%1')", "s:gsub('', '-')", "s:gsub('a*', '-')",
            "s:gsub('%s', '', 1)", "s:gsub('^%s*', '')", "s:gsub('%w', {a = 'A', b = true})",
            "s:gsub('%w+', function(w) return #w > 2 and w:upper() end)", "s:gsub('()', '%1')",
            "s:gsub('x', '%%')", "s:gsub('b', '%2')", "s:gsub('b', '%z')", "s:match('%')", "s:match('[a')",
            "s:match('(()')", "s:match('%1')", "s:match('%f')", "s:gsub('(a)', '%1', -1)",
            "(function() local t = {} for a, b in s:gmatch('(%w)(%w?)') do t[#t+1] = a .. b end return table.concat(t, '|') end)()",
            "(function() local t = {} for w in s:gmatch('a*') do t[#t+1] = w end return table.concat(t, '|') end)()",
            "(function() local t = {} for p in s:gmatch('()') do t[#t+1] = p end return table.concat(t, '|') end)()",
            "(function() local t = {} for w in s:gmatch('%a+', 3) do t[#t+1] = w end return table.concat(t, '|') end)()",
            "s:match(string.rep('a?', 5) .. 'b')", "s:find('%d', 100)", "s:match('%x+')", "s:match('%p')",
            "s:match('%c')", "s:match('%u%l')", "s:match('%g+')",
        ]
        let subjects = [
            "ab", "aab c", "  hello world  ", "12.5x", "(a(b)c) [d]", "", "ba ab aab", "A\u{1}b_9 ~", "aaaa",
            "a.b.c", "THE end",
        ]
        let differences = try Self.compare(calls, subjects: subjects)
        #expect(differences.isEmpty, "\(differences.count): \(differences.prefix(8))")
        // Spot checks of the reference itself.
        let one = Self.reference(Self.chunk(["s:gsub('(%w)(%w)', '%2%1')", "s:match('%')"], subjects: ["abcd"]))
        #expect(one == "true:badc,2\nfalse:malformed pattern (ends with '%')")
    }

    /// Random patterns over a small alphabet, 3,000 calls of each function.
    @Test func randomPatternsAgreeWithLua() throws {
        var generator = SplitMix(state: 54)
        let atoms = ["a", "b", ".", "%a", "%d", "[ab]", "[^a]", "%s", "[a-c%d]", "%%", "%.", "%w", "%W"]
        let quantifiers = ["", "", "*", "+", "-", "?"]
        var calls: [String] = []
        for _ in 0..<250 {
            var pattern = Int.random(in: 0..<4, using: &generator) == 0 ? "^" : ""
            var open = 0
            for _ in 0..<Int.random(in: 1...5, using: &generator) {
                switch Int.random(in: 0..<10, using: &generator) {
                case 0 where open < 3:
                    pattern += "("
                    open += 1
                case 1 where open > 0:
                    pattern += ")"
                    open -= 1
                case 2: pattern += "%b()"
                case 3: pattern += "%f[%w]"
                default:
                    pattern += atoms.randomElement(using: &generator)! + quantifiers.randomElement(using: &generator)!
                }
            }
            pattern += String(repeating: ")", count: open)
            if Int.random(in: 0..<5, using: &generator) == 0 { pattern += "$" }
            let quoted = "'" + pattern + "'"
            calls += [
                "s:find(\(quoted))", "s:match(\(quoted))", "s:gsub(\(quoted), '[%0]')",
                "(function() local t = {} for a in s:gmatch(\(quoted)) do t[#t+1] = tostring(a) end return table.concat(t, '|') end)()",
            ]
        }
        let subjects = ["ab(a)b 12", "aabba", "(()) x.y", " b9a", "", "a%b"]
        let differences = try Self.compare(calls, subjects: subjects)
        #expect(differences.isEmpty, "\(differences.count): \(differences.prefix(8))")
    }
}

/// SplitMix64, for reproducible random cases.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

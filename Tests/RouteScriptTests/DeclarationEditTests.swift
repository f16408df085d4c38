import Foundation
import LuaHost
import RouteCore
import RouteCoreOracle
import Testing

@testable import RouteScript

/// A save that changes one string of one declaration of a script that runs no Lua is applied
/// to the kept declarations without running the script; anything else runs it. Either way the
/// reload must end where a fresh load of the saved text does.
@Suite struct DeclarationEditTests {
    static let base = """
        local detail = endpoint { "books/:id", title = "Book", sample = { id = { "42" } } }
        return junction { title = "Main", initial = "books",
          stack { title = "Books",
            endpoint { "books", title = "Books", name = "books",
              children = { detail },
            },
          },
          stack { title = "Authors", id = "authors-tab",
            endpoint { "authors", title = "Authors" },
            endpoint { regex = "^people/[0-9]+$", title = "Person", where = { } },
          },
        }
        """

    /// `base` with `old` replaced by `new` (once; `old` must be there).
    static func edited(_ old: String, _ new: String, in text: String = base) -> String {
        precondition(text.contains(old), "no '\(old)' in the script")
        return text.replacingOccurrences(
            of: old, with: new, options: [], range: text.range(of: old))
    }

    // MARK: What counts as an edit

    @Test func oneStringOfADeclarationIsAnEdit() throws {
        let cases: [(String, String, Int, NodeKind, DeclarationEdit.Field)] = [
            ("\"books/:id\"", "\"tomes/:id\"", 1, .endpoint, .pattern),
            ("title = \"Book\"", "title = \"Tome\"", 1, .endpoint, .named("title")),
            ("name = \"books\"", "name = \"library\"", 4, .endpoint, .named("name")),
            ("id = \"authors-tab\"", "id = \"writers\"", 8, .stack, .named("id")),
            ("initial = \"books\"", "initial = \"authors\"", 2, .junction, .named("initial")),
            ("\"^people/[0-9]+$\"", "'^folk/[0-9]+$'", 10, .endpoint, .named("regex")),
            ("title = \"Main\"", "title = [==[Ma]]in]==]", 2, .junction, .named("title")),
            ("\"authors\",", "\"auth\\\"ors\",", 9, .endpoint, .pattern),
        ]
        for (old, new, line, kind, field) in cases {
            let edit = DeclarationEdit.find(old: Self.base, new: Self.edited(old, new))
            #expect(edit?.line == line, "\(old) -> \(new)")
            #expect(edit?.kind == kind, "\(old) -> \(new)")
            #expect(edit?.field == field, "\(old) -> \(new)")
        }
        let edit = DeclarationEdit.find(old: Self.base, new: Self.edited("\"Book\"", "\"Tome\""))
        #expect(edit?.oldLiteral == "\"Book\"")
        #expect(edit?.newLiteral == "\"Tome\"")
    }

    /// Saves of any bytes are read without a crash, and what is found an edit is one, as Lua
    /// itself runs the two texts with builders that record their calls: the same calls, line
    /// for line, but for the edited string's.
    @Test func anyBytesAreReadSafely() throws {
        var generator = SeededGenerator(seed: 2_026_112_8)
        let alphabet = Array("\"'[]=-{}\\\n\r zxq,;.:0e+".utf8) + [0, 0xC3, 0xA9, 0xFF]
        var options = LuaVM.Options()
        options.sandbox = .unsafe
        let oracle = try LuaVM(options: options)
        _ = try oracle.run(
            """
            local function record(kind)
              return function(t)
                local parts = {}
                for k, v in pairs(t) do
                  if type(v) == "string" then parts[#parts + 1] = tostring(k) .. "=" .. v end
                end
                table.sort(parts)
                -- A builder tail-called by `return` has no caller left to ask (Luna's are C
                -- functions, whose caller stays): "tail".
                local caller = debug.getinfo(2, "l")
                local line = caller and caller.currentline or "tail"
                log[#log + 1] = kind .. "@" .. line .. " " .. table.concat(parts, "|")
                return {}
              end
            end
            endpoint, stack, junction, fork, switcher =
              record("endpoint"), record("stack"), record("junction"), record("fork"), record("switcher")
            """, chunkName: "=oracle")
        /// The builder calls a text makes, or nil when Lua refuses it.
        func calls(_ text: String) -> [String]? {
            _ = try? oracle.run("log = {}", chunkName: "=reset")
            guard (try? oracle.run(text, chunkName: "=saved")) != nil,
                let values = try? oracle.run("return table.unpack(log)", chunkName: "=log")
            else { return nil }
            return values.map { if case .string(let call) = $0 { call } else { "?" } }
        }
        // The example, and a seeded script of every literal form among look-alike comments.
        var script = Script(generator: SeededGenerator(seed: 99))
        var edits = 0
        for text in [Self.base, Script.source(script.make())] {
            let loaded = try #require(calls(text))
            for _ in 0..<3_000 {
                var bytes = Array(text.utf8)
                for _ in 0..<Int.random(in: 1...3, using: &generator) {
                    let at = Int.random(in: 0...bytes.count, using: &generator)
                    switch Int.random(in: 0...2, using: &generator) {
                    case 0 where at < bytes.count: bytes.remove(at: at)
                    case 1 where at < bytes.count: bytes[at] = alphabet.randomElement(using: &generator) ?? 32
                    default: bytes.insert(alphabet.randomElement(using: &generator) ?? 32, at: at)
                    }
                }
                let saved = String(decoding: bytes, as: UTF8.self)
                guard let edit = DeclarationEdit.find(old: text, new: saved) else { continue }
                edits += 1
                guard let made = calls(saved) else {
                    // Lua refuses the saved text: then it refuses the new string (the reload runs
                    // the script, which says so).
                    #expect((try? oracle.run("return " + edit.newLiteral, chunkName: "=literal")) == nil, "\(edit)")
                    continue
                }
                #expect(made.count == loaded.count, "\(edit)")
                for (before, after) in zip(loaded, made) where before != after {
                    let call = before.prefix { $0 != " " }
                    #expect(
                        call == "\(edit.kind.rawValue)@\(edit.line)" || call == "\(edit.kind.rawValue)@tail",
                        "\(edit): \(before) -> \(after)")
                }
            }
        }
        #expect(edits > 200, "edits \(edits)")
    }

    @Test func anythingElseRunsTheScript() {
        let base = Self.base
        let declined: [(String, String)] = [
            ("the same text", base),
            ("white space", Self.edited("title = \"Book\"", "title =  \"Book\"")),
            ("a comment added", base + "\n-- more"),
            ("two strings", Self.edited("\"Books\",", "\"Tomes\",", in: Self.edited("\"Book\"", "\"Tome\""))),
            ("a string in a plain table", Self.edited("{ \"42\" }", "{ \"7\" }")),
            ("a field no edit changes", Self.edited("sample = {", "fallback = \"x\", sample = {")),
            ("a concatenation", Self.edited("\"Book\"", "\"Bo\" .. \"ok\"")),
            ("a line break added", Self.edited("\"Book\"", "\"Bo\\\nok\"")),
            ("a number for a string", Self.edited("\"Book\"", "42")),
        ]
        for (what, text) in declined {
            #expect(DeclarationEdit.find(old: base, new: text) == nil, "\(what)")
        }
        // Scripts that are more than declarations: each edit below would be an edit of
        // `base`, but the script around it makes the reload run it.
        let shapes: [(String, String)] = [
            ("a function", "local f = function() end\n"),
            ("a global read", "local beta = flags.beta\n"),
            ("a call", "local t = string.rep('a', 2)\n"),
            ("a loop", "for i = 1, 2 do end\n"),
            ("a builder renamed", "local endpoint = endpoint\n"),
            ("_ENV", "local _ENV = _ENV\n"),
            ("an attribute", "local x <const> = 1\n"),
        ]
        for (what, prelude) in shapes {
            let old = prelude + base
            let new = prelude + Self.edited("\"Book\"", "\"Tome\"")
            #expect(DeclarationEdit.find(old: old, new: new) == nil, "\(what)")
        }
        // The same edit without them is one.
        #expect(DeclarationEdit.find(old: base, new: Self.edited("\"Book\"", "\"Tome\"")) != nil)
        // A save nested far deeper than Lua takes is read no deeper than Lua would.
        let deep = String(repeating: "{", count: 200_000)
        #expect(DeclarationEdit.find(old: base, new: Self.edited("title = \"Book\"", "title = \"Tome\"") + deep) == nil)
        #expect(DeclarationEdit.find(old: base, new: "return endpoint " + deep) == nil)
        let twice = Self.edited("title = \"Book\"", "title = \"Book\", title = \"Book\"")
        #expect(DeclarationEdit.find(old: twice, new: Self.edited("\"Book\"", "\"Tome\"", in: twice)) == nil)
        let keyed = Self.edited("title = \"Book\"", "[\"title\"] = \"Book\"")
        #expect(DeclarationEdit.find(old: keyed, new: Self.edited("\"Book\"", "\"Tome\"", in: keyed)) == nil)
        // Two builder calls start on the line: which node a line names is unclear.
        let shared = Self.edited(
            "endpoint { \"authors\", title = \"Authors\" },",
            "endpoint { \"authors\", title = \"Authors\" }, endpoint { \"editors\" },")
        #expect(
            DeclarationEdit.find(old: shared, new: Self.edited("\"Authors\" }", "\"Writers\" }", in: shared)) == nil)
        // Long comments and strings are read as Lua reads them.
        let commented = "--[==[ endpoint { \"x\" } ]] ]==]\n" + base
        #expect(
            DeclarationEdit.find(
                old: commented, new: "--[==[ endpoint { \"x\" } ]] ]==]\n" + Self.edited("\"Book\"", "\"Tome\""))?
                .line == 2)
        #expect(DeclarationEdit.find(old: commented, new: Self.edited("\"x\"", "\"y\"", in: commented)) == nil)
    }

    // MARK: Reloads

    /// A host reloading the script through each save, against hosts loading each saved text
    /// fresh and a host whose reloads must run the script (a comment added at the end).
    @Test func editsReloadAsAFreshLoadWithoutRunningTheScript() throws {
        let patchedFolder = ScriptFolder()
        let ranFolder = ScriptFolder()
        let freshFolder = ScriptFolder()
        let host = try RouteScriptHost(contentsOf: patchedFolder.write("app.lua", Self.base))
        let reference = try RouteScriptHost(contentsOf: ranFolder.write("app.lua", Self.base))
        for request in ["books/42", "authors", "books/7"] {
            _ = try host.dispatch(request)
            _ = try reference.dispatch(request)
        }
        var text = Self.base
        let edits: [(String, String)] = [
            ("title = \"Book\"", "title = \"Tome\""),  // a title on screen
            ("\"books/:id\"", "\"tomes/:id\""),  // the shown screen's pattern: a shorter path
            ("\"authors\",", "\"writers\","),
            ("id = \"authors-tab\"", "id = \"writers-tab\""),  // a tab's id: the tab is made again
            ("initial = \"books\"", "initial = \"writers\""),
            ("\"^people/[0-9]+$\"", "\"^folk/[0-9]+$\""),
            ("name = \"books\"", "name = \"shelf\""),
        ]
        for (round, (old, new)) in edits.enumerated() {
            text = Self.edited(old, new, in: text)
            patchedFolder.write("app.lua", text)
            ranFolder.write("app.lua", text + "\n-- \(round)")
            let summary = try host.reload()
            let ran = try reference.reload()
            #expect(!summary.scriptRan, "\(new)")
            #expect(ran.scriptRan, "\(new)")
            #expect(summary.added == ran.added && summary.removed == ran.removed && summary.changed == ran.changed)
            #expect(summary.warning == ran.warning, "\(new)")
            #expect(summary.plan == ran.plan, "\(new)")
            #expect(summary.lint == ran.lint, "\(new)")
            let fresh = try RouteScriptHost(contentsOf: freshFolder.write("app.lua", text))
            #expect(try host.exportJSON() == fresh.exportJSON(), "\(new)")
            #expect(host.state == reference.state, "\(new)")
            #expect(host.tree?.rendered() == reference.tree?.rendered(), "\(new)")
        }
        #expect(try host.dispatch("tomes/9").route == "tomes/:id")
        #expect((try? host.dispatch("folk/3")) != nil)
        #expect(throws: RouteError.self) { try host.dispatch("people/3") }
    }

    /// A seeded declarations-only script as pieces: text, and the strings a save may edit
    /// (written in one of Lua's forms: quotes, escapes, long brackets), among comments and
    /// locals that look like declarations.
    struct Script {
        enum Piece {
            case text(String)
            case string(String)
        }

        var pieces: [Piece] = []
        var generator: SeededGenerator
        var next = 0

        mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &generator) }
        mutating func chance(_ oneIn: Int) -> Bool { int(1...oneIn) == 1 }

        /// `value` as a Lua literal, in a random form.
        mutating func literal(_ value: String) -> String {
            switch int(0...5) {
            case 0: return "'\(value)'"
            case 1: return "[[\(value)]]"
            case 2: return "[==[\(value)]==]"
            case 3: return "\"\\z  \(value)\""
            case 4: return "\"\(value.unicodeScalars.map { "\\u{\(String($0.value, radix: 16))}" }.joined())\""
            default: return "\"\(value)\""
            }
        }

        mutating func text(_ text: String) { pieces.append(.text(text)) }
        mutating func string(_ value: String) { pieces.append(.string(literal(value))) }

        mutating func comment() {
            switch int(0...3) {
            case 0: text("-- endpoint { \"x\", title = 'y' }\n")
            case 1: text("--[==[ \"a\" ]] ]=] ]==]\n")
            default: break
            }
        }

        mutating func endpoint(depth: Int) {
            next += 1
            let n = next
            comment()
            text(String(repeating: "  ", count: depth) + "endpoint { ")
            let parameter = chance(4)
            string(parameter ? "e\(n)/:id" : "e\(n)")
            if chance(2) {
                text(", title = ")
                string("Title \(n)")
            }
            if chance(3) {
                text(", name = ")
                string("n\(n)")
            }
            if chance(4) {
                text(", id = ")
                string("id\(n)")
            }
            if parameter, chance(3) { text(", where = { id = \"[0-9]+\" }") }
            text(" },\n")
        }

        mutating func make() -> [Piece] {
            if chance(2) {
                text("local shared = ")
                string("unused")
                text("\n")
            }
            text("return junction { title = ")
            string("Main")
            text(",\n")
            for _ in 0..<int(1...3) {
                next += 1
                text("  stack { title = ")
                string("Tab \(next)")
                if chance(3) {
                    text(", id = ")
                    string("tab\(next)")
                }
                text(",\n")
                for _ in 0..<int(1...4) { endpoint(depth: 2) }
                text("  },\n")
            }
            text("}\n")
            return pieces
        }

        static func source(_ pieces: [Piece]) -> String {
            pieces.map { piece in
                switch piece {
                case .text(let text): text
                case .string(let literal): literal
                }
            }
            .joined()
        }
    }

    /// Seeded scripts, each saved with one of its strings replaced (a new value, another
    /// string's value, an empty one, one Lua refuses), reload as a fresh load of the saved text
    /// does: the same tree, state and summary as a host whose reload runs the script, or the
    /// same error and the app as it was.
    @Test func seededEditsReloadAsTheScriptRun() throws {
        var generator = SeededGenerator(seed: 2_026_112_7)
        let folder = ScriptFolder()
        let ranFolder = ScriptFolder()
        var patched = 0
        var failed = 0
        for round in 0..<120 {
            var script = Script(generator: SeededGenerator(seed: UInt64.random(in: 0...UInt64.max, using: &generator)))
            var pieces = script.make()
            let text = Script.source(pieces)
            let host = try RouteScriptHost(contentsOf: folder.write("app.lua", text))
            let reference = try RouteScriptHost(contentsOf: ranFolder.write("app.lua", text))
            let first = try #require(host.routeTree?.endpoints.first).node
            let request = host.routeTree?.nodes[first].routeText?.replacingOccurrences(of: ":id", with: "7") ?? ""
            _ = try host.dispatch(request)
            _ = try reference.dispatch(request)
            let strings = pieces.indices.filter { if case .string = pieces[$0] { true } else { false } }
            let place = strings[script.int(0...(strings.count - 1))]
            let values = [
                "new\(round)", "new\(round)/:id", "", "Title 1", "e1", "a/:x/:x", "\\q",
                "caf\u{E9}", "cafe\u{301}",
            ]
            let value = values[script.int(0...(values.count - 1))]
            pieces[place] = .string(value == "\\q" ? "\"\\q\"" : script.literal(value))
            let saved = Script.source(pieces)
            folder.write("app.lua", saved)
            ranFolder.write("app.lua", saved + "-- ran\n")
            let before = try host.exportJSON()
            let patchedResult = Result { try host.reload() }
            let ranResult = Result { try reference.reload() }
            switch (patchedResult, ranResult) {
            case (.success(let summary), .success(let ran)):
                if !summary.scriptRan { patched += 1 }
                #expect(ran.scriptRan)
                #expect(summary.added == ran.added && summary.removed == ran.removed, "round \(round)")
                #expect(summary.changed == ran.changed && summary.warning == ran.warning, "round \(round)")
                #expect(summary.plan == ran.plan && summary.lint == ran.lint, "round \(round)")
                #expect(try host.exportJSON() == reference.exportJSON(), "round \(round)")
                #expect(host.state == reference.state, "round \(round)")
            case (.failure(let error), .failure(let ranError)):
                failed += 1
                let message = (error as? RouteScriptError)?.message
                #expect(message == (ranError as? RouteScriptError)?.message, "round \(round)")
                #expect(try host.exportJSON() == before, "round \(round): the app is as it was")
            default:
                Issue.record("round \(round): \(patchedResult) against \(ranResult)")
            }
        }
        #expect(patched > 50, "patched \(patched)")
        #expect(failed > 5, "failed \(failed)")
    }

    @Test func aFailedEditLeavesTheAppAndLetsTheNextSaveThrough() throws {
        let folder = ScriptFolder()
        let ranFolder = ScriptFolder()
        let host = try RouteScriptHost(contentsOf: folder.write("app.lua", Self.base))
        _ = try host.dispatch("books/42")
        let before = try host.exportJSON()
        let state = host.state
        let broken: [(String, String)] = [
            // The tree refuses the pattern.
            ("\"books/:id\"", "\"books/:id/:id\""),
            // A sample names a parameter the pattern lost.
            ("\"books/:id\"", "\"books/:key\""),
            // The lint: two routes of one pattern.
            ("\"authors\",", "\"books\","),
            // The builder refuses an empty id (the script runs and says so).
            ("id = \"authors-tab\"", "id = \"\""),
            // Lua refuses the escape (the script runs and says so).
            ("title = \"Book\"", "title = \"B\\qk\""),
        ]
        for (old, new) in broken {
            let text = Self.edited(old, new)
            folder.write("app.lua", text)
            let patchedError = #expect(throws: RouteScriptError.self) { try host.reload() }
            ranFolder.write("app.lua", text + "\n--")
            let ranError = #expect(throws: RouteScriptError.self) {
                try RouteScriptHost(contentsOf: ranFolder.path + "/app.lua")
            }
            #expect(patchedError?.message == ranError?.message, "\(new)")
            #expect(patchedError?.location == ranError?.location, "\(new)")
            #expect(try host.exportJSON() == before, "\(new): the app is as it was")
            #expect(host.state == state)
        }
        folder.write("app.lua", Self.edited("title = \"Book\"", "title = \"Tome\""))
        let summary = try host.reload()
        #expect(!summary.scriptRan)
        #expect(summary.changed == ["books/:id"])
        let fresh = try RouteScriptHost(
            contentsOf: ranFolder.write("app.lua", Self.edited("title = \"Book\"", "title = \"Tome\"")))
        #expect(try host.exportJSON() == fresh.exportJSON())
    }

    /// A patched script holds what a failed reload would put back only until the reload
    /// succeeded, and the lint's cache holds the new tree: the tree before is freed.
    @Test func theTreeBeforeIsFreed() throws {
        let folder = ScriptFolder()
        let host = try RouteScriptHost(contentsOf: folder.write("app.lua", Self.base))
        _ = try host.dispatch("books/42")
        weak let before = host.routeTree
        folder.write("app.lua", Self.edited("\"Book\"", "\"Tome\""))
        #expect(try !host.reload().scriptRan)
        #expect(before == nil)
        weak let patched = host.routeTree
        folder.write("app.lua", Self.edited("\"Book\"", "\"Volume\""))
        #expect(try !host.reload().scriptRan)
        #expect(patched == nil)
    }

    @Test func scriptsThatRunLuaRunOnEverySave() throws {
        let folder = ScriptFolder()
        let withHook = Self.edited(
            "title = \"Authors\" }", "title = \"Authors\", presenter = { update = function(view) end } }")
        let host = try RouteScriptHost(contentsOf: folder.write("app.lua", withHook))
        folder.write("app.lua", Self.edited("\"Book\"", "\"Tome\"", in: withHook))
        #expect(try host.reload().scriptRan)
        #expect(host.routeTree?.nodes.contains { $0.title == "Tome" } == true)
        // Lua typed into the REPL ran in the state: the next save runs the script, in a new
        // state without what the REPL left.
        let typed = try RouteScriptHost(contentsOf: folder.write("typed.lua", Self.base))
        _ = try typed.evaluate("left = 42")
        #expect(try typed.evaluate("left") == ["42"])
        folder.write("typed.lua", Self.edited("\"Book\"", "\"Tome\""))
        #expect(try typed.reload().scriptRan)
        #expect(try typed.evaluate("left") == ["nil"])
        // A host whose script another host shares (luna test's siblings) may patch: the
        // other's tree stays as it was. The sharing host runs the script.
        let plain = try RouteScriptHost(contentsOf: folder.write("plain.lua", Self.base))
        let sibling = try #require(plain.freshSibling())
        folder.write("plain.lua", Self.edited("\"Book\"", "\"Tome\""))
        #expect(try !plain.reload().scriptRan)
        #expect(plain.routeTree?.nodes.contains { $0.title == "Book" } == false)
        #expect(sibling.routeTree?.nodes.contains { $0.title == "Book" } == true)
        #expect(try sibling.reload().scriptRan)
        #expect(sibling.routeTree?.nodes.contains { $0.title == "Book" } == false)
    }
}

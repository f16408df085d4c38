import Foundation
import LunaLive
import RouteCore
import RouteCoreOracle
import RouteScript
import Testing

/// A reload equals a fresh load of the saved file, always: seeded scripts in every brace and
/// line style, each saved again and again with one string changed, are reloaded by one host
/// and loaded fresh by another; the two give the same tree (the exported JSON, byte for
/// byte, with every node's line), the same route table (`luna routes --json`), the same
/// answer to every route's request, or the same error with the reloading app as it was.
@Suite struct ReloadDifferentialTests {
    /// How builder calls are written: the name and its `{` on one line, the `{` on the next
    /// line (the builder's name at the end of the line before, where Lua records the call at
    /// the `{`), parentheses, `;` separators, or the whole script on one line.
    enum Style: CaseIterable {
        case sameLine, braceNextLine, nameTrailing, parenthesized, semicolons, oneLine
    }

    /// A seeded script as pieces: text, and the strings a save may change.
    struct Script {
        enum Piece {
            case text(String)
            case string(String)
        }

        var pieces: [Piece] = []
        var generator: SeededGenerator
        let style: Style
        var next = 0

        init(seed: UInt64, style: Style) {
            generator = SeededGenerator(seed: seed)
            self.style = style
        }

        mutating func text(_ text: String) { pieces.append(.text(text)) }

        mutating func string(_ value: String) { pieces.append(.string(literal(value))) }

        /// `value` as a Lua literal, in one of Lua's forms.
        mutating func literal(_ value: String) -> String {
            switch generator.int(0...4) {
            case 0: return "'\(value)'"
            case 1: return "[[\(value)]]"
            case 2: return "\"\\z  \(value)\""
            case 3: return "\"\(value.unicodeScalars.map { "\\u{\(String($0.value, radix: 16))}" }.joined())\""
            default: return "\"\(value)\""
            }
        }

        var newline: String { style == .oneLine ? " " : "\n" }
        var separator: String { style == .semicolons ? ";" : "," }

        /// Opens a builder call: `endpoint {`, `endpoint\n{`, `endpoint({`.
        mutating func open(_ builder: String) {
            switch style {
            case .braceNextLine: text(builder + "\n{ ")
            case .parenthesized: text(builder + "({ ")
            default: text(builder + " { ")
            }
        }

        mutating func close() { text(style == .parenthesized ? " })" : " }") }

        mutating func endpoint(depth: Int, parent: String?) {
            next += 1
            let n = next
            if style == .nameTrailing {
                // `…}, endpoint` then the table on the next line (the issue's reproduction).
                text("endpoint\n{ ")
            } else {
                open("endpoint")
            }
            let relative = parent != nil && generator.chance(2)
            let parameter = generator.chance(4)
            let segment = parameter ? "e\(n)/:id" : "e\(n)"
            string(relative ? "./" + segment : segment)
            if generator.chance(2) {
                text(separator + " title = ")
                string(generator.chance(3) ? "Item" : "Title \(n)")
            }
            if generator.chance(3) {
                text(separator + " name = ")
                string("n\(n)")
            }
            if generator.chance(4) {
                text(separator + " id = ")
                string("id\(n)")
            }
            if parameter, generator.chance(3) { text(separator + " where = { id = \"[0-9]+\" }") }
            if depth < 3, generator.chance(3) {
                text(separator + " children = {" + newline)
                for _ in 0..<generator.int(1...2) {
                    endpoint(depth: depth + 1, parent: segment)
                    text(separator + (style == .nameTrailing ? " " : newline))
                }
                text("}")
            }
            close()
        }

        mutating func make() -> [Piece] {
            let named = generator.chance(3)
            open("junction")
            text("title = ")
            string("Main")
            text(separator + newline)
            var first: String?
            for _ in 0..<generator.int(1...3) {
                next += 1
                open("stack")
                text("title = ")
                string("Tab \(next)")
                if generator.chance(3) {
                    text(separator + " id = ")
                    string("tab\(next)")
                }
                text(separator + newline)
                for _ in 0..<generator.int(1...4) {
                    if first == nil { first = "e\(next + 1)" }
                    endpoint(depth: 0, parent: nil)
                    text(separator + (style == .nameTrailing ? " " : newline))
                }
                close()
                text(separator + newline)
            }
            close()
            var script: [Piece] = [.text("return ")] + pieces
            if named {
                // A root `initial` that names a route through a named request.
                script = [.text("local app = ")] + pieces + [.text("\napp.initial = ")]
                pieces = []
                string("n1|{}")
                script += pieces + [.text("\nreturn app\n")]
            }
            return script
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

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// Every route's request on `tree` (parameters filled with 7), and what it resolves to.
    static func answers(_ tree: RouteTree, requests: [String]) -> [String] {
        requests.map { request in
            do {
                let resolution = try tree.resolve(request)
                let route = tree[resolution.route].definition.displayText
                let params = resolution.params.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                return "\(request) -> \(route) \(params)"
            } catch {
                return "\(request) -> \(error)"
            }
        }
    }

    static func requests(_ trees: RouteTree...) -> [String] {
        var requests: Set<String> = []
        for tree in trees {
            for node in tree.nodes {
                guard let text = node.routeText else { continue }
                requests.insert(text.replacingOccurrences(of: ":id", with: "7"))
            }
        }
        return requests.sorted()
    }

    /// Compares a host that reloaded `text` with a host loading it fresh; returns whether the
    /// save loaded.
    @discardableResult
    static func expectSameAsFresh(
        _ host: RouteScriptHost, reload: Result<ReloadSummary, any Error>, before: String, text: String,
        folder: TemporaryFolder, _ what: @autoclosure () -> String
    ) throws -> Bool {
        let fresh = Result { try RouteScriptHost(contentsOf: folder.write("fresh.lua", text)) }
        switch (reload, fresh) {
        case (.success, .success(let fresh)):
            let (reloaded, loaded) = (try #require(host.routeTree), try #require(fresh.routeTree))
            // By bytes: a String comparison takes `Café` precomposed and decomposed as equal.
            let exported = try host.exportJSON().replacingOccurrences(of: "app.lua", with: "fresh.lua")
            #expect(bytes(exported) == bytes(try fresh.exportJSON()), "\(what())")
            #expect(
                bytes(RouteRow.json(RouteRow.table(reloaded))) == bytes(RouteRow.json(RouteRow.table(loaded))),
                "\(what())")
            let requests = Self.requests(reloaded, loaded)
            #expect(answers(reloaded, requests: requests) == answers(loaded, requests: requests), "\(what())")
            return true
        case (.failure(let error), .failure(let freshError)):
            let message = (error as? RouteScriptError)?.message
            let freshMessage = (freshError as? RouteScriptError)?.message.replacingOccurrences(
                of: "fresh.lua", with: "app.lua")
            #expect(message == freshMessage, "\(what())")
            #expect(bytes(try host.exportJSON()) == bytes(before), "\(what()): the app is as it was")
            return false
        case (.success, .failure(let error)):
            Issue.record("\(what()): the reload succeeded, a fresh load fails: \(error)")
        case (.failure(let error), .success):
            Issue.record("\(what()): the reload failed, a fresh load succeeds: \(error)")
        }
        return false
    }

    /// Thousands of one-string edits over seeded scripts in every style, each save kept (the
    /// next edit starts from it), against fresh loads of each saved text.
    /// Both ways: reusing what did not change (the default) and building it all anew
    /// (`reusesUnchangedParts` off: `--full-reload`).
    @Test(arguments: Style.allCases, [true, false])
    func everyReloadEqualsAFreshLoadOfTheSavedFile(style: Style, reusing: Bool) throws {
        var seeds = SeededGenerator(seed: 2_026_112_7 &+ UInt64(Style.allCases.firstIndex(of: style) ?? 0))
        let folder = TemporaryFolder()
        var loaded = 0
        var failed = 0
        let values = [
            "new", "new/:id", "./new", "", "Item", "Other", "e1", "a/:x/:x", "n1", "n2", "Caf\u{E9}",
            "Cafe\u{301}", "e1/:id", "...", "tab1",
        ]
        for script in 0..<40 {
            var generator = Script(seed: seeds.next(), style: style)
            var pieces = generator.make()
            let text = Script.source(pieces)
            let host: RouteScriptHost
            var options = RouteScriptOptions()
            options.reusesUnchangedParts = reusing
            do { host = try RouteScriptHost(contentsOf: folder.write("app.lua", text), options: options) } catch {
                continue  // a seeded script the tree refuses (two routes of one pattern)
            }
            if let tree = host.routeTree, let first = Self.requests(tree).first { _ = try? host.dispatch(first) }
            for edit in 0..<12 {
                let strings = pieces.indices.filter { if case .string = pieces[$0] { true } else { false } }
                let place = strings[generator.generator.int(0...(strings.count - 1))]
                let value = values[generator.generator.int(0...(values.count - 1))]
                let old = pieces[place]
                pieces[place] = .string(generator.literal(value))
                let saved = Script.source(pieces)
                let before = try host.exportJSON()
                folder.write("app.lua", saved)
                let result = Result { try host.reload() }
                if try Self.expectSameAsFresh(
                    host, reload: result, before: before, text: saved, folder: folder,
                    "\(style) script \(script) edit \(edit): \(value)\n\(saved)")
                {
                    loaded += 1
                } else {
                    failed += 1
                    pieces[place] = old  // the next save starts from the last good text
                    folder.write("app.lua", Script.source(pieces))
                }
            }
        }
        #expect(loaded > 150, "loaded \(loaded)")
        #expect(failed > 10, "failed \(failed)")
    }

    /// The issue's reproduction: a builder's name on one line and its table on the next. Lua
    /// records the call at the `{`; a save of b's title changes b, not a.
    @Test func aTitleEditChangesItsOwnNodeWhateverTheBraceStyle() throws {
        let folder = TemporaryFolder()
        let text = """
            return stack {
              endpoint
              { "a", title = "Item" }, endpoint
              { "b", title = "Item" },
            }
            """
        let host = try RouteScriptHost(contentsOf: folder.write("app.lua", text))
        let saved = text.replacingOccurrences(of: "{ \"b\", title = \"Item\" }", with: "{ \"b\", title = \"Other\" }")
        let before = try host.exportJSON()
        folder.write("app.lua", saved)
        let summary = try host.reload()
        #expect(summary.changed == ["b"])
        #expect(host.routeTree?.nodes.first { $0.id == "a" }?.title == "Item")
        #expect(host.routeTree?.nodes.first { $0.id == "b" }?.title == "Other")
        try Self.expectSameAsFresh(host, reload: .success(summary), before: before, text: saved, folder: folder, "b")

        let patterns = """
            return stack {
              endpoint { "p", children = { endpoint
              { "./x" }, endpoint
              { "./y" } } },
            }
            """
        folder.write("app.lua", patterns)
        try host.reload()
        _ = try host.dispatch("p/y")
        let moved = patterns.replacingOccurrences(of: "\"./y\"", with: "\"./z\"")
        folder.write("app.lua", moved)
        try host.reload()
        #expect(try host.dispatch("p/z").route == "p/z")
        #expect(throws: RouteError.self) { try host.dispatch("p/y/z") }
    }

    /// A route-name edit that breaks a root `initial` written as a named request fails as a
    /// fresh load does; the app stays as it was.
    @Test func aNameEditThatBreaksANamedInitialFailsAsAFreshLoad() throws {
        let folder = TemporaryFolder()
        let text = """
            return stack { initial = 'book|{"id":7}',
              endpoint { "books/:id", name = "book" },
            }
            """
        let host = try RouteScriptHost(contentsOf: folder.write("app.lua", text))
        _ = try host.dispatch("books/7")
        let before = try host.exportJSON()
        let saved = text.replacingOccurrences(of: "name = \"book\"", with: "name = \"bk\"")
        folder.write("app.lua", saved)
        let result = Result { try host.reload() }
        #expect(!(try Self.expectSameAsFresh(host, reload: result, before: before, text: saved, folder: folder, "bk")))
        #expect(host.state.request?.path == "books/7")
    }

    /// A title, name or id whose new spelling is only canonically equivalent to the old
    /// (`Caf\u{e9}` → `Cafe\u{301}`) is the new spelling after the reload, byte for byte.
    @Test func aCanonicallyEquivalentSpellingIsTheSavedOne() throws {
        let folder = TemporaryFolder()
        func script(_ word: String) -> String {
            "return stack { endpoint { \"home\", title = \"\(word)\", name = \"\(word)\", id = \"\(word)\" } }"
        }
        let host = try RouteScriptHost(contentsOf: folder.write("app.lua", script("Caf\u{E9}")))
        _ = try host.dispatch("home")
        let before = try host.exportJSON()
        folder.write("app.lua", script("Cafe\u{301}"))
        let summary = try host.reload()
        let node = try #require(host.routeTree?.nodes.last)
        #expect(Self.bytes(node.title) == Self.bytes("Cafe\u{301}"))
        #expect(Self.bytes(node.id) == Self.bytes("Cafe\u{301}"))
        #expect(Self.bytes(node.nodeID.rawValue) == Self.bytes("Cafe\u{301}"))
        let route = try #require(host.routeTree?.endpoints.first)
        #expect(route.name.map(Self.bytes) == Self.bytes("Cafe\u{301}"))
        // The screen and its stack (whose default id follows the screen's) changed spelling.
        #expect(summary.changed.contains { Self.bytes($0) == Self.bytes("Cafe\u{301}") })
        try Self.expectSameAsFresh(
            host, reload: .success(summary), before: before, text: script("Cafe\u{301}"), folder: folder, "NFD")
    }
}

/// A folder for one test's scripts, removed afterwards.
final class TemporaryFolder {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "luna-reload-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    @discardableResult
    func write(_ name: String, _ text: String) -> String {
        let full = path + "/" + name
        try? text.write(toFile: full, atomically: false, encoding: .utf8)
        return full
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// The reload summary lists a guard whose `fallback` changed, on the node that declares it
/// (it said `0 changed`).
@Suite struct ReloadSummaryGuardTests {
    @Test func aChangedFallbackIsAChangeOfItsNode() throws {
        let folder = TemporaryFolder()
        func script(_ fallback: String) -> String {
            """
            return switcher {
              endpoint { "signin" }, endpoint { "welcome" },
              junction { id = "tabs", enabled = function() return flags.signedIn == "yes" end, fallback = "\(fallback)",
                stack { endpoint { "home" } } },
            }
            """
        }
        let host = try RouteScriptHost(contentsOf: folder.write("app.lua", script("signin")))
        folder.write("app.lua", script("welcome"))
        let summary = try host.reload()
        #expect(summary.changed == ["tabs"], "\(summary.line)")
        folder.write("app.lua", script("welcome"))
        #expect(try host.reload().changed.isEmpty, "the same guard again")
    }
}

extension SeededGenerator {
    fileprivate mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
    fileprivate mutating func chance(_ oneIn: Int) -> Bool { int(1...oneIn) == 1 }
}

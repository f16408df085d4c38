import Foundation
import LunaLive
import RouteCore
import RouteScript
import Testing

/// `luna export html`'s exploration: every state a click can reach, each step recorded as the
/// page keys it, checked against what a live host shows after the same steps.
struct PrototypeExportTests {
    static func data(_ prototype: Prototype) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(prototype.json.utf8)) as? [String: Any])
    }

    static func shop() throws -> RouteScriptHost {
        try RouteScriptHost(contentsOf: repositoryRoot + "/examples/shop.lua")
    }

    /// A state's steps by the REPL line of their command (`go search --keep`, `tap Sign in`):
    /// each move is `[command, move]`, the command an index into the data's `commands`.
    static func moves(_ state: [String: Any], _ data: [String: Any]) throws -> [String: [String: Any]] {
        let commands = try #require(data["commands"] as? [Any])
        var result: [String: [String: Any]] = [:]
        for pair in try #require(state["moves"] as? [[Any]]) {
            let index = try #require(pair[0] as? Int)
            let text = String(decoding: try JSONSerialization.data(withJSONObject: commands[index]), as: UTF8.self)
            let command = try Command(message: try JSONValue.parse(text), from: .prototype)
            result[CommandSpec.line(command)] = try #require(pair[1] as? [String: Any])
        }
        return result
    }

    /// Performs a step given by its REPL line on a live host, as the page's operations do.
    static func perform(_ line: String, on host: RouteScriptHost) throws {
        let space = line.firstIndex(of: " ") ?? line.endIndex
        let spec = try #require(CommandSpec.typed(String(line[..<space])))
        let command = try Command(op: spec.op, fields: try spec.fields(typed: String(line[space...])))
        switch command {
        case .back: _ = try host.back()
        case .close: _ = try host.close()
        case .push(let request): _ = try host.push(request)
        case .dispatch(let request, let keep): _ = try host.dispatch(request, keepStack: keep)
        case .open(let node, let params, _):
            let tree = try #require(host.routeTree)
            _ = try host.dispatch(try tree.request(for: NodeID(node), params: params).original)
        case .flag(let name, let value): _ = try host.setFlag(name, value)
        case .tap(let label): _ = try host.tap(try host.action(label))
        default: Issue.record("not a step: \(line)")
        }
    }

    /// The whole of shop.lua fits the default bound; every step leads to a state of the file;
    /// random walks through the file end where a live host ends after the same steps.
    @Test func shopIsExploredWholeAndEveryWalkMatchesALiveHost() throws {
        let prototype = try Prototype.explore(try Self.shop(), script: "shop.lua")
        #expect(prototype.leftOut == 0)
        #expect(prototype.states > 100, "\(prototype.states)")
        #expect(prototype.evaluated == ["the guard of junction:home"])
        let data = try Self.data(prototype)
        let states = try #require(data["states"] as? [[String: Any]])
        let trees = try #require(data["trees"] as? [Any])
        let plans = try #require(data["plans"] as? [[Any]])
        #expect(states.count == prototype.states)
        let start = try #require(states[0]["snapshot"] as? [String: Any])
        #expect((start["state"] as? [String: Any])?["request"] as? String == "home")
        for state in states {
            let moves = try Self.moves(state, data)
            #expect(!moves.isEmpty)
            for (key, move) in moves {
                if move["error"] != nil { continue }
                let to = try #require(move["to"] as? Int, "\(key)")
                #expect(states.indices.contains(to))
                #expect(plans.indices.contains(try #require(move["plan"] as? Int)))
            }
            #expect(trees.indices.contains(try #require(state["tree"] as? Int)))
        }
        // Home offers its rows and the other tabs.
        let home = try Self.moves(states[0], data)
        for key in ["go product/42?title=Dune", "go search --keep", "go account --keep"] {
            #expect(home[key] != nil, "home offers \(key): \(home.keys.sorted())")
        }
        #expect(home["open product/:id"] == nil, "a product needs an id: the form asks for it, no step")

        var generator = SystemRandomNumberGenerator()
        for _ in 0..<40 {
            let live = try Self.shop()
            _ = try live.dispatch("home")
            var at = 0
            for _ in 0..<12 {
                let moves = try Self.moves(states[at], data)
                let (key, move) = try #require(moves.randomElement(using: &generator))
                if move["error"] != nil {
                    #expect(throws: (any Error).self, "\(key): \(move["error"] ?? "")") {
                        try Self.perform(key, on: live)
                    }
                    continue
                }
                try Self.perform(key, on: live)
                at = try #require(move["to"] as? Int)
                let exported = trees[try #require(states[at]["tree"] as? Int)]
                // The exported tree carries the controls the live page gets in its snapshot.
                let requests = SnapshotView.requests(live.tree, tree: live.routeTree)
                let controls = Controls(
                    host: live,
                    context: Controls.Context(host: live, rows: RouteRow.table(try #require(live.routeTree))),
                    requests: requests)
                let shown = try JSONSerialization.jsonObject(
                    with: Data(controls.placed(in: live.tree).utf8))
                #expect(
                    NSDictionary(dictionary: exported as? [String: Any] ?? [:])
                        .isEqual(to: shown as? [String: Any] ?? [:]),
                    "after \(key)")
                let flags = (states[at]["snapshot"] as? [String: Any])?["flags"] as? [String: String]
                #expect(flags == live.options.flags, "flags after \(key)")
            }
        }
    }

    /// The flow map's steps are taken from the start only: a script of 300 screens costs 300
    /// steps, not 300 × 300; each screen names the first state showing it (where the page's map
    /// goes from elsewhere).
    @Test func theMapIsWalkedFromTheStartOnly() throws {
        let routes = (1..<300).map { #"  endpoint { "section\#($0 % 40)/r\#($0)" },"# }.joined(separator: "\n")
        let host = RouteScriptHost()
        try host.load(source: "return stack {\n  endpoint { \"r0\" },\n\(routes)\n}", name: "flat.lua")
        let prototype = try Prototype.explore(host, script: "flat.lua")
        #expect(prototype.states == 301)
        #expect(prototype.moves == 300, "\(prototype.moves)")
        let screens = try #require(try Self.data(prototype)["screens"] as? [String: Int])
        #expect(screens.count == 300)
        #expect(screens["section7/r7"].map { (1...300).contains($0) } == true)
        let shop = try Self.data(try Prototype.explore(try Self.shop(), script: "shop.lua"))
        let shown = try #require(shop["screens"] as? [String: Int])
        // Every screen but the catch-all (it asks for a path: no step reaches it).
        #expect(
            Set(shown.keys) == [
                "signin", "home", "product/:id", "search", "cart", "checkout", "checkout/pay", "account",
                "account/orders/:id",
            ])
    }

    /// A bound stops the walk: no more states than it allows, and the steps beyond are
    /// counted, not recorded.
    @Test func theBoundHoldsAndCountsWhatItLeftOut() throws {
        let prototype = try Prototype.explore(try Self.shop(), script: "shop.lua", limit: 5)
        #expect(prototype.states == 5)
        #expect(prototype.leftOut > 0)
        let data = try Self.data(prototype)
        for state in try #require(data["states"] as? [[String: Any]]) {
            for move in try Self.moves(state, data).values {
                if let to = move["to"] as? Int { #expect(to < 5) }
            }
        }
    }

    /// A step that fails is kept with its error (the page shows it as the live one would); a
    /// script without `initial` starts from nothing shown and offers its screens.
    @Test func aFailingStepKeepsItsErrorAndNoInitialStartsFromNothing() throws {
        let host = RouteScriptHost()
        try host.load(
            source: """
                return stack {
                  endpoint { "home", actions = { { "Broken", go = "nowhere" } },
                    children = { endpoint { "home/:id", sample = { id = { "1" } } } } },
                }
                """, name: "broken.lua")
        let prototype = try Prototype.explore(host, script: "broken.lua")
        let data = try Self.data(prototype)
        let states = try #require(data["states"] as? [[String: Any]])
        #expect((states[0]["snapshot"] as? [String: Any])?["state"] is NSNull)
        let first = try Self.moves(states[0], data)
        let opened = try #require(first["open home"]?["to"] as? Int)
        #expect(first["open home/:id id=1"] != nil, "the map opens a sampled screen with its first sample")
        let home = try Self.moves(states[opened], data)
        let broken = try #require(home["tap Broken"]?["error"] as? [String: Any])
        #expect(broken["kind"] as? String == "noMatch")
        #expect(home["open home/:id id=1"]?["to"] != nil)
        #expect(prototype.evaluated.isEmpty)
    }
}

/// The work and size of an export are bounded, and grow with the states it holds: states that
/// look the same are one state (a push chain is one state a level, not one a way of getting
/// there), the steps taken are at most 16 a state of the bound, the data at most 32 MB.
@Suite struct PrototypeBoundsTests {
    static func chain(_ depth: Int) -> String {
        var node = #"endpoint { "./l\#(depth - 1)", title = "L\#(depth - 1)" }"#
        for level in stride(from: depth - 2, through: 1, by: -1) {
            node = #"endpoint { "./l\#(level)", title = "L\#(level)", children = { \#(node) } }"#
        }
        return #"return stack { endpoint { "l0", title = "L0", children = { \#(node) } } }"#
    }

    static func explore(_ source: String, limit: Int = Prototype.defaultLimit) throws -> Prototype {
        let host = RouteScriptHost()
        try host.load(source: source, name: "app.lua")
        return try Prototype.explore(host, script: "app.lua", limit: limit)
    }

    /// A screen whose own rows reach a child route gets no generated rows for it (as the page
    /// draws it): `home/a/2`, a sample the script's rows do not list, is no step; `home/b`,
    /// which no row reaches, still is.
    @Test func noGeneratedStepForARouteTheScreensRowsReach() throws {
        let prototype = try Self.explore(
            """
            return stack { initial = "home",
              endpoint { "home", rows = { { "First", go = "home/a/1" } }, children = {
                endpoint { "./a/:id", sample = { id = { "1", "2" } } }, endpoint { "./b" } } } }
            """)
        let data = try PrototypeExportTests.data(prototype)
        let states = try #require(data["states"] as? [[String: Any]])
        let moves = try PrototypeExportTests.moves(try #require(states.first), data)
        #expect(moves.keys.contains("go home/a/1"), "\(moves.keys.sorted())")
        #expect(moves.keys.contains { $0.hasPrefix("open home/b") }, "\(moves.keys.sorted())")
        // (`open home/a/:id id=1` is the flow map's click on that screen, from the start.)
        #expect(!moves.keys.contains("open home/a/:id id=2"), "\(moves.keys.sorted())")
        #expect(prototype.states == 3, "home, home/a/1, home/b: \(prototype.states)")
    }

    @Test func aPushChainIsOneStateALevel() throws {
        let deep = try Self.explore(Self.chain(62))
        #expect(deep.states == 63, "\(deep.states)")
        #expect(deep.cut == nil)
        let half = try Self.explore(Self.chain(31))
        #expect(half.states == 32)
        // 1,954 states and 25.7 MB before: a state for every way of reaching each level. Each
        // state's data is what its screens show (here ids as long as the path, so a state's
        // part grows with the square of its depth).
        #expect(deep.json.utf8.count < 4 << 20, "\(deep.json.utf8.count)")
        #expect(deep.json.utf8.count / deep.states < 64 << 10)
    }

    @Test func manyTabsStopAtTheStepBound() throws {
        let tabs = (0..<200).map { #"  stack { title = "T\#($0)", endpoint { "t\#($0)", title = "Tab \#($0)" } },"# }
        let prototype = try Self.explore("return junction {\n\(tabs.joined(separator: "\n"))\n}", limit: 40)
        #expect(prototype.stepsTaken <= 40 * Prototype.stepsPerState)
        #expect(prototype.states <= 40)
        #expect(prototype.leftOut > 0)
        #expect(prototype.cut == .states || prototype.cut == .steps)
        let data = try #require(try JSONSerialization.jsonObject(with: Data(prototype.json.utf8)) as? [String: Any])
        let sentence = try #require(data["cut"] as? String)
        #expect(sentence.hasPrefix("This prototype is not the whole app:"), "\(sentence)")
    }
}

import RouteCoreOracle
import Testing

@testable import RouteCore

/// A tree built from the one before (a reload) gives exactly what a tree built alone gives:
/// the same ids, identities and index, and the same error when two ids clash.
@Suite struct TreeReuseTests {
    /// A stack of endpoints: `ids[k]` is endpoint k's declared id (nil: the default, its pattern).
    static func spec(_ patterns: [String], ids: [String?]) -> NodeSpec {
        .stack(
            zip(patterns, ids).map { pattern, id in .endpoint(pattern, id: id) }, id: "root")
    }

    enum Outcome: Equatable {
        case built([String: Int])
        case failed(String)
    }

    static func outcome(_ build: () throws(RouteDefinitionError) -> RouteTree) -> Outcome {
        do {
            let tree = try build()
            #expect(tree.nodes.map(\.nodeID) == tree.nodes.map { NodeID($0.id) })
            return .built(tree.nodeIndex)
        } catch {
            return .failed(error.message)
        }
    }

    /// Definitions taken from the tree before equal those compiled alone: patterns of every
    /// kind (parameters, `:_`, catch-alls, a leading or doubled slash, relative children),
    /// with and without validators, edited between the two trees.
    @Test func definitionsFromThePreviousTreeEqualDefinitionsMadeAlone() throws {
        var generator = SeededGenerator(seed: 25_11)
        let shapes = ["a", "a/:id", "a/:_/b", "a/...", "a/...rest", "/a/b", "a//b", ":x", "", "a/:id/c"]
        var compared = 0
        for _ in 0..<300 {
            func pattern(_ k: Int) -> String {
                let shape = shapes.randomElement(using: &generator) ?? "a"
                return String(shape.split(separator: "a", omittingEmptySubsequences: false).joined(separator: "r\(k)"))
            }
            var patterns = (0..<6).map(pattern)
            var validated = (0..<6).map { _ in Int.random(in: 0...3, using: &generator) == 0 }
            func spec() throws -> NodeSpec {
                var roots: [NodeSpec] = []
                for (k, text) in patterns.enumerated() {
                    let validators = validated[k] && text.contains(":id") ? ["id": try Validator(regex: "[0-9]+")] : [:]
                    var node = NodeSpec.endpoint(text, id: "n\(k)", where: validators)
                    if k % 3 == 0 { node.children = [.endpoint("./more\(k)", id: "m\(k)")] }
                    roots.append(node)
                }
                return .stack(roots, id: "root")
            }
            guard let before = try? RouteTree(root: try spec()) else { continue }
            for _ in 0..<Int.random(in: 1...2, using: &generator) {
                let k = Int.random(in: 0..<6, using: &generator)
                if Bool.random(using: &generator) { patterns[k] = pattern(k) } else { validated[k].toggle() }
            }
            let edited = try spec()
            guard let alone = try? RouteTree(root: edited) else { continue }
            let reused = try RouteTree(root: edited, reusing: before)
            for (x, y) in zip(alone.endpoints, reused.endpoints) {
                #expect(x.definition.displayText == y.definition.displayText)
                #expect(x.pattern == y.pattern)
                #expect(x.definition.validators.keys.sorted() == y.definition.validators.keys.sorted())
                #expect(x.node == y.node && x.name == y.name && x.linkable == y.linkable)
            }
            // Nodes kept from the tree before (the same objects) or made again: as made alone.
            #expect(alone.nodes.count == reused.nodes.count)
            for (x, y) in zip(alone.nodes, reused.nodes) {
                #expect(x.index == y.index && x.nodeID == y.nodeID && x.kind == y.kind && x.title == y.title)
                #expect(x.parent == y.parent && x.relation == y.relation && x.children == y.children)
                #expect(x.modals == y.modals && x.route == y.route && x.routeText == y.routeText)
            }
            for request in ["r0/7", "r1/x", "r2/7/more2", "r3/a/b", "x", "r4/7/c", "r5"] {
                #expect((try? alone.resolve(request))?.route == (try? reused.resolve(request))?.route, "\(request)")
            }
            compared += 1
        }
        #expect(compared > 150)
    }

    @Test func idsFromThePreviousTreeEqualIdsMadeAlone() throws {
        var generator = SeededGenerator(seed: 11_25)
        let names = ["a", "b", "c", "d", "e"]
        var reused = 0
        var clashes = 0
        for _ in 0..<400 {
            let count = Int.random(in: 2...12, using: &generator)
            var patterns = (0..<count).map { "p\($0)" }
            var ids: [String?] = (0..<count).map { _ in
                Bool.random(using: &generator) ? nil : "id\(Int.random(in: 0...99, using: &generator))"
            }
            // Unique to start with.
            ids = ids.enumerated().map { place, id in id.map { "\($0)-\(place)" } }
            let before = try RouteTree(root: Self.spec(patterns, ids: ids))
            // Edit one to three declarations: a pattern (its default id follows), or an id, to
            // a fresh one or to one another node has.
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let place = Int.random(in: 0..<count, using: &generator)
                switch Int.random(in: 0...3, using: &generator) {
                case 0: patterns[place] = "q" + (names.randomElement(using: &generator) ?? "a")
                case 1: ids[place] = "fresh-" + (names.randomElement(using: &generator) ?? "a")
                case 2: ids[place] = ids[Int.random(in: 0..<count, using: &generator)] ?? "p0"
                default: ids[place] = nil
                }
            }
            let spec = Self.spec(patterns, ids: ids)
            let alone = Self.outcome { () throws(RouteDefinitionError) in try RouteTree(root: spec) }
            let fromBefore = Self.outcome { () throws(RouteDefinitionError) in
                try RouteTree(root: spec, reusing: before)
            }
            #expect(alone == fromBefore, "\(patterns) \(ids)")
            if case .failed = alone { clashes += 1 } else { reused += 1 }
        }
        // Both ways are taken: trees that build, and clashes that must be found.
        #expect(reused > 100)
        #expect(clashes > 50)
    }

    /// A tree built from the one before shares the nodes and endpoints that did not change
    /// (the same objects: nothing allocated or freed for them) and makes new ones for the
    /// declarations that did; an endpoint under a guard is always new (a guard is a closure of
    /// its own script's state), and the new tree's guard is the one that runs.
    @Test func unchangedNodesAndEndpointsAreSharedWithThePreviousTree() throws {
        func spec(titleOfA: String = "A", nameOfB: String? = "bee", allowC: Bool) -> NodeSpec {
            var guarded = NodeSpec.endpoint("c", id: "c")
            guarded.endpoint?.enabled = { _ in allowC }
            guarded.endpoint?.fallback = "a"
            return .stack(
                [
                    .endpoint("a", id: "a", title: titleOfA),
                    .endpoint("b/:id", id: "b", name: nameOfB, children: [.endpoint("./more", id: "more")]),
                    guarded,
                ], id: "root")
        }
        func same(_ x: RouteTree, _ y: RouteTree) {
            #expect(x.nodes.count == y.nodes.count)
            for (a, b) in zip(x.nodes, y.nodes) {
                #expect(a.index == b.index && a.nodeID == b.nodeID && a.kind == b.kind && a.title == b.title)
                #expect(a.parent == b.parent && a.relation == b.relation && a.children == b.children)
                #expect(a.modals == b.modals && a.route == b.route && a.routeText == b.routeText)
            }
            for (a, b) in zip(x.endpoints, y.endpoints) {
                #expect(a.node == b.node && a.name == b.name && a.guards.count == b.guards.count)
                #expect(a.definition.displayText == b.definition.displayText)
            }
        }
        let before = try RouteTree(root: spec(allowC: false))
        let again = try RouteTree(root: spec(allowC: true), reusing: before)
        same(again, try RouteTree(root: spec(allowC: true)))
        for id in ["root", "a", "b", "more", "c"] {
            let index = try #require(again.nodeIndex[id])
            #expect(again.nodes[index] === before.nodes[index], "node \(id)")
        }
        func endpoint(_ tree: RouteTree, _ id: String) throws -> RouteTree.Endpoint {
            try #require(tree.nodeIndex[id].flatMap { tree.nodes[$0].route }.map { tree[$0] })
        }
        for id in ["a", "b"] { #expect(try endpoint(again, id) === endpoint(before, id), "endpoint \(id)") }
        // A relative pattern ("./more") is compiled again (its text is not its definition's);
        // an endpoint under a guard is new.
        #expect(try endpoint(again, "more") !== endpoint(before, "more"))
        #expect(try endpoint(again, "c") !== endpoint(before, "c"))
        func route(_ tree: RouteTree, _ id: String) -> RouteID? { tree.nodeIndex[id].flatMap { tree.nodes[$0].route } }
        #expect(try before.resolve("c").route == route(before, "a"))  // refused: the fallback
        #expect(try again.resolve("c").route == route(again, "c"))  // the new guard allows it

        // A title and a route name edited: that node, that endpoint, and nothing else, are new.
        let edited = try RouteTree(root: spec(titleOfA: "Aye", nameOfB: "b2", allowC: true), reusing: again)
        same(edited, try RouteTree(root: spec(titleOfA: "Aye", nameOfB: "b2", allowC: true)))
        for id in ["root", "a", "b", "more", "c"] {
            let index = try #require(edited.nodeIndex[id])
            #expect((edited.nodes[index] === again.nodes[index]) == (id != "a"), "node \(id)")
        }
        #expect(try endpoint(edited, "a") === endpoint(again, "a"))
        #expect(try endpoint(edited, "b") !== endpoint(again, "b"))
        #expect(try endpoint(edited, "b").name == "b2")
    }

    /// A pattern edited from one Unicode form to another (`café` precomposed, then decomposed)
    /// is a new pattern: requests are matched by bytes, so the reloaded tree matches what a
    /// tree built alone matches (the old pattern and its compiled matcher were kept, since the
    /// two strings compare equal as Swift strings).
    @Test func aPatternEditedToAnotherUnicodeFormIsCompiledAgain() throws {
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        let before = try RouteTree(
            root: .stack([.endpoint(composed, id: "cafe"), .endpoint("b", id: "b")], id: "root"))
        let again = try RouteTree(
            root: .stack([.endpoint(decomposed, id: "cafe"), .endpoint("b", id: "b")], id: "root"), reusing: before)
        #expect(try again.matcher.match(decomposed)?.route == 0)
        #expect(try again.matcher.match(composed) == nil)
        #expect(Array(again.endpoints[0].definition.displayText.utf8) == Array(decomposed.utf8))
    }

    /// A reload that changed one route of many patches the matcher: the unchanged routes'
    /// compiled subtrees are kept, and the tree matches what one built alone matches.
    @Test func aReloadWithOneRouteChangedPatchesTheMatcher() throws {
        func spec(_ last: String) -> NodeSpec {
            .stack(
                (0..<200).map { .endpoint("tab\($0 % 20)/item\($0)/:id", id: "e\($0)") }
                    + [.endpoint(last, id: "last")], id: "root")
        }
        let before = try RouteTree(root: spec("tab3/last"))
        let again = try RouteTree(root: spec("edited/last"), reusing: before)
        let alone = try RouteTree(root: spec("edited/last"))
        #expect(MatcherPatchTests.structure(again.matcher) == MatcherPatchTests.structure(alone.matcher))
        #expect(again.matcher !== before.matcher)
        for request in ["edited/last", "tab3/last", "tab7/item7/42", "tab19/item199/x"] {
            #expect(
                try again.matcher.match(request).map { $0.route } == alone.matcher.match(request).map { $0.route },
                "\(request)")
        }
    }
}

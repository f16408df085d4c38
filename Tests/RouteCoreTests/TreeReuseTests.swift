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
}

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

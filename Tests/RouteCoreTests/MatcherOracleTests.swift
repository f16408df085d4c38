import RouteCoreOracle
import Testing

@testable import RouteCore

/// The compiled matcher against the reference matcher on seeded random route tables (the
/// fuzzer does the same with coverage guidance: scripts/fuzz).
@Suite struct MatcherOracleTests {
    /// SplitMix64: deterministic bytes from a seed.
    @Test func agreesWithTheReferenceOnFiveThousandRandomTables() {
        var generator = SeededGenerator(seed: 20_261_121)
        var disagreements: [String] = []
        for _ in 0..<5_000 {
            let bytes = (0..<96).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if let problem = FuzzCase(bytes).disagreement() { disagreements.append(problem) }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(3))")
    }

    @Test func theReferenceRanksLikeTheSpec() throws {
        let routes = try ["teams/:id", "teams/new", "...", "a/b/..."].map { try RouteDefinition(pattern: Pattern($0)) }
        let oracle = ReferenceMatcher(routes: routes)
        #expect(try oracle.match(["teams", "new"])?.route == 1)
        #expect(try oracle.match(["teams", "x"])?.route == 0)
        #expect(try oracle.match(["a", "b"])?.route == 3)
        #expect(try oracle.match(["zz"])?.route == 2)
    }
}

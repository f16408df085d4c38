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

    /// A table of app-shaped routes large enough that the compiled matcher takes its
    /// large-table layout (an arena of several megabytes, wide nodes with hash tables, long
    /// keys, validated parameters, rest routes), against the reference on requests made from
    /// the routes and on near misses.
    @Test func agreesWithTheReferenceOnALargeTable() throws {
        var generator = SeededGenerator(seed: 20_261_125)
        func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &generator)] }
        let tabs = (0..<150).map { "tab\($0)" }
        let words = ["a", "books", "b2", "notifications", "settings", "x", "photos", "membership-levels", "q", "zz"]
        var seen = Set<String>()
        var routes: [RouteDefinition] = []
        while routes.count < 24_000 {
            let depth = Int.random(in: 1...6, using: &generator)
            var parts = [pick(tabs)]
            var validators: [String: Validator] = [:]
            for position in 1..<max(1, depth) {
                switch Int.random(in: 0..<20, using: &generator) {
                case 0..<5: parts.append(":p\(position)")
                case 5:
                    parts.append(":d\(position)")
                    validators["d\(position)"] = try Validator(regex: "[0-9]+")
                case 6: parts.append(":_")
                default: parts.append(pick(words))
                }
            }
            if depth > 1, Int.random(in: 0..<30, using: &generator) == 0 { parts.append("...") }
            let text = parts.joined(separator: "/")
            guard seen.insert(text).inserted else { continue }
            routes.append(try RouteDefinition(pattern: Pattern(text), validators: validators))
        }
        var requests: [String] = []
        for _ in 0..<100 {
            let route = pick(routes)
            var segments = (route.pattern?.segments ?? []).map { segment -> String in
                switch segment {
                case .constant(let text): return text
                case .catchAll: return "rest/of/it"
                default: return pick(["42", "x", "7", "books"])
                }
            }
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: segments.append(pick(words))
            case 1: segments[segments.count - 1] = pick(words + ["9"])
            default: break
            }
            requests.append(segments.joined(separator: "/") + pick(["", "?page=2", "#top"]))
        }
        let matcher = Matcher(routes: routes)
        #expect(matcher.compiledBytes > 2 << 20)
        // Most requests are instances of a route: the comparison is not one of two misses.
        #expect(requests.filter { (try? matcher.match($0)) != nil }.count > 75)
        let problem = FuzzCase(routes: routes, requests: requests).disagreement()
        #expect(problem == nil, "\(problem?.prefix(300) ?? "")")
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

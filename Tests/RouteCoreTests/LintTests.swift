import Testing

@testable import RouteCore

/// The lint proves what it reports: no warning from sampled values, regex routes included.
@Suite struct LintTests {
    enum Route {
        case pattern(String, [String: String] = [:])
        case regex(String)
    }

    static func tree(_ routes: [Route]) throws -> RouteTree {
        let specs = try routes.enumerated().map { index, route -> NodeSpec in
            switch route {
            case .pattern(let text, let validators):
                return .endpoint(text, id: "r\(index)", where: try validators.mapValues { try Validator(regex: $0) })
            case .regex(let source):
                return NodeSpec(
                    kind: .endpoint, id: "r\(index)", title: nil, children: [], modals: [],
                    endpoint: EndpointSpec(regex: source))
            }
        }
        return try RouteTree(root: .stack(specs, id: "root"))
    }

    @Test(arguments: [
        "[0-9a-f]{8}", "[A-Z]{2}", "v[0-9]+", "@[a-z]+", "[0-9]{6}", "\\d{4}-\\d{2}", "(?:a|b)c?", "x{0,3}y",
    ])
    func validValidatorsGetNoWarning(regex: String) throws {
        let findings = Lint(tree: try Self.tree([.pattern("a/:x", ["x": regex])])).findings()
        #expect(findings.isEmpty, "\(findings.map(\.message))")
    }

    @Test(arguments: [
        ("[^\\s\\S]", "a required character class is empty"),
        ("a[^\\d\\D]|[^\\w\\W]+", "a required character class is empty"),
        ("[0-9]{0}", "it matches only the empty string, and segments are never empty"),
        ("^$", "it matches only the empty string, and segments are never empty"),
    ])
    func validatorsProvedEmptyAreReported(regex: String, why: String) throws {
        let findings = Lint(tree: try Self.tree([.pattern("a/:x", ["x": regex])])).findings()
        #expect(findings.map(\.message) == ["validator of 'x' ('\(regex)') rejects every value: \(why)"])
    }

    @Test func regexRoutesAreLinted() throws {
        let tree = try Self.tree([
            .regex("r/[a-z]+"), .regex("r/[a-z]+"), .pattern("animals/..."), .regex("animals/cats/\\w+"),
            .regex("zoo/\\w+"),
        ])
        let messages = Lint(tree: tree).findings().map(\.message)
        #expect(messages.contains("route 'regex:r/[a-z]+' duplicates 'regex:r/[a-z]+'"))
        #expect(
            messages.contains(
                "route 'regex:animals/cats/\\w+' can never win: 'animals/...' matches every path it matches, and regex routes rank after patterns"
            ))
        #expect(!messages.contains { $0.contains("zoo/") })
    }

    @Test func explainSaysARegexMatchesWhenItOnlyRanksLower() throws {
        let tree = try Self.tree([.regex("d/[a-z]+"), .pattern("d/:y")])
        let attempts = tree.attempts(["d", "abc"])
        #expect(attempts.map(\.outcome) == [.matched, .matched])
    }

    @Test func checkIsNearLinear() throws {
        // 20,000 routes under 50 first segments: the compiled trie keeps the comparisons per
        // route small (the old all-pairs loop made 400 million); counted, not timed.
        let patterns = try (0..<20_000).map { try Pattern("s\($0 % 50)/p\($0)/:id") }
        let matcher = Matcher(routes: try patterns.map { try RouteDefinition(pattern: $0) })
        let total = patterns.reduce(0) { $0 + matcher.routes(couldCover: $1).count }
        #expect(total == 20_000)
        // Each route could be covered only by itself; a rest route covers its subtree.
        #expect(matcher.routes(couldBeCoveredBy: patterns[7], limit: 64) == [7])
        let rest = try Pattern("s7/...")
        #expect(matcher.routes(couldBeCoveredBy: rest, limit: 64) == nil)  // 400 routes below
        #expect(matcher.routes(couldBeCoveredBy: rest, limit: 1_000)?.count == 400)
    }
}

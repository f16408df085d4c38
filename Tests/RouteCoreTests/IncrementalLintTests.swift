import RouteCoreOracle
import Testing

@testable import RouteCore

/// A lint started from the previous one gives exactly what a whole lint of the new tree gives:
/// on seeded random trees (constants, parameters, `:_`, catch-alls, validators, regex routes,
/// stacks with children and modals) edited in one to three route definitions.
@Suite struct IncrementalLintTests {
    static let segments = ["a", "b", "c", ":x", ":y", ":_", "a", "b"]

    static func pattern(_ generator: inout SeededGenerator) -> String {
        let count = Int.random(in: 0...3, using: &generator)
        var parts = (0..<count).map { _ in segments.randomElement(using: &generator) ?? "a" }
        // Parameters must differ within a pattern.
        var seen = Set<String>()
        parts = parts.map { part in
            guard part.hasPrefix(":"), part != ":_" else { return part }
            if seen.insert(part).inserted { return part }
            return "z"
        }
        if Int.random(in: 0..<6, using: &generator) == 0 { parts.append("...") }
        return parts.joined(separator: "/")
    }

    static func endpoint(_ pattern: String, line: Int, _ generator: inout SeededGenerator) throws -> NodeSpec {
        var validators: [String: Validator] = [:]
        if pattern.contains(":x"), Bool.random(using: &generator) {
            validators["x"] = try Validator(
                regex: ["[0-9]+", "[a-z]+", "a{0}"].randomElement(using: &generator) ?? "[0-9]+")
        }
        var endpoint = EndpointSpec(pattern: pattern)
        endpoint.validators = validators
        return NodeSpec(
            kind: .endpoint, id: "n\(line)", endpoint: endpoint, location: SourceLocation(file: "t.lua", line: line))
    }

    /// A stack of `patterns` (some pushed under the one before, one presented as a modal), with
    /// one regex route when `regex` is set.
    static func tree(_ patterns: [String], regex: String?, _ generator: inout SeededGenerator) throws -> RouteTree? {
        var roots: [NodeSpec] = []
        for (line, pattern) in patterns.enumerated() {
            var node = try endpoint(pattern, line: line + 1, &generator)
            if line % 5 == 4, var last = roots.popLast() {
                if line % 10 == 4 { last.modals.append(NodeSpec.stack([node])) } else { last.children.append(node) }
                node = last
            }
            roots.append(node)
        }
        if let regex {
            roots.append(
                NodeSpec(
                    kind: .endpoint, id: "regex", endpoint: EndpointSpec(regex: regex),
                    location: SourceLocation(file: "t.lua", line: 99)))
        }
        return try? RouteTree(root: NodeSpec.stack(roots, id: "root"))
    }

    @Test func anIncrementalLintEqualsAWholeLint() throws {
        var generator = SeededGenerator(seed: 20_261_125)
        var compared = 0
        var incremental = 0
        var changedFindings = 0
        for _ in 0..<600 {
            let count = Int.random(in: 2...24, using: &generator)
            var patterns = (0..<count).map { _ in Self.pattern(&generator) }
            let regex: String? = Bool.random(using: &generator) ? "a/b/[0-9]+" : nil
            // The same validators on both sides: the generator is reseeded per tree.
            let seed = UInt64.random(in: 0...UInt64.max, using: &generator)
            var first = SeededGenerator(seed: seed)
            guard let old = try Self.tree(patterns, regex: regex, &first) else { continue }
            let previous = Lint(tree: old).report()
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                patterns[Int.random(in: 0..<count, using: &generator)] = Self.pattern(&generator)
            }
            var second = SeededGenerator(seed: seed)
            guard let new = try Self.tree(patterns, regex: regex, &second) else { continue }
            let started = Lint(tree: new).report(previous: previous)
            let whole = Lint(tree: new).report()
            #expect(started.findings == whole.findings, "\(patterns)")
            compared += 1
            if started.wasIncremental { incremental += 1 }
            if started.wasIncremental, previous.findings != whole.findings { changedFindings += 1 }
        }
        #expect(compared > 400)
        #expect(incremental > compared / 2, "\(incremental) of \(compared) started from the previous lint")
        // The edits matter: many incremental lints found something else than the one before.
        #expect(changedFindings > compared / 4, "\(changedFindings) of \(compared)")
    }

    /// A tree of another shape (a route added, a line moved) is linted whole.
    @Test func anotherShapeIsLintedWhole() throws {
        var generator = SeededGenerator(seed: 7)
        let old = try #require(try Self.tree(["a", "b/:x", "c"], regex: nil, &generator))
        let added = try #require(try Self.tree(["a", "b/:x", "c", "d"], regex: nil, &generator))
        #expect(!Lint(tree: added).report(previous: Lint(tree: old).report()).wasIncremental)
        let renamed = try #require(try Self.tree(["a", "b/:y", "c"], regex: nil, &generator))
        #expect(Lint(tree: renamed).report(previous: Lint(tree: old).report()).wasIncremental)
    }
}

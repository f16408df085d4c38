import RouteCoreOracle
import Testing

@testable import RouteCore

/// Constants are told apart by their UTF-8 bytes everywhere routing decides (README,
/// "Requests"): `café` precomposed (U+00E9) and decomposed (`e` + U+0301) are equal as Swift
/// strings, but a request carries one spelling's bytes and is matched by them.
@Suite struct ConstantBytesTests {
    static let precomposed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    static func tree() throws -> RouteTree {
        try RouteTree(
            root: .stack(
                [
                    .endpoint("menu/\(precomposed)", id: "precomposed"),
                    .endpoint("menu/\(decomposed)", id: "decomposed"),
                    .endpoint("\(decomposed)/:table", id: "table"),
                ], id: "root"))
    }

    @Test func theTwoSpellingsAreTwoPatterns() throws {
        #expect(Self.precomposed == Self.decomposed)  // Swift's equality, which routing does not use
        #expect(try Pattern("menu/\(Self.precomposed)") != Pattern("menu/\(Self.decomposed)"))
        #expect(try Pattern("menu/\(Self.precomposed)").hashValue == Pattern("menu/\(Self.precomposed)").hashValue)
        #expect(Pattern.Segment.constant(Self.precomposed) != .constant(Self.decomposed))
        #expect(Set([Pattern.Segment.constant(Self.precomposed), .constant(Self.decomposed)]).count == 2)
    }

    @Test func eachRouteIsMatchedByItsOwnBytes() throws {
        let tree = try Self.tree()
        // Before, one trie edge held both routes under the first spelling's bytes: the second
        // route never matched ("no route matches").
        #expect(tree[try tree.resolve("menu/\(Self.precomposed)").route].node == tree.nodeIndex["precomposed"])
        #expect(tree[try tree.resolve("menu/\(Self.decomposed)").route].node == tree.nodeIndex["decomposed"])
        #expect(try tree.resolve("\(Self.decomposed)/4").params == ["table": "4"])
        #expect(throws: RouteError.self) { try tree.resolve("\(Self.precomposed)/4") }
        // The same through the raw matcher, and percent-encoded (decoded before matching).
        let compiled = try matcher(["menu/\(Self.precomposed)", "menu/\(Self.decomposed)"])
        #expect(try compiled.match("menu/caf%C3%A9")?.route == 0)
        #expect(try compiled.match("menu/cafe%CC%81")?.route == 1)
    }

    @Test func theLintAndTheExplanationAgree() throws {
        let tree = try Self.tree()
        // Not duplicates: each is reachable.
        #expect(Lint(tree: tree).findings().isEmpty)
        let miss = tree.explainMiss(try Request(parsing: "\(Self.precomposed)/4"))
        #expect(miss.contains("closest"))
        #expect(miss.contains("expected 'cafe\\u{301}', got 'caf\\u{E9}' (the same text in other Unicode scalars"))
        // The same spelling twice still is a duplicate.
        let twice = try RouteTree(
            root: .stack(
                [.endpoint("menu/\(Self.decomposed)", id: "a"), .endpoint("menu/\(Self.decomposed)", id: "b")],
                id: "root"))
        #expect(Lint(tree: twice).findings().map(\.message).contains { $0.contains("duplicates") })
    }

    @Test func theReferenceMatcherAgrees() throws {
        let routes = try ["menu/\(Self.precomposed)", "menu/\(Self.decomposed)"].map {
            try RouteDefinition(pattern: Pattern($0))
        }
        let oracle = ReferenceMatcher(routes: routes)
        #expect(try oracle.match(["menu", Self.precomposed])?.route == 0)
        #expect(try oracle.match(["menu", Self.decomposed])?.route == 1)
    }

    @Test func theInternerNumbersByBytesThroughGrowth() {
        var interner = StringInterner()
        var expected: [String] = []
        var numbers: [Int] = []
        var wanted: [Int] = []
        // Enough strings to grow the table several times, with the empty string, both
        // spellings and repeats among them.
        for index in 0..<3000 {
            let string =
                switch index % 7 {
                case 0: ""
                case 1: Self.precomposed
                case 2: Self.decomposed
                default: "s\(index / 2)"
                }
            numbers.append(Int(interner.number(of: string)))
            if let known = expected.firstIndex(where: { Pattern.sameBytes($0, string) }) {
                wanted.append(known)
            } else {
                wanted.append(expected.count)
                expected.append(string)
            }
        }
        #expect(numbers == wanted)
        #expect(interner.strings.count == expected.count)
        #expect(zip(interner.strings, expected).allSatisfy { Pattern.sameBytes($0, $1) })
    }
}

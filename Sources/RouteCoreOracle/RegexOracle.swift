import RouteCore

/// A random regular expression of the dialect Luna and Swift's `Regex` share, with inputs to
/// try it on: the differential test and the regex fuzzer check that Luna's linear-time engine
/// and Swift's backtracking one agree (match or not, and every named group's value).
///
/// Every group is named (`(?<g1>…)`), so ``PathRegex/match(_:)`` reports all captures.
/// Swift's `Regex` is run with the options Luna documents: ASCII classes, Unicode scalars, and
/// `\w` `\W` spelled out as the ASCII sets they stand for (see ``swiftSpelling(of:)``).
///
/// ```swift
/// var choices = RegexChoices(seed: 7)
/// let regexCase = RegexCase(&choices)
/// regexCase.disagreement()   // nil when both engines agree on every input
/// ```
package struct RegexCase: Sendable, CustomStringConvertible {
    package let pattern: String
    package let inputs: [String]

    package init(pattern: String, inputs: [String]) {
        self.pattern = pattern
        self.inputs = inputs
    }

    package init(_ choices: inout RegexChoices) {
        var writer = PatternWriter()
        let asciiOnly = choices.pick(4) == 0
        let pattern = writer.alternation(&choices, depth: 0).0
        var inputs: [String] = []
        let alphabet: [String] =
            asciiOnly
            ? ["a", "a", "b", "b", "c", "/", "-", "1", " ", "_"]
            : ["a", "a", "b", "b", "c", "/", "é", "\n", "-", "1", " ", "日"]
        for _ in 0..<(4 + choices.pick(8)) {
            var input = ""
            for _ in 0..<choices.pick(8) { input += alphabet[choices.pick(alphabet.count)] }
            inputs.append(input)
        }
        self.pattern = pattern
        self.inputs = inputs
    }

    package var description: String { "pattern \(pattern.debugDescription) inputs \(inputs.map(\.debugDescription))" }

    /// A description of the first input on which the engines disagree, or nil.
    package func disagreement() -> String? {
        let swift: Regex<AnyRegexOutput>
        do {
            swift = try Regex(Self.swiftSpelling(of: pattern)).asciiOnlyCharacterClasses()
                .matchingSemantics(.unicodeScalar)
        } catch {
            return nil  // Swift refuses it: nothing to compare.
        }
        let luna: PathRegex
        do { luna = try PathRegex(pattern) } catch { return "Luna refuses \(pattern.debugDescription): \(error)" }
        for input in inputs {
            let expected: [(String, String)]?
            do {
                if let match = try swift.wholeMatch(in: input) {
                    expected = match.output.compactMap { element in
                        guard let name = element.name, let value = element.substring else { return nil }
                        return (name, String(value))
                    }
                } else {
                    expected = nil
                }
            } catch {
                continue
            }
            let actual = luna.match(input)
            let same: Bool
            switch (expected, actual) {
            case (nil, nil): same = true
            case (let e?, let a?): same = e.map(\.0) == a.map(\.0) && e.map(\.1) == a.map(\.1)
            default: same = false
            }
            if !same {
                return
                    "pattern \(pattern.debugDescription) on \(input.debugDescription): Swift \(show(expected)), Luna \(show(actual))"
            }
            // The validator path (no captures, the DFA) must agree on the verdict too.
            if let validator = try? Validator(regex: pattern), (try? validator.accepts(input)) != (expected != nil) {
                return "validator \(pattern.debugDescription) on \(input.debugDescription): Swift \(expected != nil)"
            }
        }
        return nil
    }

    /// The pattern as Swift's `Regex` is given it: `\w` as `[a-zA-Z0-9_]` and `\W` as
    /// `[^a-zA-Z0-9_]`, the sets Luna documents for them (a nested class where the escape was
    /// inside brackets: `[\w-]` is `[[a-zA-Z0-9_]-]`). Swift 6.3's `Regex`, with ASCII classes and
    /// scalar semantics, takes a digit or `_` followed by some non-Latin scalars as a non-word
    /// character: `\W日` matches "1日" and `\w日` does not, where the spelled-out sets answer
    /// right (found by the regex fuzzer: `\W*?[a-c]{1,3}` on "\n\né1日 a"). Every other escape,
    /// and everything between `\Q` and `\E`, is passed through as written.
    package static func swiftSpelling(of pattern: String) -> String {
        var spelled = ""
        var escaped = false
        var quoted = false  // inside \Q…\E, where `\w` is the two characters
        for character in pattern {
            if escaped {
                escaped = false
                switch character {
                case "w" where !quoted: spelled += "[a-zA-Z0-9_]"
                case "W" where !quoted: spelled += "[^a-zA-Z0-9_]"
                case "Q" where !quoted:
                    quoted = true
                    spelled += "\\Q"
                case "E" where quoted:
                    quoted = false
                    spelled += "\\E"
                default: spelled += "\\" + String(character)
                }
            } else if character == "\\" {
                escaped = true
            } else {
                spelled.append(character)
            }
        }
        if escaped { spelled += "\\" }
        return spelled
    }

    private func show(_ captures: [(String, String)]?) -> String {
        guard let captures else { return "no match" }
        return "match " + captures.map { "\($0.0)=\($0.1.debugDescription)" }.joined(separator: " ")
    }
}

/// Where a ``RegexCase`` takes its choices from: a seeded generator (property tests) or the
/// fuzzer's bytes (so coverage guidance steers the shapes).
package struct RegexChoices {
    private var generator: SeededGenerator?
    private var bytes: [UInt8]
    private var position = 0

    package init(seed: UInt64) {
        generator = SeededGenerator(seed: seed)
        bytes = []
    }

    package init(bytes: [UInt8]) {
        generator = nil
        self.bytes = bytes
    }

    /// A number in 0..<n.
    package mutating func pick(_ n: Int) -> Int {
        guard n > 1 else { return 0 }
        if generator != nil { return Int.random(in: 0..<n, using: &generator!) }
        guard position < bytes.count else { return 0 }
        position += 1
        return Int(bytes[position - 1]) % n
    }
}

/// Writes random patterns. A repetition (but `?`) only repeats something that cannot match
/// the empty string: over a nullable body, Swift's backtracking ends the loop
/// at the first empty iteration even before its minimum count (`(?:^a??){2,}` refuses "a",
/// which the expression describes), where Luna matches the language the expression describes,
/// as RE2 does. Those cases are tested apart, against hand-checked answers.
private struct PatternWriter {
    var groups = 0

    mutating func alternation(_ c: inout RegexChoices, depth: Int) -> (String, nullable: Bool) {
        let count = depth > 1 ? 1 : [1, 1, 1, 2, 3][c.pick(5)]
        let branches = (0..<count).map { _ in concatenation(&c, depth: depth) }
        return (branches.map(\.0).joined(separator: "|"), branches.contains { $0.nullable })
    }

    mutating func concatenation(_ c: inout RegexChoices, depth: Int) -> (String, nullable: Bool) {
        let items = (0..<c.pick(depth > 1 ? 2 : 4) + (depth == 0 ? 1 : 0)).map { _ in item(&c, depth: depth) }
        return (items.map(\.0).joined(), items.allSatisfy { $0.nullable })
    }

    mutating func item(_ c: inout RegexChoices, depth: Int) -> (String, nullable: Bool) {
        let (atom, nullable) = self.atom(&c, depth: depth)
        if atom == "^" || atom == "$" { return (atom, true) }
        // Counted copies of a nullable body make Swift's Regex explore every way to split the
        // empty string among them (nested, minutes for 8 scalars), so those get `?` at most.
        let quantifiers = nullable ? ["", "", "?"] : ["", "", "", "?", "{0,2}", "{1,3}", "{2}", "*", "+", "{2,}"]
        let quantifier = quantifiers[c.pick(quantifiers.count)]
        let lazy = !quantifier.isEmpty && c.pick(3) == 0 ? "?" : ""
        return (atom + quantifier + lazy, nullable || ["*", "?", "{0,2}"].contains(quantifier))
    }

    mutating func atom(_ c: inout RegexChoices, depth: Int) -> (String, nullable: Bool) {
        switch c.pick(depth > 1 ? 6 : 9) {
        case 0, 1, 2:
            let literals = ["a", "b", "c", "/", "é", "-", "\\.", "1"]
            return (literals[c.pick(literals.count)], false)
        case 3:
            let classes = ["[ab]", "[^a]", "[a-c]", "\\d", "\\w", "\\s", "\\W", ".", "[^\\n]", "[a-z&&[^b]]", "[\\w-]"]
            return (classes[c.pick(classes.count)], false)
        case 4:
            // No `\b`: Swift's follows Unicode word segmentation, Luna's the ASCII `\w` (tested apart).
            let anchors = ["^", "$"]
            return c.pick(3) == 0 ? (anchors[c.pick(anchors.count)], true) : ("a", false)
        case 5: return ("b", false)
        case 6, 7:
            groups += 1
            let name = "g\(groups)"
            let (inner, nullable) = alternation(&c, depth: depth + 1)
            return ("(?<\(name)>" + inner + ")", nullable)
        default:
            let (inner, nullable) = alternation(&c, depth: depth + 1)
            return ("(?:" + inner + ")", nullable)
        }
    }
}

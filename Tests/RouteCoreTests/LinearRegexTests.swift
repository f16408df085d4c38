import RouteCoreOracle
import Testing

@testable import RouteCore

/// Luna's linear-time regex engine: the dialect, its refusals, and agreement with Swift's
/// backtracking `Regex` on random patterns (the fuzzer does the same: scripts/fuzz regex).
@Suite struct LinearRegexTests {
    /// Whole matches and captures, as Swift's `Regex` gives them (checked by hand against it),
    /// but for one documented difference: a group in a loop keeps the last iteration that
    /// consumed input, where Swift reports an empty iteration tried after it (`(a?)*` on "aa":
    /// Luna "a", Swift ""); an empty iteration counts only when it is the loop's first.
    @Test(arguments: [
        ("(a*)*", "", "match <>"),
        ("(a*)*", "b", "no match"),
        ("(a*)+", "", "match <>"),
        ("(a|ab)(c|bcd)(d*)", "abcd", "match <a> <bcd> <>"),
        ("(a?)*", "aa", "match <a>"),
        ("(a*?)*", "aa", "match <aa>"),
        ("(a|b)*?", "ab", "match <b>"),
        ("(|a)+", "a", "match <a>"),
        ("(a??)+", "a", "match <a>"),
        ("((a)|b)*", "ab", "match <b> <a>"),
        ("(a)|b", "b", "match nil"),
        ("(a?)+?", "aa", "match <a>"),
        ("a{,3}", "aa", "match"),
        ("a{2", "a{2", "match"),
        ("a{,}", "a{,}", "match"),
        ("a{ 1}", "a", "match"),
        ("{", "{", "match"),
        ("a]", "a]", "match"),
        (".", "\n", "no match"),
        (".", "\u{2028}", "no match"),
        (".", "é", "match"),
        ("(?s).", "\n", "match"),
        ("[^a]", "\n", "match"),
        ("a$", "a\n", "no match"),
        ("a\\Z\\n", "a\n", "match"),
        ("$^", "", "match"),
        ("a^", "a", "no match"),
        ("\\s", "\u{0B}", "match"),
        ("\\s", "\u{A0}", "no match"),
        ("\\w", "é", "no match"),
        ("\\d", "٣", "no match"),
        ("\\W", "é", "match"),
        // A digit or `_` before a non-Latin scalar is still a word character (Swift 6.3's `Regex`
        // with ASCII classes answers these four the other way; the regex fuzzer's first finding).
        ("\\W*?[a-c]{1,3}", "\n\né1日 a", "no match"),
        ("\\W日", "1日", "no match"),
        ("\\w日", "_日", "match"),
        ("[\\w-]٠", "1٠", "match"),
        ("\\h", "\t", "match"),
        ("\\bab\\b", "ab", "match"),
        // `\b` is the ASCII `\w` boundary, the edges counting as non-word (as in PCRE and RE2;
        // Swift's default follows Unicode word segmentation instead).
        ("\\b", "", "no match"),
        ("\\B", "", "match"),
        ("a\\b-", "a-", "match"),
        ("-\\b ", "- ", "no match"),
        ("a\\Bé", "aé", "no match"),
        ("(?<g>a|)*", "a", "match <a>"),
        ("(?<g>[ab][^a]*|){2,}", "ba-a", "match <a>"),
        ("(?:)+", "", "match"),
        ("(?:)*", "", "match"),
        // Over a body that can match empty, Luna matches the language the expression describes
        // (Swift's backtracking stops such a loop at its first empty iteration and refuses these).
        ("(?:^a??){2,}", "a", "match"),
        ("(?:$|a){2,}", "a", "match"),
        ("a\\Bb", "ab", "match"),
        ("(?i)a", "A", "match"),
        ("(?i)é", "É", "match"),
        ("(?i)[a-c]", "B", "match"),
        ("(?i)[^a]", "A", "no match"),
        ("(?i:a)b", "AB", "no match"),
        ("a(?i)b|c", "C", "match"),
        ("(a(?i)b)c", "aBC", "no match"),
        ("(?i-i)a", "A", "no match"),
        ("\\x41\\x{42}\\u0043\\u{44}", "ABCD", "match"),
        ("\\012", "\n", "match"),
        ("[[:alpha:]]+", "ab", "match"),
        ("[[:^alpha:]]", "1", "match"),
        ("[a-c&&b]", "a", "no match"),
        ("[abc--b]", "b", "no match"),
        ("[a--b]", "a", "match"),
        ("[[a][b]]", "b", "match"),
        ("[^[a]]", "a", "no match"),
        ("[a-z-0]", "-", "match"),
        ("\\Qa.b\\E", "a.b", "match"),
        ("\\Qa.b\\E", "axb", "no match"),
        ("(?#note)a", "a", "match"),
        ("(?<n>x)|(?<m>y)", "y", "match nil <y>"),
        ("(?P<n>x)(?'m'y)", "xy", "match <x> <y>"),
        ("a{2}?", "aa", "match"),
        ("(.*a){12}", String(repeating: "a", count: 12), "match <a>"),
        ("(a+)+$", String(repeating: "a", count: 30) + "!", "no match"),
    ])
    func matches(_ pattern: String, _ input: String, _ expected: String) throws {
        let regex = try LinearRegex(pattern)
        let outcome: String
        var input = input
        outcome = input.withUTF8 { bytes in
            guard let groups = regex.captures(bytes) else { return "no match" }
            let parts = groups.map { range in
                range.map { "<" + String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self) + ">" }
                    ?? "nil"
            }
            return (["match"] + parts).joined(separator: " ")
        }
        #expect(outcome == expected, "\(pattern.debugDescription) on \(input.debugDescription)")
        // The capture-free path (DFA or Pike VM) gives the same verdict.
        #expect(regex.wholeMatch(input) == (expected != "no match"))
    }

    /// What has no linear-time algorithm is refused with a reason, and so are mistakes.
    @Test(arguments: [
        ("(a)\\1", "backreferences are not supported: they have no linear-time algorithm (at offset 3)"),
        ("(?<n>a)\\k<n>", "backreferences are not supported: they have no linear-time algorithm (at offset 7)"),
        ("a(?=b)", "lookahead is not supported: it has no linear-time algorithm (at offset 1)"),
        ("(?<!a)b", "lookbehind is not supported: it has no linear-time algorithm (at offset 0)"),
        ("(?>a+)b", "atomic groups are not supported: they have no linear-time algorithm (at offset 0)"),
        ("a*+", "possessive quantifiers are not supported: they have no linear-time algorithm (at offset 2)"),
        ("a**", "a quantifier must follow something to repeat (use a group) (at offset 2)"),
        ("*a", "quantifier '*' must follow something to repeat (at offset 0)"),
        ("a{1001}", "a repetition count above 1000 is not supported (at offset 1)"),
        ("a{3,2}", "quantifier {3,2}: the maximum is below the minimum (at offset 1)"),
        (
            "((a{1000}){1000})",
            "the expression is too large once its repetitions are written out (more than 20000 steps); use smaller counts (at offset 0)"
        ),
        ("(a", "missing ')' (at offset 0)"),
        ("a)", "unbalanced ')' (at offset 1)"),
        ("[a", "missing ']' (at offset 0)"),
        ("[]", "empty class '[]' (write '\\]' for a bracket) (at offset 1)"),
        ("[z-a]", "invalid class range (the bounds are reversed) (at offset 1)"),
        ("\\p{L}", "Unicode properties (\\p{…}) are not supported: classes are ASCII (at offset 0)"),
        ("\\y", "unsupported escape '\\y' (at offset 0)"),
        ("(?x)a", "unsupported group or flag '(?x' (flags: i, s) (at offset 0)"),
        ("(?<a>x)(?<a>y)", "two groups are named 'a' (at offset 7)"),
        ("^*", "an anchor or boundary cannot be repeated (at offset 0)"),
    ])
    func refuses(_ pattern: String, _ message: String) {
        #expect(throws: RouteDefinitionError("invalid regular expression '\(pattern)': \(message)")) {
            _ = try Validator(regex: pattern)
        }
    }

    /// The engines agree on 2,000 random patterns of the shared dialect, each on several inputs.
    @Test func agreesWithSwiftRegexOnRandomPatterns() {
        var disagreements: [String] = []
        for seed in 0..<2_000 {
            var choices = RegexChoices(seed: UInt64(seed))
            if let problem = RegexCase(&choices).disagreement() { disagreements.append("seed \(seed): \(problem)") }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) disagreements: \(disagreements.prefix(5))")
    }

    /// The oracle gives Swift's `Regex` `\\w` and `\\W` as the ASCII sets they stand for, so the
    /// fuzzer's first finding (where Swift's shorthand answers wrong) is no disagreement; the
    /// spelling leaves other escapes and quoted text alone.
    @Test func theOracleSpellsOutTheWordClassesForSwift() throws {
        #expect(RegexCase(pattern: "\\W*?[a-c]{1,3}", inputs: ["\n\né1日 a", "\n a", "1a"]).disagreement() == nil)
        #expect(RegexCase(pattern: "(?<g1>[\\w-])日", inputs: ["1日", "_日", "-日", "é日"]).disagreement() == nil)
        #expect(RegexCase.swiftSpelling(of: "[\\w-]\\W\\d\\\\w\\.") == "[[a-zA-Z0-9_]-][^a-zA-Z0-9_]\\d\\\\w\\.")
        #expect(RegexCase.swiftSpelling(of: "\\Q\\w\\E\\w") == "\\Q\\w\\E[a-zA-Z0-9_]")
        // Luna's own answers on them, which the spelled-out sets agree with.
        #expect(try LinearRegex("\\W*?[a-c]{1,3}").wholeMatch("\n\né1日 a") == false)
        #expect(try LinearRegex("\\w日").wholeMatch("1日"))
    }

    /// The shapes that make a backtracking engine exponential run in one pass here; the DFA is
    /// built for the validator shapes and stays small.
    @Test(arguments: ["(a+)+$", "(a|aa)+b", "(.*a){12}", "(a*)*b", "(x+x+)+y", "(\\w+\\s?)*$"])
    func pathologicalShapesRunInOnePass(_ pattern: String) throws {
        let regex = try LinearRegex(pattern)
        let input = String(repeating: "a", count: 8_000) + "!"
        #expect(!regex.wholeMatch(input))
        // The bytes are read inside the closure (a pointer returned from it would dangle).
        #expect(Array(input.utf8).withUnsafeBufferPointer { regex.captures($0) } == nil)
        #expect((regex.dfa?.stateCount ?? 0) < 100)
    }

    @Test func theDFAIsSkippedForWordBoundariesAndStillMatches() throws {
        let regex = try LinearRegex("\\bcat\\b.*")
        #expect(regex.dfa == nil)
        #expect(regex.wholeMatch("cat food"))
        #expect(!regex.wholeMatch("cats"))
    }

    @Test func malformedUTF8ReadsAsReplacementCharacters() throws {
        let regex = try LinearRegex("a.b")
        let bytes: [UInt8] = [0x61, 0xFF, 0x62]
        #expect(bytes.withUnsafeBufferPointer { regex.wholeMatch($0) })
        let truncated: [UInt8] = [0x61, 0xE6, 0x97, 0x62]
        #expect(!truncated.withUnsafeBufferPointer { regex.wholeMatch($0) })
    }
}

/// A regular expression that matches in time linear in its input, whatever the pattern.
///
/// Luna's validators and whole-path regexes take untrusted input (deep links), so they never
/// run on a backtracking engine: `(a+)+$` against 8,000 `a`s and a `!` costs the same few
/// microseconds per kilobyte as `[0-9]+`. The source is parsed (``RegexParser``), compiled to a
/// Thompson NFA (``RegexProgram``), and run as a DFA built at compile time (``RegexDFA``) when
/// no captures are needed, or as a Pike VM (``PikeVM``) for captures, for `\b`, and for
/// programs whose DFA would be too large.
///
/// ```swift
/// let regex = try LinearRegex("(?<animal>[a-z]+)/(?<id>\\d+)")
/// regex.wholeMatch("cats/42")            // true
/// regex.namedCaptures("cats/42")         // [("animal", "cats"), ("id", "42")]
/// ```
///
/// - Complexity: O(program size × input scalars); O(input scalars) on the DFA.
struct LinearRegex: Sendable {
    let source: String
    /// The parsed expression (the lint's proofs read it).
    let syntax: RegexNode
    let program: RegexProgram
    let dfa: RegexDFA?
    /// Capture names by group index (nil: an unnamed group).
    let captureNames: [String?]

    init(_ source: String) throws(RegexSyntaxError) {
        try self.init(parsed: try ParsedRegex(source))
    }

    /// Compiles an expression already parsed.
    init(parsed: ParsedRegex) throws(RegexSyntaxError) {
        source = parsed.source
        syntax = parsed.syntax
        captureNames = parsed.captureNames
        program = try RegexProgram(syntax, captureCount: captureNames.count)
        dfa = RegexDFA(program)
    }

    /// Whether the expression matches the whole of `bytes` (UTF-8).
    func wholeMatch(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if let dfa { return dfa.matches(bytes) }
        var vm = PikeVM(program, captures: false)
        return vm.wholeMatch(bytes) != nil
    }

    func wholeMatch(_ string: String) -> Bool {
        var string = string
        return string.withUTF8 { wholeMatch($0) }
    }

    /// The groups' byte ranges in `bytes` (nil for a group that took no part) when the
    /// expression matches the whole of it; nil when it does not.
    func captures(_ bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>?]? {
        if let dfa, !dfa.matches(bytes) { return nil }
        var vm = PikeVM(program, captures: true)
        guard let slots = vm.wholeMatch(bytes) else { return nil }
        return (0..<captureNames.count).map { k in
            let (start, end) = (slots[2 * k], slots[2 * k + 1])
            return start >= 0 && end >= start ? start..<end : nil
        }
    }

    /// The named groups that took part, in order, with their values, when the expression
    /// matches the whole of `string`.
    func namedCaptures(_ string: String) -> [(String, String)]? {
        var string = string
        return string.withUTF8 { bytes -> [(String, String)]? in
            guard let ranges = captures(bytes) else { return nil }
            var result: [(String, String)] = []
            for (name, range) in zip(captureNames, ranges) {
                guard let name, let range else { continue }
                result.append((name, String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)))
            }
            return result
        }
    }
}

/// A regular expression parsed (and so checked against the dialect) but not compiled: what
/// the lint reads, and what a validator on the byte fast path keeps.
struct ParsedRegex: Sendable {
    let source: String
    let syntax: RegexNode
    let captureNames: [String?]

    init(_ source: String) throws(RegexSyntaxError) {
        self.source = source
        var parser = RegexParser(source)
        syntax = try parser.parse()
        captureNames = parser.captureNames
    }
}

extension RouteDefinitionError {
    /// A regex error as users see it: `invalid regular expression '(a)\1': backreferences are
    /// not supported: they have no linear-time algorithm (at offset 3)`.
    init(regex source: String, _ error: RegexSyntaxError) {
        self.init("invalid regular expression '\(source)': \(error.message) (at offset \(error.offset))")
    }
}

/// A mistake in a regular expression, or a feature Luna does not run: `offset` counts Unicode
/// scalars from 0.
struct RegexSyntaxError: Error, Equatable, Sendable {
    var message: String
    var offset: Int
}

/// Parses Luna's regular expression dialect into a ``RegexNode`` tree.
///
/// The dialect is the common Perl/PCRE core, every construct of which runs in linear time:
/// literals and escapes (`\t \n \r \f \v \e \a \0`, `\xHH`, `\x{H…}`, `\u{H…}`, `\uHHHH`, `\Q…\E`),
/// `.`, classes (`[a-z]`, `[^…]`, nested classes, `&&`, `--`, `~~`, `[:alpha:]`), the ASCII
/// shorthands `\d \w \s \h` and their negations, groups (`(…)`, `(?:…)`, `(?<name>…)`,
/// `(?P<name>…)`, `(?'name'…)`, `(?#comment)`), alternation, greedy and lazy quantifiers
/// (`* + ? {n} {n,} {n,m} {,m}`, counts up to 1,000), anchors `^ $ \A \z \Z`, word boundaries
/// `\b \B`, and the flags `i` (case-insensitive) and `s` (`.` matches line terminators) as
/// `(?is)`, `(?-i)` or `(?i:…)`. Backreferences, lookaround, atomic groups and possessive
/// quantifiers have no linear-time algorithm and are refused with a message saying so.
struct RegexParser {
    /// The largest count a `{n,m}` quantifier may name.
    static let maximumCount = 1000

    private let s: [Unicode.Scalar]
    private var i = 0
    private var caseInsensitive = false
    private var dotAll = false
    private(set) var captureCount = 0
    /// Capture names by index (nil for unnamed groups).
    private(set) var captureNames: [String?] = []

    init(_ source: String) { s = Array(source.unicodeScalars) }

    /// Parses the whole source.
    mutating func parse() throws(RegexSyntaxError) -> RegexNode {
        let node = try alternation()
        if i < s.count {
            // Only an unbalanced `)` stops the top-level alternation early.
            throw RegexSyntaxError(message: "unbalanced ')'", offset: i)
        }
        return node
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        i + offset < s.count ? s[i + offset] : nil
    }

    private mutating func alternation() throws(RegexSyntaxError) -> RegexNode {
        // A flag set by `(?i)` lasts to the end of the enclosing group, across its branches.
        let savedFlags = (caseInsensitive, dotAll)
        defer { (caseInsensitive, dotAll) = savedFlags }
        var branches = [try concatenation()]
        while peek() == "|" {
            i += 1
            branches.append(try concatenation())
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func concatenation() throws(RegexSyntaxError) -> RegexNode {
        var items: [RegexNode] = []
        while let c = peek(), c != "|", c != ")" {
            let start = i
            guard let atom = try atom() else { continue }
            items.append(try quantified(atom, start: start))
        }
        switch items.count {
        case 0: return .empty
        case 1: return items[0]
        default: return .concatenation(items)
        }
    }

    /// Reads quantifiers after `atom`.
    private mutating func quantified(_ atom: RegexNode, start: Int) throws(RegexSyntaxError) -> RegexNode {
        guard let (minimum, maximum) = try quantifier() else { return atom }
        if case .assertion = atom {
            throw RegexSyntaxError(message: "an anchor or boundary cannot be repeated", offset: start)
        }
        var greedy = true
        if peek() == "?" {
            greedy = false
            i += 1
        } else if peek() == "+" {
            throw RegexSyntaxError(
                message: "possessive quantifiers are not supported: they have no linear-time algorithm", offset: i)
        }
        if let c = peek(), c == "*" || c == "+" || c == "?" || (c == "{" && quantifierLength() != nil) {
            throw RegexSyntaxError(message: "a quantifier must follow something to repeat (use a group)", offset: i)
        }
        return .repetition(atom, minimum: minimum, maximum: maximum, greedy: greedy)
    }

    /// Reads `* + ? {…}` at the current position, or nil.
    private mutating func quantifier() throws(RegexSyntaxError) -> (Int, Int?)? {
        switch peek() {
        case "*":
            i += 1
            return (0, nil)
        case "+":
            i += 1
            return (1, nil)
        case "?":
            i += 1
            return (0, 1)
        case "{":
            guard let length = quantifierLength() else { return nil }
            let start = i
            let body = String(String.UnicodeScalarView(s[(i + 1)..<(i + length - 1)]))
                .filter { $0 != " " }
            i += length
            let parts = body.split(separator: ",", omittingEmptySubsequences: false)
            guard let lower = parts[0].isEmpty ? 0 : Int(parts[0]) else {
                throw RegexSyntaxError(message: "invalid quantifier", offset: start)
            }
            var upper: Int? = lower
            if parts.count == 2 {
                if parts[1].isEmpty {
                    upper = nil
                } else if let value = Int(parts[1]) {
                    upper = value
                } else {
                    throw RegexSyntaxError(message: "invalid quantifier", offset: start)
                }
            }
            if lower > Self.maximumCount || (upper ?? 0) > Self.maximumCount {
                throw RegexSyntaxError(
                    message: "a repetition count above \(Self.maximumCount) is not supported", offset: start)
            }
            if let upper, upper < lower {
                throw RegexSyntaxError(message: "quantifier {\(body)}: the maximum is below the minimum", offset: start)
            }
            return (lower, upper)
        default: return nil
        }
    }

    /// The length of a `{n}`, `{n,}`, `{n,m}` or `{,m}` quantifier at the current position, or nil
    /// when the brace is a literal (`a{`, `a{,}`, `a{x}`).
    private func quantifierLength() -> Int? {
        var j = i + 1
        var digits = 0
        var commas = 0
        while j < s.count, s[j] != "}" {
            let c = s[j]
            if c == "," {
                commas += 1
            } else if c.properties.numericType != nil, c.isASCII {
                digits += 1
            } else if c != " " {
                return nil
            }
            j += 1
        }
        guard j < s.count, digits > 0, commas <= 1 else { return nil }
        return j - i + 1
    }

    /// Reads one atom; nil for something that matches nothing by itself (a flag group, a comment).
    private mutating func atom() throws(RegexSyntaxError) -> RegexNode? {
        let start = i
        let c = s[i]
        i += 1
        switch c {
        case "(": return try group(start: start)
        case "[": return .set(try characterClass(start: start), literal: nil)
        case ".": return .set(dotAll ? .all : ScalarSet.lineTerminators.inverted, literal: nil)
        case "^": return .assertion(.start)
        case "$": return .assertion(.end)
        case "\\": return try escape(start: start)
        case "*", "+", "?":
            throw RegexSyntaxError(message: "quantifier '\(c)' must follow something to repeat", offset: start)
        case "{" where quantifierLength(at: start) != nil:
            throw RegexSyntaxError(message: "a quantifier must follow something to repeat", offset: start)
        default: return literal(c)
        }
    }

    private func quantifierLength(at position: Int) -> Int? {
        var copy = self
        copy.i = position
        return copy.quantifierLength()
    }

    private func literal(_ c: Unicode.Scalar) -> RegexNode {
        let set = ScalarSet(scalar: c.value)
        return .set(caseInsensitive ? set.caseFolded : set, literal: caseInsensitive ? nil : c)
    }

    private mutating func group(start: Int) throws(RegexSyntaxError) -> RegexNode? {
        var capture: Int?
        var name: String?
        if peek() == "?" {
            i += 1
            switch peek() {
            case ":":
                i += 1
                return try closeGroup(try alternation(), start: start)
            case "#":
                while let c = peek(), c != ")" { i += 1 }
                guard peek() == ")" else { throw RegexSyntaxError(message: "unterminated comment", offset: start) }
                i += 1
                return nil
            case "=", "!":
                throw RegexSyntaxError(
                    message: "lookahead is not supported: it has no linear-time algorithm", offset: start)
            case ">":
                throw RegexSyntaxError(
                    message: "atomic groups are not supported: they have no linear-time algorithm", offset: start)
            case "<" where peek(1) == "=" || peek(1) == "!":
                throw RegexSyntaxError(
                    message: "lookbehind is not supported: it has no linear-time algorithm", offset: start)
            case "<", "'":
                let close: Unicode.Scalar = peek() == "<" ? ">" : "'"
                i += 1
                name = try groupName(until: close, start: start)
            case "P" where peek(1) == "<":
                i += 2
                name = try groupName(until: ">", start: start)
            case "P" where peek(1) == "=" || peek(1) == ">":
                throw RegexSyntaxError(
                    message: "backreferences are not supported: they have no linear-time algorithm", offset: start)
            default:
                // Flags: (?is), (?-i), (?i:…).
                let saved = (caseInsensitive, dotAll)
                let flagsStart = i
                var on = true
                var sawFlag = false
                while let c = peek(), c != ")", c != ":" {
                    switch c {
                    case "-" where on: on = false
                    case "i": caseInsensitive = on
                    case "s": dotAll = on
                    default:
                        throw RegexSyntaxError(
                            message:
                                "unsupported group or flag '(?\(String(String.UnicodeScalarView(s[flagsStart...i])))' "
                                + "(flags: i, s)", offset: start)
                    }
                    sawFlag = sawFlag || c != "-"
                    i += 1
                }
                guard let end = peek(), sawFlag else {
                    throw RegexSyntaxError(message: "unterminated group", offset: start)
                }
                i += 1
                // `(?i)` changes the flags up to the end of the enclosing group (the caller's
                // concatenation restores them); `(?i:…)` only inside.
                if end == ")" { return nil }
                let inner = try alternation()
                (caseInsensitive, dotAll) = saved
                return try closeGroup(inner, start: start)
            }
        }
        if peek() == "?" {
            throw RegexSyntaxError(message: "unsupported group", offset: start)
        }
        captureCount += 1
        capture = captureCount
        captureNames.append(name)
        let inner = try alternation()
        return try closeGroup(.group(inner, capture: capture), start: start, unwrap: false)
    }

    private mutating func closeGroup(
        _ node: RegexNode, start: Int, unwrap: Bool = true
    ) throws(RegexSyntaxError)
        -> RegexNode
    {
        guard peek() == ")" else { throw RegexSyntaxError(message: "missing ')'", offset: start) }
        i += 1
        return unwrap ? .group(node, capture: nil) : node
    }

    private mutating func groupName(until close: Unicode.Scalar, start: Int) throws(RegexSyntaxError) -> String {
        var name = ""
        while let c = peek(), c != close {
            let letter = (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c == "_"
            guard letter || (c >= "0" && c <= "9" && !name.isEmpty) else {
                throw RegexSyntaxError(message: "invalid group name (letters, digits and '_')", offset: i)
            }
            name.unicodeScalars.append(c)
            i += 1
        }
        guard peek() == close, !name.isEmpty else {
            throw RegexSyntaxError(message: "invalid group name", offset: start)
        }
        i += 1
        if captureNames.contains(name) {
            throw RegexSyntaxError(message: "two groups are named '\(name)'", offset: start)
        }
        return name
    }

    // MARK: Escapes

    private mutating func escape(start: Int) throws(RegexSyntaxError) -> RegexNode? {
        guard let c = peek() else { throw RegexSyntaxError(message: "'\\' at the end", offset: start) }
        switch c {
        case "b":
            i += 1
            return .assertion(.wordBoundary)
        case "B":
            i += 1
            return .assertion(.notWordBoundary)
        case "A":
            i += 1
            return .assertion(.start)
        case "z":
            i += 1
            return .assertion(.end)
        case "Z":
            i += 1
            return .assertion(.endBeforeFinalNewline)
        case "Q":
            i += 1
            var items: [RegexNode] = []
            while i < s.count {
                if s[i] == "\\", peek(1) == "E" {
                    i += 2
                    break
                }
                items.append(literal(s[i]))
                i += 1
            }
            return items.isEmpty ? nil : (items.count == 1 ? items[0] : .group(.concatenation(items), capture: nil))
        case "E":
            i += 1
            return nil
        default:
            let set = try classEscape(start: start)
            if set.count == 1, let only = set.ranges.first, let scalar = Unicode.Scalar(only.lowerBound),
                !caseInsensitive
            {
                return .set(set, literal: scalar)
            }
            return .set(set.folded(caseInsensitive), literal: nil)
        }
    }

    /// An escape that stands for a set of scalars (inside or outside a class); `i` is just past `\`.
    private mutating func classEscape(start: Int, inClass: Bool = false) throws(RegexSyntaxError) -> ScalarSet {
        let c = s[i]
        i += 1
        switch c {
        case "d": return .digits
        case "D": return ScalarSet.digits.inverted
        case "w": return .word
        case "W": return ScalarSet.word.inverted
        case "s": return .space
        case "S": return ScalarSet.space.inverted
        case "h": return .horizontalSpace
        case "H": return ScalarSet.horizontalSpace.inverted
        case "t": return ScalarSet(scalar: 9)
        case "n": return ScalarSet(scalar: 10)
        case "v": return ScalarSet(scalar: 11)
        case "f": return ScalarSet(scalar: 12)
        case "r": return ScalarSet(scalar: 13)
        case "e": return ScalarSet(scalar: 27)
        case "a": return ScalarSet(scalar: 7)
        case "b" where inClass: return ScalarSet(scalar: 8)
        case "0":
            var value: UInt32 = 0
            for _ in 0..<2 {
                guard let d = peek(), d >= "0", d <= "7" else { break }
                value = value * 8 + (d.value - 48)
                i += 1
            }
            return ScalarSet(scalar: value)
        case "x", "u":
            return ScalarSet(scalar: try hexEscape(c, start: start))
        case "1"..."9", "k", "g":
            throw RegexSyntaxError(
                message: "backreferences are not supported: they have no linear-time algorithm", offset: start)
        case "p", "P":
            throw RegexSyntaxError(
                message: "Unicode properties (\\\(c){…}) are not supported: classes are ASCII", offset: start)
        default:
            if c.isASCII, c.properties.isAlphabetic || (c >= "0" && c <= "9") {
                throw RegexSyntaxError(message: "unsupported escape '\\\(c)'", offset: start)
            }
            return ScalarSet(scalar: c.value)
        }
    }

    private mutating func hexEscape(_ kind: Unicode.Scalar, start: Int) throws(RegexSyntaxError) -> UInt32 {
        var digits = ""
        if peek() == "{" {
            i += 1
            while let d = peek(), d != "}" {
                digits.unicodeScalars.append(d)
                i += 1
            }
            guard peek() == "}" else { throw RegexSyntaxError(message: "unterminated \\\(kind){…}", offset: start) }
            i += 1
        } else {
            let count = kind == "x" ? 2 : 4
            while digits.unicodeScalars.count < count, let d = peek(), d.properties.isASCIIHexDigit {
                digits.unicodeScalars.append(d)
                i += 1
            }
            if kind == "u", digits.unicodeScalars.count < 4 { digits = "" }
        }
        guard !digits.isEmpty, digits.unicodeScalars.count <= 8, let value = UInt32(digits, radix: 16),
            Unicode.Scalar(value) != nil
        else {
            throw RegexSyntaxError(message: "invalid \\\(kind) escape", offset: start)
        }
        return value
    }

    // MARK: Classes

    /// Parses a class; `i` is just past its `[`.
    private mutating func characterClass(start: Int) throws(RegexSyntaxError) -> ScalarSet {
        var negated = false
        if peek() == "^" {
            negated = true
            i += 1
        }
        var result = try classMembers(start: start)
        while let c = peek(), c != "]" {
            // A set operation: `&&` intersection, `--` subtraction, `~~` symmetric difference.
            i += 2
            let right = try classMembers(start: start)
            switch c {
            case "&": result = result.intersection(right)
            case "-": result = result.subtracting(right)
            default: result = result.symmetricDifference(right)
            }
        }
        guard peek() == "]" else { throw RegexSyntaxError(message: "missing ']'", offset: start) }
        i += 1
        // Case folding comes before negation: `(?i)[^a]` refuses `A` too.
        result = result.folded(caseInsensitive)
        return negated ? result.inverted : result
    }

    private func atOperator() -> Bool {
        guard let c = peek(), let d = peek(1), c == d else { return false }
        return c == "&" || c == "~" || (c == "-" && peek(2) != nil && peek(2) != "]")
    }

    /// The members up to `]` or a set operator.
    private mutating func classMembers(start: Int) throws(RegexSyntaxError) -> ScalarSet {
        var ranges: [ClosedRange<UInt32>] = []
        var sets: [ScalarSet] = []
        var first = true
        while let c = peek() {
            if c == "]" {
                if first { throw RegexSyntaxError(message: "empty class '[]' (write '\\]' for a bracket)", offset: i) }
                break
            }
            if atOperator() {
                if first { throw RegexSyntaxError(message: "a set operation needs a left side", offset: i) }
                break
            }
            first = false
            let memberStart = i
            if c == "[" {
                if peek(1) == ":", let posix = try posixClass() {
                    sets.append(posix)
                } else {
                    i += 1
                    sets.append(try characterClass(start: memberStart))
                }
                continue
            }
            guard let lower = try classAtom() else { continue }
            switch lower {
            case .set(let set):
                sets.append(set)
            case .scalar(let low):
                // A range `a-z`; a `-` before `]` or an operator is a literal.
                if peek() == "-", let next = peek(1), next != "]", !(next == "-" && peek(2) != "]") {
                    i += 1
                    let upperStart = i
                    guard case .scalar(let high)? = try classAtom() else {
                        throw RegexSyntaxError(message: "invalid class range (a bound is a class)", offset: upperStart)
                    }
                    guard low <= high else {
                        throw RegexSyntaxError(
                            message: "invalid class range (the bounds are reversed)", offset: memberStart)
                    }
                    ranges.append(low...high)
                } else {
                    ranges.append(low...low)
                }
            }
        }
        var result = ScalarSet(ranges: ranges)
        for set in sets { result = result.union(set) }
        return result
    }

    private enum ClassAtom {
        case scalar(UInt32)
        case set(ScalarSet)
    }

    private mutating func classAtom() throws(RegexSyntaxError) -> ClassAtom? {
        let start = i
        let c = s[i]
        i += 1
        guard c == "\\" else { return .scalar(c.value) }
        guard let e = peek() else { throw RegexSyntaxError(message: "missing ']'", offset: start) }
        if e == "Q" {
            // \Q…\E inside a class: the scalars are members.
            i += 1
            var ranges: [ClosedRange<UInt32>] = []
            while i < s.count, !(s[i] == "\\" && peek(1) == "E") {
                ranges.append(s[i].value...s[i].value)
                i += 1
            }
            if i < s.count { i += 2 }
            return ranges.isEmpty ? nil : .set(ScalarSet(ranges: ranges))
        }
        if e == "E" {
            i += 1
            return nil
        }
        let set = try classEscape(start: start, inClass: true)
        if set.count == 1, let only = set.ranges.first { return .scalar(only.lowerBound) }
        return .set(set)
    }

    /// `[:name:]` or `[:^name:]`; nil when the brackets are not a POSIX class.
    private mutating func posixClass() throws(RegexSyntaxError) -> ScalarSet? {
        var j = i + 2
        var name = ""
        while j < s.count, s[j] != ":" {
            name.unicodeScalars.append(s[j])
            j += 1
        }
        guard j + 1 < s.count, s[j + 1] == "]" else { return nil }
        let negated = name.hasPrefix("^")
        guard let set = ScalarSet.posix(negated ? String(name.dropFirst()) : name) else {
            throw RegexSyntaxError(message: "unknown class '[:\(name):]'", offset: i)
        }
        i = j + 2
        return negated ? set.inverted : set
    }
}

extension ScalarSet {
    fileprivate func folded(_ caseInsensitive: Bool) -> ScalarSet { caseInsensitive ? caseFolded : self }
}

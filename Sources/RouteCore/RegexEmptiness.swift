/// Facts about a regular expression's source that can be proved from its syntax, for
/// ``Lint``: it never guesses from sample values.
enum RegexEmptiness {
    /// True only when the regex provably matches no string: every alternative requires a
    /// character class that holds no character (`[^\s\S]`, `[^\d\D]`, `[^\w\W]`, `[^\x00-\u{10FFFF}]`…).
    /// Anything it does not understand counts as "can match".
    static func matchesNothing(_ source: String) -> Bool {
        var parser = Parser(Array(source.unicodeScalars))
        return parser.alternation() == .empty && parser.atEnd
    }

    /// True only when the regex provably matches nothing but the empty string (`[0-9]{0}`,
    /// `^$`): a path segment is never empty, so such a validator rejects every value.
    static func matchesOnlyEmpty(_ source: String) -> Bool {
        var parser = Parser(Array(source.unicodeScalars))
        _ = parser.alternation()
        return parser.atEnd && !parser.consumes && !parser.unsure
    }

    /// The whole segments a regex's matches all start with: its literal prefix up to the
    /// last `/` before the first metacharacter (`animals/cats/\w+` → `animals`, `cats`).
    static func literalSegments(_ source: String) -> [String] {
        var literal = ""
        var scalars = source.unicodeScalars.makeIterator()
        if source.hasPrefix("^") { _ = scalars.next() }
        while let c = scalars.next() {
            if "\\.[](){}|*+?^$".unicodeScalars.contains(c) {
                // A quantifier after the last literal character makes it optional.
                if "*?{".unicodeScalars.contains(c), !literal.isEmpty { literal.removeLast() }
                break
            }
            literal.unicodeScalars.append(c)
        }
        guard let slash = literal.lastIndex(of: "/") else { return [] }
        return literal[..<slash].split(separator: "/").map(String.init)
    }

    enum Verdict { case empty, maybe }

    struct Parser {
        let s: [Unicode.Scalar]
        var i = 0
        /// Some atom can consume a character; ``unsure``: something was not understood.
        var consumes = false
        var unsure = false
        init(_ s: [Unicode.Scalar]) { self.s = s }
        var atEnd: Bool { i >= s.count }

        mutating func alternation() -> Verdict {
            var all = sequence()
            while i < s.count, s[i] == "|" {
                i += 1
                if sequence() == .maybe { all = .maybe }
            }
            return all
        }

        mutating func sequence() -> Verdict {
            var verdict = Verdict.maybe
            while i < s.count, s[i] != "|", s[i] != ")" {
                let before = consumes
                let start = i
                let atom = self.atom()
                let zeroWidth = start < s.count && (s[start] == "^" || s[start] == "$")
                if !zeroWidth && s[start] != "(" { consumes = true }
                let (optional, none) = quantifier()
                if none { consumes = before }
                if atom == .empty && !optional { verdict = .empty }
            }
            return verdict
        }

        /// Reads a quantifier: whether it allows zero repetitions, and whether it allows only zero.
        mutating func quantifier() -> (zero: Bool, none: Bool) {
            guard i < s.count else { return (false, false) }
            var zero = false
            var none = false
            switch s[i] {
            case "*", "?":
                zero = true
                i += 1
            case "+": i += 1
            case "{":
                var j = i + 1
                var digits = ""
                while j < s.count, s[j] != "}" {
                    digits.unicodeScalars.append(s[j])
                    j += 1
                }
                guard j < s.count else { return (false, false) }
                let bounds = digits.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
                zero = bounds.first.map { $0 == 0 } ?? false
                none = zero && (bounds.count == 1 || bounds.last == 0)
                i = j + 1
            default: return (false, false)
            }
            if i < s.count, s[i] == "?" || s[i] == "+" { i += 1 }
            return (zero, none)
        }

        mutating func atom() -> Verdict {
            let c = s[i]
            i += 1
            switch c {
            case "(":
                if i < s.count, s[i] == "?" {
                    // (?:…) and (?<name>…) are groups; lookarounds and the rest are not understood.
                    if i + 1 < s.count, s[i + 1] == ":" {
                        i += 2
                    } else if i + 1 < s.count, s[i + 1] == "<", i + 2 < s.count, s[i + 2] != "=", s[i + 2] != "!" {
                        while i < s.count, s[i] != ">" { i += 1 }
                        i += 1
                    } else {
                        skipGroup()
                        unsure = true
                        return .maybe
                    }
                }
                let inner = alternation()
                if i < s.count, s[i] == ")" { i += 1 }
                return inner
            case "[": return characterClass()
            case "\\":
                if i < s.count {
                    if "bBAzZG".unicodeScalars.contains(s[i]) { unsure = true }  // zero-width escapes
                    i += 1
                }
                return .maybe
            default: return .maybe
            }
        }

        mutating func skipGroup() {
            var depth = 1
            while i < s.count, depth > 0 {
                if s[i] == "\\" { i += 1 } else if s[i] == "(" { depth += 1 } else if s[i] == ")" { depth -= 1 }
                i += 1
            }
        }

        /// A class is provably empty when it is negated and holds a class and its complement.
        mutating func characterClass() -> Verdict {
            var negated = false
            if i < s.count, s[i] == "^" {
                negated = true
                i += 1
            }
            var escapes: Set<Unicode.Scalar> = []
            var first = true
            while i < s.count, s[i] != "]" || first {
                first = false
                if s[i] == "\\", i + 1 < s.count {
                    escapes.insert(s[i + 1])
                    i += 2
                } else if s[i] == "[" {
                    return skipRestOfClass()  // nested classes and set operations: not understood
                } else {
                    i += 1
                }
            }
            i += 1
            guard negated else { return .maybe }
            let pairs: [(Unicode.Scalar, Unicode.Scalar)] = [("s", "S"), ("d", "D"), ("w", "W")]
            return pairs.contains { escapes.contains($0.0) && escapes.contains($0.1) } ? .empty : .maybe
        }

        mutating func skipRestOfClass() -> Verdict {
            var depth = 1
            while i < s.count, depth > 0 {
                if s[i] == "\\" { i += 1 } else if s[i] == "[" { depth += 1 } else if s[i] == "]" { depth -= 1 }
                i += 1
            }
            return .maybe
        }
    }
}

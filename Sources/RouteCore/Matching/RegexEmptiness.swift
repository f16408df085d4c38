/// Facts about a regular expression that can be proved from its syntax tree, for ``Lint``:
/// it never guesses from sample values.
enum RegexEmptiness {
    /// True only when the regex provably matches no string: every alternative requires a
    /// character class that holds no character (`[^\s\S]`, `[a&&b]`, `[^\x00-\x{10FFFF}]`…).
    static func matchesNothing(_ node: RegexNode) -> Bool { !node.canMatch }

    /// True only when the regex provably matches nothing but the empty string (`[0-9]{0}`,
    /// `^$`, `\b`): a path segment is never empty, so such a validator rejects every value.
    static func matchesOnlyEmpty(_ node: RegexNode) -> Bool { node.canMatch && !node.canConsume }

    /// The whole segments a regex's matches all start with: its literal prefix up to the
    /// last `/` before the first construct that is not a literal (`animals/cats/\w+` →
    /// `animals`, `cats`).
    static func literalSegments(_ node: RegexNode) -> [String] {
        var literal = ""
        literal.unicodeScalars.append(contentsOf: node.literalPrefix)
        guard let slash = literal.lastIndex(of: "/") else { return [] }
        return literal[..<slash].split(separator: "/").map(String.init)
    }
}

/// The syntax tree of a regular expression in Luna's dialect (see ``RegexParser``).
indirect enum RegexNode: Equatable, Sendable {
    /// Matches the empty string.
    case empty
    /// One scalar from the set (a literal is a one-scalar set; `literal` keeps its spelling for
    /// the lint's literal prefix).
    case set(ScalarSet, literal: Unicode.Scalar?)
    case concatenation([RegexNode])
    case alternation([RegexNode])
    /// A group; `capture` is the 1-based index of a capturing group.
    case group(RegexNode, capture: Int?)
    /// `maximum` nil: unbounded.
    case repetition(RegexNode, minimum: Int, maximum: Int?, greedy: Bool)
    case assertion(RegexAssertion)
}

/// The zero-width assertions of the dialect.
enum RegexAssertion: UInt8, Equatable, Sendable {
    /// `^`, `\A`: the start of the value.
    case start
    /// `$`, `\z`: the end of the value.
    case end
    /// `\Z`: the end, or before a final line feed.
    case endBeforeFinalNewline
    /// `\b`: between a word character and a non-word one (ASCII words).
    case wordBoundary
    /// `\B`
    case notWordBoundary
}

extension RegexNode {
    /// Whether the node can match some non-empty string (false for an empty class, `x{0}`…).
    var canConsume: Bool {
        switch self {
        case .empty, .assertion: false
        case .set(let set, _): !set.isEmpty
        case .concatenation(let items): items.allSatisfy(\.canMatch) && items.contains { $0.canConsume }
        case .alternation(let items): items.contains { $0.canMatch && $0.canConsume }
        case .group(let inner, _): inner.canConsume
        case .repetition(let inner, _, let maximum, _): maximum != 0 && inner.canConsume
        }
    }

    /// Whether the node can match at all, ignoring assertions (which need a position to decide).
    var canMatch: Bool {
        switch self {
        case .empty, .assertion: true
        case .set(let set, _): !set.isEmpty
        case .concatenation(let items): items.allSatisfy(\.canMatch)
        case .alternation(let items): items.contains { $0.canMatch }
        case .group(let inner, _): inner.canMatch
        case .repetition(let inner, let minimum, _, _): minimum == 0 || inner.canMatch
        }
    }

    /// The literal scalars the node's matches all start with, in order.
    var literalPrefix: [Unicode.Scalar] {
        var result: [Unicode.Scalar] = []
        _ = appendLiteralPrefix(to: &result)
        return result
    }

    /// Appends the literal prefix; returns whether the whole node was literal (so a following
    /// node's prefix continues it).
    private func appendLiteralPrefix(to result: inout [Unicode.Scalar]) -> Bool {
        switch self {
        case .empty: return true
        case .set(_, let literal?):
            result.append(literal)
            return true
        case .concatenation(let items):
            for item in items where !item.appendLiteralPrefix(to: &result) { return false }
            return true
        case .group(let inner, _): return inner.appendLiteralPrefix(to: &result)
        case .assertion(.start): return true
        case .repetition(let inner, let minimum, let maximum, _) where minimum == maximum:
            for _ in 0..<minimum where !inner.appendLiteralPrefix(to: &result) { return false }
            return true
        default: return false
        }
    }
}

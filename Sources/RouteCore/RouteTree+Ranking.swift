extension RouteDefinition {
    /// The route's rank as SPEC "Ranking" compares them, segment by segment: constant 0,
    /// validated parameter 1, parameter 2, `:_` 3, `...` 4; a pattern that ends gets -1 after
    /// its last segment (it beats a `...` there). Regex routes rank after all patterns but a
    /// bare `...` (5); the bare `...` last (6).
    public var rankVector: [Int] {
        guard let pattern else { return [5] }
        if pattern.isBareCatchAll { return [6] }
        var rank: [Int] = pattern.segments.map { segment in
            switch segment {
            case .constant: 0
            case .parameter(let name): validators[name] == nil ? 2 : 1
            case .wildcard: 3
            case .catchAll: 4
            }
        }
        if !pattern.endsInCatchAll { rank.append(-1) }
        return rank
    }

    /// Words for one rank value.
    static func rankName(_ value: Int) -> String {
        switch value {
        case -1: "the end of the pattern"
        case 0: "a constant"
        case 1: "a validated parameter"
        case 2: "a parameter"
        case 3: "':_'"
        case 4: "'...'"
        case 5: "a whole-path regex"
        default: "the catch-all '...'"
        }
    }
}

/// Why a request matched what it matched: every route tried, in rank order, and the
/// reason the winner beat the other routes that matched too.
public struct MatchExplanation: Sendable, Equatable {
    public var attempts: [RouteAttempt]
    /// The winning route index, if any.
    public var winner: Int?
    /// Why the winner won, one line per other matching route.
    public var reasons: [String]
}

extension RouteTree {
    /// Route indexes from most to least specific (declaration order breaks ties).
    public func rankOrder() -> [Int] {
        let vectors = endpoints.map(\.definition.rankVector)
        return vectors.indices.sorted { a, b in
            vectors[a] != vectors[b] ? vectors[a].lexicographicallyPrecedes(vectors[b]) : a < b
        }
    }

    /// Explains a request: which routes were tried, why each failed, which won and why.
    public func explain(_ segments: [String]) -> MatchExplanation {
        let attempts = attempts(segments)
        let order = rankOrder()
        let winner = (try? matcher.match(segments: segments))?.route
        var reasons: [String] = []
        if let winner {
            let mine = endpoints[winner].definition.rankVector
            for index in order where index != winner && attempts[index].outcome == .matched {
                let theirs = endpoints[index].definition.rankVector
                let text = attempts[index].pattern.isEmpty ? "/" : attempts[index].pattern
                if mine == theirs {
                    reasons.append("beats \(text): same rank, declared earlier")
                    continue
                }
                let position =
                    zip(mine, theirs).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                    ?? min(mine.count, theirs.count)
                let ours = position < mine.count ? RouteDefinition.rankName(mine[position]) : "the end of the pattern"
                let other =
                    position < theirs.count ? RouteDefinition.rankName(theirs[position]) : "the end of the pattern"
                let place = mine.first ?? 0 >= 5 || theirs.first ?? 0 >= 5 ? "" : "segment \(position + 1): "
                reasons.append("beats \(text): \(place)\(ours) ranks above \(other)")
            }
        }
        return MatchExplanation(attempts: order.map { attempts[$0] }, winner: winner, reasons: reasons)
    }
}

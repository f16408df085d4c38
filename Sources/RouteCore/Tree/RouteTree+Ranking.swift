extension RouteDefinition {
    /// The route's rank as docs/dsl.md's "Ranking" compares them, segment by segment: constant 0,
    /// validated parameter 1, parameter 2, `:_` 3, a rest segment (`...`, `:name?`, `:name+`) 4;
    /// a pattern that ends gets -1 after
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
            case .catchAll, .optional, .oneOrMore: 4
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
        case 4: "a rest segment ('...', ':name?' or ':name+')"
        case 5: "a whole-path regex"
        default: "the catch-all '...'"
        }
    }
}

/// Why a request matched what it matched: every route tried, in rank order, and the
/// reason the winner beat the other routes that matched too.
public struct MatchExplanation: Sendable, Equatable {
    public var attempts: [RouteAttempt]
    /// The winning route, if any.
    public var winner: RouteID?
    /// Why the winner won, one line per other matching route.
    public var reasons: [String]
    /// What the winner's guards would do with the request (filled by ``RouteTree/guardOutcomes(of:for:)``).
    public var guards: [GuardOutcome] = []
}

/// What one guard on the way to an endpoint does with a request, for `explain`.
public struct GuardOutcome: Sendable, Equatable {
    public enum Result: Sendable, Equatable {
        case allows
        case refuses(fallback: String?)
        case redirects(to: String)
        case staysPut
        case fails(String)
        /// An earlier guard already sent the request elsewhere.
        case notReached
    }
    /// The node that declares the guard, and whether it is its `enabled` or its `redirect`.
    public var node: String
    public var kind: NodeKind
    public var location: SourceLocation?
    public var isRedirect: Bool
    public var result: Result

    /// `enabled of stack 'stack:inbox' (app.lua:3): refuses → fallback 'login'`.
    public var text: String {
        let what = (isRedirect ? "redirect" : "enabled") + " of \(kind.rawValue) '\(node)'"
        let place = location.map { " (\($0))" } ?? ""
        let outcome: String
        switch result {
        case .allows: outcome = "allows"
        case .refuses(let fallback?): outcome = "refuses → fallback '\(fallback)'"
        case .refuses(nil): outcome = "refuses (no fallback: a disabled error)"
        case .redirects(let target): outcome = "redirects → '\(target)'"
        case .staysPut: outcome = "returns nil (no redirect)"
        case .fails(let message): outcome = "fails: \(message)"
        case .notReached: outcome = "not reached"
        }
        return what + place + ": " + outcome
    }
}

extension RouteTree {
    /// Routes from most to least specific (declaration order breaks ties).
    public func rankOrder() -> [RouteID] {
        rankIndexes().map(RouteID.init)
    }

    private func rankIndexes() -> [Int] {
        let vectors = endpoints.map(\.definition.rankVector)
        return vectors.indices.sorted { a, b in
            vectors[a] != vectors[b] ? vectors[a].lexicographicallyPrecedes(vectors[b]) : a < b
        }
    }

    /// Explains a request's path: which routes were tried, why each failed, which won and why.
    public func explain(_ segments: [String]) -> MatchExplanation {
        explain(Request(segments: segments))
    }

    /// Explains a request: which routes were tried (a query schema against its query), why
    /// each failed, which won and why.
    public func explain(_ request: Request) -> MatchExplanation {
        let segments = request.segments
        let attempts = attempts(segments, query: request)
        let order = rankIndexes()
        let winner = (try? matcher.match(request))?.route
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
        return MatchExplanation(
            attempts: order.map { attempts[$0] }, winner: winner.map(RouteID.init), reasons: reasons)
    }
}

extension RouteTree {
    /// Runs the guards of `route` for `request` (outermost first, as a dispatch would) and
    /// says what each does; after the first that sends the request elsewhere, the rest are
    /// not reached. Runs the guards' callbacks, changes no state.
    public func guardOutcomes(of route: RouteID, for request: Request) -> [GuardOutcome] {
        let endpoint = self[route]
        guard !endpoint.guards.isEmpty, let match = try? matcher.match(request),
            match.route == route.index
        else { return [] }
        let context = RouteContext(
            path: request.path, params: match.parameters(in: matcher), query: request.query,
            fragment: request.fragment, route: endpoint.definition.displayText, name: endpoint.name,
            endpointID: nodes[endpoint.node].id, typedQuery: typedQuery(of: route, request.query, request: request))
        var outcomes: [GuardOutcome] = []
        var done = false
        for guardian in endpoint.guards {
            let node = nodes[guardian.node]
            func add(_ isRedirect: Bool, _ result: GuardOutcome.Result) {
                outcomes.append(
                    GuardOutcome(
                        node: node.id, kind: node.kind, location: node.location, isRedirect: isRedirect,
                        result: done ? .notReached : result))
            }
            if let enabled = guardian.enabled {
                do {
                    let allowed = try enabled(context)
                    add(false, allowed ? .allows : .refuses(fallback: guardian.fallback))
                    if !allowed { done = true }
                } catch {
                    add(false, .fails("\(error)"))
                    done = true
                }
            }
            if let redirect = guardian.redirect {
                if done {
                    add(true, .notReached)
                    continue
                }
                do {
                    let target = try redirect(context)
                    add(true, target.map { .redirects(to: $0) } ?? .staysPut)
                    if target != nil { done = true }
                } catch {
                    add(true, .fails("\(error)"))
                    done = true
                }
            }
        }
        return outcomes
    }
}

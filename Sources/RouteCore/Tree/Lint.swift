/// `luna check` (and every reload): problems a tree can have that still load.
///
/// - Complexity: near-linear in the routes: a route is compared only with the routes an
///   index of patterns (constant segments by text, every other kind together) says could
///   cover it.
package struct Lint {
    /// One problem, with where it is.
    package struct Finding: Equatable, Sendable {
        /// Errors fail `check` (status 1); warnings do not.
        package enum Severity: String, Sendable { case error, warning }
        package var severity: Severity
        /// `books.lua:12`, when the node has one.
        package var location: SourceLocation?
        package var message: String

        package var line: String {
            (location.map { "\($0): " } ?? "") + severity.rawValue + ": " + message
        }
    }

    package let tree: RouteTree

    package init(tree: RouteTree) { self.tree = tree }

    package func findings() -> [Finding] { report().findings }

    /// What the lint found, by route where it is about one route: kept by a reload, so the
    /// next lint of a tree that differs in a few route definitions redoes only what they can
    /// change (``report(previous:)``).
    package struct Report: Sendable {
        package let tree: RouteTree
        /// Each route's "can never win" or duplicate finding (or its regex finding).
        var routeFindings: [Finding?]
        /// The route that makes it lose, for a pattern route that loses to one.
        var rivals: [Int?]
        /// Each route's validator findings.
        var validatorFindings: [[Finding]]
        /// Every finding, in the order `luna check` prints them.
        package let findings: [Finding]
        /// Whether this lint started from the previous one (or linted the whole tree).
        package let wasIncremental: Bool
    }

    /// `previous`, for this tree, whose lint inputs are `previous`'s tree's
    /// (``TreeChange/sameLintInputs``): the same findings, without the report keeping the tree
    /// before alive (a reload's cache would hold a second tree for as long as the inputs stay
    /// the same).
    func report(reusing previous: Report) -> Report {
        Report(
            tree: tree, routeFindings: previous.routeFindings, rivals: previous.rivals,
            validatorFindings: previous.validatorFindings, findings: previous.findings,
            wasIncremental: previous.wasIncremental)
    }

    /// The lint of the tree; with `previous` (the last reload's report) and what changed since
    /// its tree (`change`, worked out here when not given): the same findings when nothing the
    /// lint reads changed; only the routes a changed definition can affect compared again when
    /// the trees have the same shape and differ in a few route definitions; else the whole
    /// tree. Either way the findings are what a whole lint gives.
    package func report(previous: Report? = nil, change: TreeChange? = nil) -> Report {
        let endpoints = tree.endpoints
        if let previous {
            let change = change ?? TreeChange(from: previous.tree, to: tree)
            if change.sameLintInputs { return report(reusing: previous) }
            if let changed = Self.changedRoutes(change, previous.tree, tree),
                let report = incremental(previous, changed: changed)
            {
                return report
            }
        }
        var routeFindings = [Finding?](repeating: nil, count: endpoints.count)
        var rivals = [Int?](repeating: nil, count: endpoints.count)
        // Computed once: a rank vector is an array, and a route meets many candidates.
        let ranks = endpoints.map(\.definition.rankVector)
        let matcher = tree.matcher
        for position in endpoints.indices {
            (routeFindings[position], rivals[position]) = routeFinding(
                position, rank: { ranks[$0] }, candidates: { matcher.routes(couldCover: $0) })
        }
        let validatorFindings = endpoints.map(validatorFindings)
        return assemble(routeFindings, rivals, validatorFindings)
    }

    /// The routes whose definitions differ when the trees have the same shape (nodes, kinds,
    /// places, lines): nil when they do not (or more than a few routes differ, or a regex route
    /// changed). Ids, names, guards and links may differ: the findings that read them are made
    /// again every time.
    static func changedRoutes(_ change: TreeChange, _ old: RouteTree, _ new: RouteTree) -> [Int]? {
        guard change.sameShape, change.definitionsChanged.count <= 8 else { return nil }
        for position in change.definitionsChanged {
            // A regex route's findings read every route: the whole lint.
            guard old.endpoints[position].pattern != nil, new.endpoints[position].pattern != nil else { return nil }
        }
        return change.definitionsChanged
    }

    /// The same pattern or regex text and the same validators (by source and kind): at once
    /// for one definition (a reload hands an unchanged route's definition to the new tree, and
    /// its endpoint too when nothing else in it changed). (Fields read in place: a copy of a
    /// whole definition costs more than the comparison.)
    package static func sameDefinition(_ x: RouteTree.Endpoint, _ y: RouteTree.Endpoint) -> Bool {
        if x === y || x.definition.isIdentical(to: y.definition) { return true }
        // By bytes, as requests are matched: `café` precomposed and decomposed are two routes.
        guard Pattern.sameBytes(x.definition.displayText, y.definition.displayText),
            x.definition.validators.count == y.definition.validators.count,
            x.definition.querySchema?.fields.map(\.summary) == y.definition.querySchema?.fields.map(\.summary)
        else { return false }
        for (name, validator) in x.definition.validators {
            guard let other = y.definition.validators[name], Pattern.sameBytes(other.source, validator.source),
                other.isPredicate == validator.isPredicate
            else { return false }
        }
        return true
    }

    /// `previous` redone for the routes `changed` can affect: the changed routes, the routes
    /// that lost to one of them, and the routes one of them now covers; nil when that is more
    /// than a few dozen routes (then a whole lint is cheaper).
    private func incremental(_ previous: Report, changed: [Int]) -> Report? {
        let endpoints = tree.endpoints
        var redo = Set(changed)
        let changedSet = Set(changed)
        for (position, rival) in previous.rivals.enumerated() {
            if let rival, changedSet.contains(rival) { redo.insert(position) }
        }
        // A regex route's finding reads every pattern route: each is compared again.
        for (route, _, _) in tree.matcher.regexRoutes {
            redo.insert(route)
            if redo.count > 64 { return nil }
        }
        // The routes a changed one now covers (the compiled trie's candidates).
        for position in changed {
            // A route with a query schema covers nothing: a query that does not fit goes on.
            guard let outer = endpoints[position].pattern, endpoints[position].definition.querySchema == nil else {
                continue
            }
            guard let candidates = tree.matcher.routes(couldBeCoveredBy: outer, limit: 64) else { return nil }
            for other in candidates where other != position {
                guard let inner = endpoints[other].pattern,
                    Self.covers(
                        outer, endpoints[position].definition.validators, inner, endpoints[other].definition.validators)
                else { continue }
                redo.insert(other)
                if redo.count > 64 { return nil }
            }
        }
        var routeFindings = previous.routeFindings
        var rivals = previous.rivals
        var validatorFindings = previous.validatorFindings
        // A route compared again meets every route that could cover it, in position order;
        // ranks are made for the few that do.
        let matcher = tree.matcher
        for position in redo.sorted() {
            (routeFindings[position], rivals[position]) = routeFinding(
                position, rank: { endpoints[$0].definition.rankVector },
                candidates: { matcher.routes(couldCover: $0) })
        }
        for position in changed { validatorFindings[position] = self.validatorFindings(endpoints[position]) }
        return assemble(routeFindings, rivals, validatorFindings, incremental: true)
    }

    /// The route's "duplicates" or "can never win" finding and the rival it loses to, or its
    /// regex finding: the first of `candidates` (in position order) that covers it and ranks
    /// before it.
    private func routeFinding(
        _ position: Int, rank: (Int) -> [Int], candidates: (Pattern) -> [Int]
    ) -> (Finding?, Int?) {
        let endpoints = tree.endpoints
        let endpoint = endpoints[position]
        let node = tree.nodes[endpoint.node]
        guard let pattern = endpoint.pattern else {
            if case .regex(let regex) = endpoint.definition.shape {
                return (regexFinding(regex, at: position, node: node), nil)
            }
            return (nil, nil)
        }
        for other in candidates(pattern) where other != position {
            let rival = endpoints[other]
            guard let rivalPattern = rival.pattern, rival.definition.querySchema == nil,
                Self.covers(rivalPattern, rival.definition.validators, pattern, endpoint.definition.validators)
            else { continue }
            let mine = rank(position)
            let theirs = rank(other)
            let equal = mine == theirs
            guard theirs.lexicographicallyPrecedes(mine) || (equal && other < position) else { continue }
            let rivalText = Self.show(rival.definition.displayText)
            let rivalWhere = tree.nodes[rival.node].location.map { " (\($0))" } ?? ""
            if pattern == rivalPattern && validatorsEqual(endpoint.definition, rival.definition) {
                return (
                    Finding(
                        severity: .error, location: node.location,
                        message: "route '\(Self.show(pattern.description))' duplicates '\(rivalText)'\(rivalWhere)"),
                    other
                )
            }
            let why = equal ? "an earlier route of the same rank" : "a more specific route"
            return (
                Finding(
                    severity: .warning, location: node.location,
                    message:
                        "route '\(Self.show(pattern.description))' can never win: '\(rivalText)'\(rivalWhere) matches everything it matches and is \(why)"
                ),
                other
            )
        }
        return (nil, nil)
    }

    /// Validators that reject every value.
    private func validatorFindings(_ endpoint: RouteTree.Endpoint) -> [Finding] {
        var findings: [Finding] = []
        for (name, validator) in endpoint.definition.validators.sorted(by: { $0.key < $1.key })
        where !validator.isPredicate {
            guard let syntax = validator.syntax else { continue }
            let why: String
            if RegexEmptiness.matchesNothing(syntax) {
                why = "a required character class is empty"
            } else if RegexEmptiness.matchesOnlyEmpty(syntax) {
                why = "it matches only the empty string, and segments are never empty"
            } else {
                continue
            }
            findings.append(
                Finding(
                    severity: .warning, location: tree.nodes[endpoint.node].location,
                    message: "validator of '\(name)' ('\(validator.source)') rejects every value: \(why)"))
        }
        return findings
    }

    /// The findings in `luna check`'s order: each route's, the validators', the fallbacks' and
    /// links', then containers and modals whose every route can never win.
    private func assemble(
        _ routeFindings: [Finding?], _ rivals: [Int?], _ validatorFindings: [[Finding]], incremental: Bool = false
    ) -> Report {
        var findings = routeFindings.compactMap { $0 }
        findings += validatorFindings.joined()
        findings += fallbackFindings()
        // Containers and modals whose every route can never win, in one bottom-up pass
        // (children are numbered after their parents); nothing to find when every route wins.
        // A route with a finding of its own never wins (a regex one included).
        let neverWins = Set(routeFindings.indices.filter { routeFindings[$0] != nil })
        if !neverWins.isEmpty {
            var routes = [Int](repeating: 0, count: tree.nodes.count)
            var losing = [Int](repeating: 0, count: tree.nodes.count)
            for node in tree.nodes.reversed() {
                if let route = node.route {
                    routes[node.index] += 1
                    if neverWins.contains(route.index) { losing[node.index] += 1 }
                }
                if let parent = node.parent {
                    routes[parent] += routes[node.index]
                    losing[parent] += losing[node.index]
                }
            }
            for node in tree.nodes where node.kind != .endpoint || node.relation == .modal {
                guard routes[node.index] > 0, routes[node.index] == losing[node.index] else { continue }
                let what =
                    node.relation == .modal
                    ? "modal '\(node.id)' can never be presented"
                    : "\(node.kind.rawValue) '\(node.id)' has no reachable endpoint"
                findings.append(
                    Finding(
                        severity: .warning, location: node.location,
                        message: what + ": every route under it can never win"))
            }
        }
        return Report(
            tree: tree, routeFindings: routeFindings, rivals: rivals, validatorFindings: validatorFindings,
            findings: findings, wasIncremental: incremental)
    }

    /// A fallback is a constant: one that matches no route, or only a bare catch-all, sends
    /// every refused request nowhere useful.
    private func fallbackFindings() -> [Finding] {
        var findings: [Finding] = []
        for (nodeIndex, guardian) in tree.ownGuards().sorted(by: { $0.key < $1.key }) {
            guard let fallback = guardian.fallback else { continue }
            let node = tree.nodes[nodeIndex]
            if let finding = targetFinding(
                fallback, node: nodeIndex, "fallback '\(fallback)' of \(node.kind.rawValue) '\(node.id)'")
            {
                findings.append(finding)
            }
        }
        findings += linkFindings()
        return findings
    }

    /// The finding for a constant request a node sends the user to (a fallback, a row, an
    /// action): one that matches no route, or only a bare catch-all, goes nowhere useful.
    /// `what` names it. Nil when it matches a route, or when a script validator decides.
    private func targetFinding(_ target: String, node nodeIndex: Int, _ what: String) -> Finding? {
        guard let request = try? tree.request(from: target) else { return nil }
        let node = tree.nodes[nodeIndex]
        let match: Match?
        do { match = try tree.matcher.match(request) } catch { return nil }  // a script validator decides
        if let match {
            guard tree.endpoints[match.route].pattern?.isBareCatchAll == true else { return nil }
            return Finding(severity: .warning, location: node.location, message: what + " matches only the catch-all")
        }
        return Finding(severity: .warning, location: node.location, message: what + " matches no route")
    }

    /// The rows' and actions' requests (a script's `rows = {…}` and `actions = {…}`, by node
    /// index, each with what names it: `row 'Dune'`), checked as fallbacks are: one that
    /// matches no route, or only the catch-all, is a warning at its screen's line.
    package func targetFindings(_ targets: [(node: Int, what: String, request: String, push: Bool)]) -> [Finding] {
        targets.compactMap { target in
            guard target.node < tree.nodes.count else { return nil }
            let node = tree.nodes[target.node]
            if let finding = targetFinding(
                target.request, node: target.node,
                "\(target.what) of \(node.kind.rawValue) '\(node.id)' goes to '\(target.request)', which")
            {
                return finding
            }
            return target.push ? pushFinding(target, node: node) : nil
        }
    }

    /// A row or action that pushes (`push = "…"`) onto the stack its screen is in: a screen
    /// that stack does not take (its `pushes` list, or its own screens), or a screen in no
    /// stack, is a warning at its line (the push would fail with `notPushable`).
    private func pushFinding(
        _ target: (node: Int, what: String, request: String, push: Bool), node: RouteTree.Node
    ) -> Finding? {
        guard let request = try? tree.request(from: target.request),
            let match = try? tree.matcher.match(request)
        else { return nil }
        let what = "\(target.what) of \(node.kind.rawValue) '\(node.id)' pushes '\(target.request)'"
        guard let stack = tree.ownStack(of: target.node) else {
            return Finding(
                severity: .warning, location: node.location, message: what + ", but the screen is in no stack")
        }
        let pushed = tree.endpoints[match.route].node
        guard !tree.pushes(pushed, onto: stack) else { return nil }
        return Finding(
            severity: .warning, location: node.location,
            message: what
                + ", which stack '\(tree.nodes[stack].id)' does not take (give it pushes = { … } naming '\(tree.nodes[pushed].id)')"
        )
    }

    /// Links that can open nothing: `links` with no scheme and no host (every URL is then
    /// refused), or declared schemes or hosts while every route has `link = false`.
    private func linkFindings() -> [Finding] {
        guard let links = tree.links else { return [] }
        let root = tree.nodes[0]
        if links.schemes.isEmpty && links.hosts.isEmpty {
            return [
                Finding(
                    severity: .warning, location: root.location,
                    message: "links declares no scheme and no host: no link opens the app, every URL is refused")
            ]
        }
        if !tree.endpoints.isEmpty, !tree.endpoints.contains(where: \.linkable) {
            return [
                Finding(
                    severity: .warning, location: root.location,
                    message: "links declares schemes or hosts but every route has link = false: no link opens a screen")
            ]
        }
        return []
    }

    /// A whole-path regex route that duplicates an earlier one, or that a pattern route always
    /// beats (regex routes rank after every matching pattern but a bare `...`): a pattern of
    /// constants (or parameters without validators) then `...`, over the regex's literal
    /// prefix.
    private func regexFinding(_ regex: PathRegex, at position: Int, node: RouteTree.Node) -> Finding? {
        let text = "regex:" + regex.source
        for (other, rival) in tree.endpoints.enumerated() {
            let rivalWhere = tree.nodes[rival.node].location.map { " (\($0))" } ?? ""
            if other < position, case .regex(let earlier) = rival.definition.shape, earlier.source == regex.source {
                return Finding(
                    severity: .error, location: node.location,
                    message: "route '\(text)' duplicates '\(rival.definition.displayText)'\(rivalWhere)")
            }
        }
        let prefix = RegexEmptiness.literalSegments(regex.regex.syntax)
        guard !prefix.isEmpty else { return nil }
        for rival in tree.endpoints {
            guard let pattern = rival.pattern, let last = pattern.segments.last,
                case .catchAll(let name) = last, pattern.segments.count >= 2,
                pattern.segments.count - 1 <= prefix.count,
                name.map({ rival.definition.validators[$0] == nil }) ?? true
            else { continue }
            let fits = zip(pattern.segments.dropLast(), prefix).allSatisfy { segment, literal in
                switch segment {
                case .constant(let text): Pattern.sameBytes(text, literal)
                case .parameter(let name): rival.definition.validators[name] == nil
                case .wildcard: true
                case .catchAll, .optional, .oneOrMore: false
                }
            }
            guard fits else { continue }
            let rivalWhere = tree.nodes[rival.node].location.map { " (\($0))" } ?? ""
            return Finding(
                severity: .warning, location: node.location,
                message:
                    "route '\(text)' can never win: '\(rival.definition.displayText)'\(rivalWhere) matches every path it matches, and regex routes rank after patterns"
            )
        }
        return nil
    }

    private func validatorsEqual(_ a: RouteDefinition, _ b: RouteDefinition) -> Bool {
        a.validators.mapValues(\.source) == b.validators.mapValues(\.source)
    }

    /// Route indexes of the endpoints under a node (the node included).
    /// A pattern as the output shows it (the root as `/`).
    package static func show(_ pattern: String) -> String { pattern.isEmpty ? "/" : pattern }

    /// Whether every request `inner` matches is also matched by `outer`.
    static func covers(
        _ outer: Pattern, _ outerValidators: [String: Validator], _ inner: Pattern,
        _ innerValidators: [String: Validator]
    )
        -> Bool
    {
        for (position, segment) in outer.segments.enumerated() {
            if let (minimum, maximum) = segment.restArity {
                if let name = segment.parameterName, outerValidators[name] != nil { return false }
                // Every count of segments `inner` leaves from here must be one this rest takes.
                let fixed = inner.segments.count - position
                let (least, most): (Int, Int?)
                if let innerRest = inner.segments.last?.restArity {
                    guard fixed >= 1 else { return false }
                    least = fixed - 1 + innerRest.minimum
                    most = innerRest.maximum.map { fixed - 1 + $0 }
                } else {
                    (least, most) = (fixed, fixed)
                }
                guard least >= minimum else { return false }
                guard let maximum else { return true }
                return most.map { $0 <= maximum } ?? false
            }
            guard position < inner.segments.count else { return false }
            let other = inner.segments[position]
            if other.isRest { return false }
            switch segment {
            case .constant(let text):
                guard case .constant(let same) = other, Pattern.sameBytes(same, text) else { return false }
            case .parameter(let name):
                if let validator = outerValidators[name] {
                    switch other {
                    case .constant(let text): if (try? validator.accepts(text)) != true { return false }
                    case .parameter(let innerName):
                        guard let innerValidator = innerValidators[innerName],
                            innerValidator.source == validator.source,
                            !validator.isPredicate
                        else { return false }
                    default: return false
                    }
                }
            case .wildcard: break
            case .catchAll, .optional, .oneOrMore: break
            }
        }
        return outer.segments.count == inner.segments.count
    }
}

/// Enter guards wherever the state moves (docs/dsl.md, "Guards"): a dispatch runs the guards
/// of its target, and these drop from a state the screens kept in it that a guard refuses now
/// — the stacks of other tabs, the screens under the top, sheets — after a flag change, a
/// history travel or a restoration, so that Back, a tab tap or Undo never reach a screen the
/// guards would not show.
extension RouteTree {
    /// Whether the screen `node`, kept with `activation` (or, when it was never activated, the
    /// parameters `inherited` from the screen above it), passes its guards now: none refuses it
    /// and no redirect sends it elsewhere.
    func admits(
        _ node: NodeID, activation: Activation?, inherited: [String: String], flags: [String: String]
    ) throws(RouteError) -> Bool {
        guard let index = index(of: node.rawValue), let route = nodes[index].route else { return true }
        let endpoint = self[route]
        if endpoint.guards.isEmpty { return true }
        let params = activation?.params ?? inherited
        let request =
            (try? self.request(showing: node, activation: activation))
            ?? (try? self.request(for: node, params: params))
        let context = RouteContext(
            path: request?.path ?? "", params: params, query: activation?.query ?? [:],
            fragment: activation?.fragment, route: endpoint.definition.displayText, name: endpoint.name,
            endpointID: nodes[index].id, flags: flags,
            typedQuery: typedQuery(of: route, activation?.query ?? [:], request: activation?.request))
        return try Self.apply(endpoint.guards, context: context, resolving: request, describing: { _ in "" }) == nil
    }
}

extension Reducer {
    /// `presented` without the screens a guard refuses now, and their ids: a stack is cut at
    /// its first refused screen (the screens above it go with it), a sheet whose screen is
    /// refused is closed, a tab left with nothing shows what it shows before it is visited.
    public func admitted(
        _ presented: Presented, flags: [String: String] = [:]
    ) throws(RouteError) -> (presented: Presented, dropped: [NodeID]) {
        var dropped: [NodeID] = []
        let kept = try admitted(presented, inherited: [:], flags: flags, dropped: &dropped)
        return (kept ?? unvisited(tree.root.index), dropped)
    }

    private func admitted(
        _ presented: Presented, inherited: [String: String], flags: [String: String], dropped: inout [NodeID]
    ) throws(RouteError) -> Presented? {
        switch presented {
        case .switcher(let node, let section, let content):
            guard let kept = try admitted(content, inherited: inherited, flags: flags, dropped: &dropped) else {
                return nil
            }
            return .switcher(node: node, section: section, content: kept)
        case .junction(let node, let selected, let options):
            var kept: [Presented] = []
            kept.reserveCapacity(options.count)
            for option in options {
                if let admitted = try admitted(option, inherited: inherited, flags: flags, dropped: &dropped) {
                    kept.append(admitted)
                } else if let index = tree[option.node]?.index {
                    kept.append(unvisited(index))
                }
            }
            return .junction(node: node, selected: selected, options: kept)
        case .stack(let node, let items):
            // A screen never activated (under one a link opened) is judged with the parameters
            // of the nearest screen above it that was: a child's route holds its parent's.
            var passed: [[String: String]] = Array(repeating: inherited, count: items.count)
            var above = inherited
            for position in items.indices.reversed() {
                if case .screen(_, let activation?, _) = items[position] { above = activation.params }
                passed[position] = above
            }
            var kept: [Presented] = []
            for (position, item) in items.enumerated() {
                guard let admitted = try admitted(item, inherited: passed[position], flags: flags, dropped: &dropped)
                else {
                    for rest in items[(position + 1)...] { rest.forEach { dropped.append($0.node) } }
                    break
                }
                kept.append(admitted)
            }
            return .stack(node: node, items: kept)
        case .screen(let node, let activation, let modal):
            guard try tree.admits(node, activation: activation, inherited: inherited, flags: flags) else {
                presented.forEach { dropped.append($0.node) }
                return nil
            }
            let keptModal = try modal.flatMap { modal throws(RouteError) in
                try admitted(modal, inherited: activation?.params ?? inherited, flags: flags, dropped: &dropped)
            }
            return .screen(node: node, activation: activation, modal: keptModal)
        }
    }
}

extension Reducer {
    /// What the guards make of a state now.
    public struct Judgement: Sendable {
        /// The state to show: its request where the guards send it now, without the kept
        /// screens they refuse.
        public var state: RouterState
        /// The shown request resolved again; nil when nothing was shown.
        public var resolution: Resolution?
        /// The kept screens dropped because a guard refuses them now.
        public var dropped: [NodeID]
        /// The gate that waits for the shown request, if one does.
        public var waiting: GuardWaiting? = nil
        /// Pushed screens that could not be pushed again, and why.
        public var warnings: [String] = []
    }

    /// `state` judged by the guards again — after a flag change, a history travel or any change
    /// of what they read (docs/dsl.md, "Guards"): the kept screens a guard refuses are dropped,
    /// and the shown request is resolved again (a refused one goes where its guard sends it)
    /// and reduced from what is kept. The one mechanism behind ``Router/recheckGuards()`` and a
    /// script host's flag changes and travels.
    public func judged(_ state: RouterState, flags: [String: String] = [:]) throws(RouteError) -> Judgement {
        var start = state
        var dropped: [NodeID] = []
        if let presented = state.presented {
            let admitted = try admitted(presented, flags: flags)
            start.presented = admitted.presented
            dropped = admitted.dropped
        }
        // Pushed screens shown: the request under them, then each push again (docs/dsl.md, "Push").
        let pushes = state.presented?.pushSteps
        guard let shown = pushes?.base ?? state.requested ?? state.request?.original else {
            return Judgement(state: start, resolution: nil, dropped: dropped)
        }
        let (resolution, waiting) = try tree.resolveGated(shown, reresolving: true, flagsOf: { flags })
        var base = start
        if pushes != nil, let presented = start.presented { base.presented = presented.withoutShownPushes() }
        let next = reduce(base, to: resolution).to
        guard let pushes, waiting == nil else {
            return Judgement(
                state: next.keepingResults(of: start.presented), resolution: resolution, dropped: dropped,
                waiting: waiting)
        }
        let replayed = try replaying(pushes.steps, onto: next, dropped: dropped) { text throws(RouteError) in
            try tree.resolveIfStill(text, flags: flags)
        }
        var judgement = Judgement(
            state: replayed.state.keepingResults(of: start.presented),
            resolution: replayed.state.resolution ?? resolution,
            dropped: dropped)
        judgement.warnings = replayed.warnings
        return judgement
    }
}

extension Router {
    /// Runs the guards again after what they read changed — the app's own sign-out, an
    /// expired session: the screen shown is resolved again (a refused one goes to its
    /// fallback) and the kept screens a guard refuses now are dropped (``Result/dropped``), in
    /// one plan through the presenter (``Reducer/judged(_:flags:)``). What a script's `flags`
    /// change does in the REPL, for an app whose guards are Swift (`RouteHooks`, an exported
    /// tree). Nil when nothing was shown.
    @discardableResult
    public func recheckGuards() throws -> Result? {
        let judgement = try Reducer(tree: tree).judged(state, flags: flags)
        guard let resolution = judgement.resolution else { return nil }
        // Not asked of leave guards; `restore` drops a question whose node a guard refused.
        var result = Result(resolution: resolution, transition: try restore(judgement.state))
        noteWaiting(judgement.waiting, requested: resolution.requested)
        result.dropped = judgement.dropped
        result.warnings = judgement.warnings
        return result
    }
}

extension Router {
    /// Sets (nil: clears) a flag and runs the guards again with it (``recheckGuards()``): a
    /// sign-out shows the guard's fallback and drops what it refuses, a sign-in continues to
    /// the request kept. When a guard fails, the flag and the state stay as they were.
    @discardableResult
    public func setFlag(_ name: String, _ value: String?) throws -> Result? {
        let previous = flags[name]
        flags[name] = value
        do { return try recheckGuards() } catch {
            flags[name] = previous
            throw error
        }
    }
}

/// Leave guards (`leave = function(ctx, to)` in a script, ``GuardSpec/leave`` in Swift): a
/// change that removes a node with one asks it first — go, stay, or a question the app shows
/// (docs/dsl.md, "Leave guards"). Which changes ask:
///
/// | change | leave guards |
/// |---|---|
/// | ``Router/dispatch(_:options:)`` (a link, a row, a redirect), ``Router/back()``, ``Router/sync(_:)`` | asked for every node it removes, deepest first |
/// | a tab switch (``DispatchOptions/keepStack``) | not asked: the tab's stack is kept (a sheet over the tab left is dismissed without asking) |
/// | ``Router/setFlag(_:_:)``, ``Router/recheckGuards()``, ``Router/restore(_:)`` (restoration, undo, travel), a reload | not asked |
///
/// A question is a ``PendingConfirmation``: ``Router/confirm()`` makes the change (asking the
/// other removed nodes' guards), ``Router/cancel()`` drops it. While one is pending, dispatch,
/// back and sync fail with `pendingConfirmation`; a change that is not asked (a flag change,
/// a restore) is made, and drops the question when its node is no longer shown.
extension Router {
    /// A change a leave guard asked about. A class: a dispatch's result holds one only when a
    /// guard asked, and an empty reference costs its copies nothing (as a struct it made every
    /// dispatch's result 1 % dearer, `LunaBench dispatches none` under callgrind).
    public final class PendingConfirmation: Sendable, Equatable {
        /// The guard's question (`Discard this transfer?`).
        public let question: String
        /// The node whose guard asked.
        public let node: NodeID
        /// The request the change goes to (nil when it has none).
        public let target: String?
        /// What the user asked for, made again on ``Router/confirm()``.
        public let change: AskedChange
        /// The nodes whose questions the user confirmed on the way.
        let confirmed: Set<NodeID>

        init(question: String, node: NodeID, target: String?, change: AskedChange, confirmed: Set<NodeID>) {
            self.question = question
            self.node = node
            self.target = target
            self.change = change
            self.confirmed = confirmed
        }

        public static func == (a: PendingConfirmation, b: PendingConfirmation) -> Bool {
            a === b
                || (a.question == b.question && a.node == b.node && a.target == b.target && a.change == b.change
                    && a.confirmed == b.confirmed)
        }
    }

    /// The question waiting for ``confirm()`` or ``cancel()``, if any.
    public var pendingConfirmation: PendingConfirmation? { _pending }

    /// Makes the change a leave guard asked about (the node's guard is not asked again; the
    /// guards of other nodes it removes are, and one may ask in turn).
    ///
    /// - Throws: ``RouteError`` (`invalidState`) when nothing is pending; what the change
    ///   throws (the question is gone either way).
    @discardableResult
    public func confirm() throws -> Result {
        guard let pending = _pending else {
            throw RouteError(.invalidState, "no question is waiting for an answer")
        }
        _pending = nil
        let confirmed = pending.confirmed.union([pending.node])
        switch pending.change {
        case .dispatch(let request, let options): return try dispatch(request, options: options, confirmed: confirmed)
        case .sync(let request): return try sync(request, confirmed: confirmed)
        case .back: return try back(confirmed: confirmed)
        case .returning(let result): return try back(confirmed: confirmed, result: result)
        case .close: return try close(confirmed: confirmed)
        }
    }

    /// Drops the question: nothing changes. Returns whether one was pending.
    @discardableResult
    public func cancel() -> Bool {
        defer { _pending = nil }
        return _pending != nil
    }

    /// What `node`'s leave guard would say of a change to `target` now (nil: the node has no
    /// leave guard, or is not shown). A linked app asks before it lets the user swipe.
    public func leaveAnswer(for node: NodeID, to target: String?) throws -> LeaveAnswer? {
        guard let index = tree.index(of: node.rawValue), let guardian = tree.leaveGuards[index],
            state.presented?.first(node) != nil
        else { return nil }
        return try guardian(leaveContext(of: node, index: index), target)
    }

    /// The transition `change` would make now, asking no leave guard and changing nothing: what
    /// a linked app's UI shows after it made the change itself (a swipe back) that a leave
    /// guard then refused or asked about.
    public func transition(for change: AskedChange) throws -> Transition {
        let reducer = Reducer(tree: tree)
        switch change {
        case .dispatch(let request, let options):
            let resolution = try tree.resolve(request, reresolving: options.reresolving, flagsOf: { flags })
            return reducer.reduce(state, to: resolution, options: options, oldIndex: nil).transition
        case .sync(let request):
            return reducer.sync(state, to: try tree.resolve(request, reresolving: false, flagsOf: { flags }))
        case .back: return try backTransition().0
        case .returning(let result): return try backTransition().0.delivering(result)
        case .close:
            guard let transition = reducer.dismiss(state) else {
                throw RouteError(.nothingToGoBack, "no sheet is shown to close")
            }
            return transition
        }
    }

    /// The error of a change made while a question is pending.
    @usableFromInline
    func pendingError() -> RouteError {
        let question = _pending.map { "'\($0.question)' (\($0.node))" } ?? "a question"
        return RouteError(.pendingConfirmation, "waiting for an answer to \(question): confirm or cancel first")
    }

    /// Asks the leave guards of the nodes `transition` removes (its plan's `unwind`s, deepest
    /// first), but those in `confirmed`: nil when every one says go; a pending confirmation
    /// (kept as ``pendingConfirmation``) at the first question.
    ///
    /// - Throws: ``RouteError`` (`leaveRefused`) at the first that says stay; a guard's error.
    @usableFromInline
    func askLeaveGuards(
        _ transition: Transition, to target: String?, change: AskedChange, confirmed: Set<NodeID>
    ) throws -> PendingConfirmation? {
        for operation in transition.plan.operations {
            guard case .unwind(let id) = operation, let index = tree.index(of: id),
                let guardian = tree.leaveGuards[index]
            else { continue }
            // A pushed instance (`books/:id#2`) is asked as itself: its own activation.
            let node = NodeID(existing: id) ?? tree.nodes[index].nodeID
            if confirmed.contains(node) { continue }
            switch try guardian(leaveContext(of: node, index: index), target) {
            case .go: continue
            case .stay:
                let place = tree.nodes[index].location.map { " (\($0))" } ?? ""
                throw RouteError(
                    .leaveRefused,
                    "'\(id)' stays: its leave guard\(place) refused the change" + (target.map { " to '\($0)'" } ?? ""),
                    location: tree.nodes[index].location)
            case .ask(let question):
                let pending = PendingConfirmation(
                    question: question, node: node, target: target, change: change, confirmed: confirmed)
                _pending = pending
                return pending
            }
        }
        return nil
    }

    /// The context a node's leave guard gets: its screen's (the request that shows it, its
    /// parameters, query and fragment) or a container's (its id, the flags).
    func leaveContext(of node: NodeID, index: Int) -> RouteContext {
        var activation: Activation?
        if case .screen(_, let shown, _)? = state.presented?.first(node) { activation = shown }
        let route = tree.nodes[index].route.map { tree[$0] }
        let request = route == nil ? nil : try? tree.request(showing: node, activation: activation)
        let query = activation?.query ?? [:]
        return RouteContext(
            path: request?.path ?? "", params: activation?.params ?? [:], query: query,
            fragment: activation?.fragment, route: route?.definition.displayText ?? "", name: route?.name,
            endpointID: node.rawValue, from: activation?.from, flags: flags,
            typedQuery: tree.nodes[index].route.map { tree.typedQuery(of: $0, query, request: request) } ?? [:])
    }

    /// Drops the pending question when its node is no longer shown (after a change that is not
    /// asked: a flag change, a restore).
    func dropPendingIfGone() {
        guard let pending = _pending else { return }
        if state.presented?.first(pending.node) == nil { _pending = nil }
    }

    /// A result for a change that waits for an answer: nothing changed.
    @usableFromInline
    func asked(_ resolution: Resolution, _ pending: PendingConfirmation) -> Result {
        var result = Result(resolution: resolution, transition: Transition(from: state, to: state, plan: Plan()))
        result.confirmation = pending
        return result
    }
}

/// A change that asks leave guards (``Router/PendingConfirmation/change``).
public enum AskedChange: Sendable, Equatable {
    case dispatch(String, DispatchOptions)
    case sync(String)
    case back
    /// The top sheet closed (``Router/close()``).
    case close
    /// Back, handing a value to the screen that shows again (``Router/back(result:)``).
    case returning([String: AttributeValue])
}

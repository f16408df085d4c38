/// A route tree, its state and its presentables: resolve, reduce, apply, commit.
///
/// A dispatch that fails anywhere — a bad request, a guard, a presenter — leaves the state
/// and the store as they were, and asks the presenter to take back what it did
/// (``Presenter/rollback()``: ``HeadlessPresenter`` puts every presentable back).
///
/// ```swift
/// let router = Router(tree: try RouteTree(root: root), presenter: HeadlessPresenter())
/// let result = try router.dispatch("books/42")
/// print(result.plan.operations.map(\.text))
/// print(router.rootPresentable!.rendered())
/// ```
///
/// The generic shell (dispatch, apply) is `@inlinable`, so it is specialized for the host's
/// presenter in the host's module instead of running through value witnesses.
public final class Router<P: Presenter> {
    // Checked: skipping the exclusivity check saved 1 % of a dispatch's instructions (76 of
    // 9,186, callgrind), under the 2 % a field must save to go unchecked (docs/architecture.md).
    public private(set) var tree: RouteTree
    public var state: RouterState { _state }
    public var store: PresentableStore<P> { _store }
    public let presenter: P
    /// The app's flags (`signedIn = "yes"`): every guard and redirect gets them in its
    /// ``RouteContext/flags``, as a script's guards read `flags`. ``setFlag(_:_:)`` changes one.
    public internal(set) var flags: [String: String] = [:]
    // Unchecked: a router is used from one thread at a time and never hands out inout access.
    // With `CopyOnWrite`'s box, the checks cost a dispatch 6 % (`scripts/bench --only
    // dispatch`, same run, 2026-11-24: 2108 → 2238 ns).
    @exclusivity(unchecked) @usableFromInline var _state: RouterState = .initial
    @exclusivity(unchecked) @usableFromInline var _store = PresentableStore<P>()
    /// The index of `_state`'s presentation when the last applied transition had one: the
    /// next dispatch's planner starts from it instead of making it again (a push or pop
    /// 24,358 → 23,669 instructions, `LunaBench dispatches push` under callgrind, 2026-11-25).
    /// Checked: skipping the check saved 1.2 % of a dispatch (162 of 13,797 instructions; a push
    /// 0.7 %), under the 2 % a field must save to go unchecked.
    @usableFromInline var _presentedIndex: PresentedIndex?
    /// The question a leave guard asked, waiting for an answer (``pendingConfirmation``).
    @usableFromInline var _pending: PendingConfirmation?
    /// The gate waiting now and its deadline (``waiting``), and the request it keeps.
    @usableFromInline var _waiting: (GuardWaiting, Double?)?
    @usableFromInline var _waitingFor: String?
    /// The router's time in seconds, moved by its host (``advanceClock(by:)``).
    public internal(set) var clock: Double = 0

    /// What a dispatch did.
    public struct Result: Sendable {
        public var resolution: Resolution
        public var transition: Transition
        public var plan: Plan { transition.plan }
        /// The kept screens a guard refused and the change dropped (``recheckGuards()``).
        public var dropped: [NodeID] = []
        /// A leave guard's question: the change waits for ``confirm()`` (nothing changed yet).
        public var confirmation: PendingConfirmation?
        /// Pushed screens a re-resolution could not push again, and why (``recheckGuards()``).
        public var warnings: [String] = []

        @inlinable init(resolution: Resolution, transition: Transition) {
            self.resolution = resolution
            self.transition = transition
        }
    }

    public init(tree: RouteTree, presenter: P) {
        self.tree = tree
        self.presenter = presenter
    }

    /// The root's presentable, once something was dispatched.
    public var rootPresentable: P.Presentable? { store[tree.root.id] }

    /// Resolves, reduces and applies a request.
    /// A change that removes a node with a leave guard asks it first (``LeaveGuard``): a
    /// question returns a result with ``Result/confirmation`` and changes nothing.
    @inlinable
    @discardableResult
    public func dispatch(_ request: String, options: DispatchOptions = .init()) throws -> Result {
        try dispatch(request, options: options, confirmed: [])
    }

    @inlinable
    func dispatch(_ request: String, options: DispatchOptions, confirmed: Set<NodeID>) throws -> Result {
        // Only a tree with leave guards can have a question pending (a new tree drops it).
        let asks = tree.hasLeaveGuards
        if asks, _pending != nil { throw pendingError() }
        let (resolution, gate) = try tree.resolveGated(
            request, reresolving: options.reresolving, flagsOf: { flags })
        let transition = Reducer(tree: tree).reduce(
            state, to: resolution, options: options, oldIndex: _presentedIndex
        ).transition
        // A tab tap (`keepStack`) is not asked: it keeps the tab's stack.
        if asks, !options.keepStack,
            let pending = try askLeaveGuards(
                transition, to: resolution.request.original, change: .dispatch(request, options), confirmed: confirmed)
        {
            return asked(resolution, pending)
        }
        try apply(transition)
        // A gate waits (the common dispatch reads nothing more: `waiting` checks the state).
        if let gate { startWaiting(gate, requested: resolution.requested) }
        return Result(resolution: resolution, transition: transition)
    }

    /// Pushes the screen `request` matches onto the top stack shown, above what it shows, as
    /// UIKit's `pushViewController` does: the same screen can be on a stack twice
    /// (docs/dsl.md, "Push"). Back pops it. The request goes through the guards; when they send
    /// it to a screen that stack does not take (a fallback, a redirect) or a gate waits, it goes
    /// as ``dispatch(_:options:)`` would.
    ///
    /// - Throws: ``RouteError`` (`notPushable`) when no stack is shown or the stack does not take
    ///   the screen; any error of ``dispatch(_:options:)``.
    @discardableResult
    public func push(_ request: String) throws -> Result {
        try push(request, confirmed: [])
    }

    func push(_ request: String, confirmed: Set<NodeID>) throws -> Result {
        if tree.hasLeaveGuards, _pending != nil { throw pendingError() }
        let (resolution, gate) = try tree.resolveGated(request, reresolving: false, flagsOf: { flags })
        let reducer = Reducer(tree: tree)
        let takes = state.presented?.topStack.flatMap { tree[$0.node] }.map {
            tree.pushes(tree[resolution.route].node, onto: $0.index)
        }
        guard gate == nil, resolution.redirects.isEmpty || takes == true else {
            let transition = reducer.reduce(
                state, to: resolution, options: .init(), oldIndex: _presentedIndex
            ).transition
            if tree.hasLeaveGuards,
                let pending = try askLeaveGuards(
                    transition, to: resolution.request.original, change: .dispatch(request, .init()),
                    confirmed: confirmed)
            {
                return asked(resolution, pending)
            }
            try apply(transition)
            if let gate { startWaiting(gate, requested: resolution.requested) }
            return Result(resolution: resolution, transition: transition)
        }
        // A push removes nothing: no leave guard is asked.
        let transition = try reducer.push(state, to: resolution, oldIndex: _presentedIndex)
        try apply(transition)
        return Result(resolution: resolution, transition: transition)
    }

    /// Goes to a state this router was in before (time travel): the plan between the two
    /// presentations, applied like any dispatch's (kept presentables are reused, `create` and
    /// `unwind` run where needed).
    /// Leave guards are not asked; a pending question is dropped when its node goes.
    @discardableResult
    public func restore(_ target: RouterState) throws -> Transition {
        let plan = Reducer.plan(from: state.presented, to: target.presented, tree: tree)
        let transition = Transition(from: state, to: target, plan: plan)
        try apply(transition)
        dropPendingIfGone()
        return transition
    }

    /// Records a change the UI already made (a swipe back) and applies only what it did not.
    @inlinable
    @discardableResult
    public func sync(_ request: String) throws -> Result {
        try sync(request, confirmed: [])
    }

    @inlinable
    func sync(_ request: String, confirmed: Set<NodeID>) throws -> Result {
        let asks = tree.hasLeaveGuards
        if asks, _pending != nil { throw pendingError() }
        let resolution = try tree.resolve(request, reresolving: false, flagsOf: { flags })
        let transition =
            Self.uiStep(state, to: resolution, tree: tree) ?? Reducer(tree: tree).sync(state, to: resolution)
        if asks,
            let pending = try askLeaveGuards(
                transition, to: resolution.request.original, change: .sync(request), confirmed: confirmed)
        {
            return asked(resolution, pending)
        }
        try apply(transition)
        return Result(resolution: resolution, transition: transition)
    }

    /// The user went back: swiped back on the top stack, or — when that stack has nothing to
    /// pop — swiped the top modal down. The presenter makes the change (`setStack` or
    /// `dismissModal`, with their hooks), then the state syncs to what is on screen.
    ///
    /// - Throws: ``RouteError`` (`nothingToGoBack`) when there is neither.
    @discardableResult
    public func back() throws -> Result {
        try back(confirmed: [])
    }

    /// ``back()``, handing `result` to the screen that shows again — a payee picker's choice to
    /// the transfer form, as go_router's `pop(result)` does (docs/dsl.md, "Results"): the plan
    /// ends with ``PlanOperation/deliver(id:result:)`` for it, and the screen's activation keeps
    /// the value (``Activation/result``).
    ///
    /// - Throws: ``RouteError`` (`invalidRequest`) for a result over
    ///   ``PlanOperation/maximumResultBytes`` as JSON; what ``back()`` throws.
    @discardableResult
    public func back(result: [String: AttributeValue]) throws -> Result {
        try back(confirmed: [], result: result)
    }

    func back(confirmed: Set<NodeID>, result: [String: AttributeValue]? = nil) throws -> Result {
        if tree.hasLeaveGuards, _pending != nil { throw pendingError() }
        if let result { try Self.check(result) }
        var (transition, resolution, step) = try backTransition()
        if let result { transition = transition.delivering(result) }
        if tree.hasLeaveGuards,
            let pending = try askLeaveGuards(
                transition, to: resolution.request.original, change: result.map { .returning($0) } ?? .back,
                confirmed: confirmed)
        {
            return asked(resolution, pending)
        }
        // The UI's own step first (its hooks run), then what it cannot do, inside one undo.
        try apply(transition) {
            switch step {
            case .pop(let stack, let items):
                if let presentable = store[stack.rawValue], let node = tree[stack] {
                    let remaining = items.dropLast().compactMap { store[$0.node.rawValue] }
                    try presenter.setStack(presentable, node: node, items: remaining)
                }
            case .dismiss(let modal, let over):
                if let node = tree.presented(modal.rawValue), let view = store[modal.rawValue],
                    let presenting = store[over.rawValue]
                {
                    try presenter.dismissModal(view, from: presenting, node: node)
                }
            }
        }
        return Result(resolution: resolution, transition: transition)
    }

    /// Refuses a result over ``PlanOperation/maximumResultBytes`` as JSON.
    static func check(_ result: [String: AttributeValue]) throws(RouteError) {
        let bytes = PlanOperation.json(result).utf8.count
        guard bytes <= PlanOperation.maximumResultBytes else {
            throw RouteError(
                .invalidRequest,
                "a result is at most \(PlanOperation.maximumResultBytes) bytes as JSON; this one is \(bytes)")
        }
    }

    /// What the UI does itself on Back: pop a stack, or dismiss a modal.
    enum BackStep {
        case pop(stack: NodeID, items: [Presented])
        case dismiss(modal: NodeID, over: NodeID)
    }

    /// What Back does now, as a change the UI made (``Reducer/sync(_:to:)``): the top stack's
    /// top popped — the stack below kept as it is when it holds pushed screens — else the top
    /// modal dismissed — what it covered kept as it was when it is a container's sheet or
    /// pushed screens are shown, else the covered screen's request synced to.
    func backTransition() throws -> (Transition, Resolution, BackStep) {
        guard let presented = state.presented else {
            throw RouteError(.nothingToGoBack, "nothing was dispatched yet")
        }
        let reducer = Reducer(tree: tree)
        if let popped = reducer.pop(state), let (stack, items) = presented.topStack,
            let resolution = popped.to.resolution
        {
            return (popped.syncing(), resolution, .pop(stack: stack, items: items))
        }
        let modal = Self.topModal(presented)
        // (The top modal's content has no sheet over it: its top stack is the one shown.)
        if let (stack, items) = (modal?.content ?? presented).topStack, items.count >= 2,
            case .screen(let node, let activation, _) = items[items.count - 2]
        {
            let (transition, resolution) = try syncing(to: node, activation)
            return (transition, resolution, .pop(stack: stack, items: items))
        }
        if let modal {
            let step = BackStep.dismiss(modal: modal.content.node, over: modal.presenter)
            if tree[modal.content.node].map({ tree.isContainerModal($0.index) }) == true
                || presented.pushSteps != nil,
                let dismissed = reducer.dismiss(state), let resolution = dismissed.to.resolution
            {
                return (dismissed.syncing(), resolution, step)
            }
            let (transition, resolution) = try syncing(to: modal.presenter, modal.activation)
            return (transition, resolution, step)
        }
        throw RouteError(.nothingToGoBack, "there is no screen to go back to and no modal to dismiss")
    }

    /// The sync to the screen `node` shows (shown before: its request was accepted then).
    private func syncing(to node: NodeID, _ activation: Activation?) throws -> (Transition, Resolution) {
        let request = try tree.request(showing: node, activation: activation)
        let resolution = try tree.resolve(request.original, reresolving: true, flagsOf: { flags })
        return (Reducer(tree: tree).sync(state, to: resolution), resolution)
    }

    /// The UI's own Back that a `sync` records, when it kept what a dispatch would not: a pushed
    /// screen popped (the stack below stays, pushed screens too) or a sheet swiped down (what
    /// it covered stays as it was) — the screen `resolution` shows is the one the pop or the
    /// dismissal shows. Nil otherwise (the sync reduces as a dispatch).
    @usableFromInline
    static func uiStep(_ state: RouterState, to resolution: Resolution, tree: RouteTree) -> Transition? {
        guard let presented = state.presented else { return nil }
        let reducer = Reducer(tree: tree)
        func shows(_ transition: Transition?) -> Transition? {
            guard let transition, transition.to.route == resolution.route,
                transition.to.request?.path == resolution.request.path
            else { return nil }
            return transition.syncing()
        }
        if let popped = shows(reducer.pop(state)) { return popped }
        guard let modal = topModal(presented),
            tree[modal.content.node].map({ tree.isContainerModal($0.index) }) == true
                || presented.pushSteps != nil
        else { return nil }
        return shows(reducer.dismiss(state))
    }

    /// Closes the top sheet shown (the page's ×, `close`): what it covered shows as it was —
    /// the tab stacks, pushed screens and the covered screen's activation kept. Leave guards of
    /// what it removes are asked.
    ///
    /// - Throws: ``RouteError`` (`nothingToGoBack`) when no sheet is shown.
    @discardableResult
    public func close() throws -> Result {
        try close(confirmed: [])
    }

    func close(confirmed: Set<NodeID>) throws -> Result {
        if tree.hasLeaveGuards, _pending != nil { throw pendingError() }
        guard let transition = Reducer(tree: tree).dismiss(state), let resolution = transition.to.resolution else {
            throw RouteError(.nothingToGoBack, "no sheet is shown to close")
        }
        if tree.hasLeaveGuards,
            let pending = try askLeaveGuards(
                transition, to: resolution.request.original, change: .close, confirmed: confirmed)
        {
            return asked(resolution, pending)
        }
        try apply(transition)
        return Result(resolution: resolution, transition: transition)
    }

    /// The deepest modal on screen: the screen presenting it and what it presents.
    static func topModal(_ presented: Presented) -> (presenter: NodeID, activation: Activation?, content: Presented)? {
        switch presented {
        case .switcher(_, _, let content): return topModal(content)
        case .junction(_, let selected, let options): return topModal(options[selected])
        case .stack(_, let items):
            guard let top = items.last else { return nil }
            return topModal(top)
        case .screen(let node, let activation, let modal):
            guard let modal else { return nil }
            return topModal(modal) ?? (node, activation, modal)
        }
    }

    /// Applies a computed transition's plan and commits its state, all or nothing.
    @inlinable
    public func apply(_ transition: Transition) throws {
        try apply(transition) {}
    }

    /// `apply`, with `prelude` (a change made first, such as the UI's own step back or a
    /// reload setting presentables aside) inside the same undo: when either fails, the state
    /// and the store stay as they were and the presenter rolls back.
    @inlinable
    public func apply(_ transition: Transition, after prelude: () throws -> Void) throws {
        let saved = _store
        let index = transition.presentedIndex
        presenter.begin()
        do {
            try prelude()
            try _store.apply(
                transition.plan, tree: tree, index: index, state: transition.to, presenter: presenter,
                reflected: transition.reflected)
        } catch {
            _store = saved
            presenter.rollback()
            throw error
        }
        presenter.commit()
        _state = transition.to
        _presentedIndex = index.isComplete ? index : nil
    }

    /// Swaps in a new tree (after a reload) with the state and presentables that go with it;
    /// the presenter adopts the presentables (``Presenter/adopt(_:)``).
    public func replace(tree: RouteTree, state: RouterState, presentables: [String: P.Presentable]) {
        self.tree = tree
        _state = state
        _presentedIndex = nil
        // The script changed: a question asked by the old one is not answered.
        _pending = nil
        _store.replace(with: presentables)
        presenter.adopt(Array(presentables.values))
    }
}

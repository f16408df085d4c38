/// Turns plan operations into presentables of the host's own type (UIKit view controllers
/// on Apple platforms, ``HeadlessPresentable`` in the REPL and tests).
///
/// Each method applies one structural change; the core never depends on what a
/// presentable is. Throwing aborts the plan.
///
/// ```swift
/// struct LoggingPresenter: Presenter {
///     func create(_ node: RouteTree.Node, activation: Activation?) throws -> String { node.id }
///     // …
/// }
/// ```
public protocol Presenter {
    associatedtype Presentable

    /// Makes the presentable of a node. `activation` is set for an endpoint that is being
    /// activated (the presenter runs its first update then).
    func create(_ node: RouteTree.Node, activation: Activation?) throws -> Presentable
    /// An active endpoint's parameters, query or fragment changed. Default: nothing.
    func update(_ presentable: Presentable, node: RouteTree.Node, activation: Activation) throws
    func setStack(_ stack: Presentable, node: RouteTree.Node, items: [Presentable]) throws
    func setOptions(_ container: Presentable, node: RouteTree.Node, options: [Presentable]) throws
    func select(_ container: Presentable, node: RouteTree.Node, index: Int, option: Presentable) throws
    func presentModal(_ modal: Presentable, over presenter: Presentable, node: RouteTree.Node) throws
    func dismissModal(_ modal: Presentable, from presenter: Presentable, node: RouteTree.Node) throws
    /// The presentable is discarded. Default: nothing (the store lets go of it).
    func unwind(_ presentable: Presentable, node: RouteTree.Node) throws
    /// A value handed back to the screen that shows again when the screen or sheet above it
    /// closed (``PlanOperation/deliver(id:result:)``: a payee picker's choice to the transfer
    /// form). Delivered once. Default: nothing.
    func deliver(_ presentable: Presentable, node: RouteTree.Node, result: [String: AttributeValue]) throws
    /// The UI already made a structural change itself (`setStack`, `setOptions`, `select`,
    /// `presentModal` or `dismissModal` of a sync: a swipe back, a sheet swiped down): bring a
    /// model of the UI in line without driving the UI or running hooks. `lookup` finds a
    /// presentable by node id. The default does nothing: a UIKit view hierarchy already shows it.
    func reflect(_ operation: PlanOperation, lookup: (String) -> Presentable?)

    /// A plan is about to be applied: remember what is needed to take it back. A presenter
    /// that cannot undo (a UIKit hierarchy, which animates as it goes) leaves the defaults,
    /// and a failed plan stays partly applied on its side; the router's state and store
    /// still go back. ``HeadlessPresenter`` records each presentable before its first change.
    func begin()
    /// The plan applied: forget what ``begin()`` remembered.
    func commit()
    /// The plan failed: put back what changed since ``begin()``.
    func rollback()
    /// Presentables this presenter did not create (a reload keeps the old presenter's): from
    /// now on they are this presenter's to take back on ``rollback()``.
    func adopt(_ presentables: [Presentable])
}

extension Presenter {
    public func reflect(_ operation: PlanOperation, lookup: (String) -> Presentable?) {}
    public func update(_ presentable: Presentable, node: RouteTree.Node, activation: Activation) throws {}
    public func unwind(_ presentable: Presentable, node: RouteTree.Node) throws {}
    public func deliver(_ presentable: Presentable, node: RouteTree.Node, result: [String: AttributeValue]) throws {}
    public func begin() {}
    public func commit() {}
    public func rollback() {}
    public func adopt(_ presentables: [Presentable]) {}
}

/// The presentables that exist, by node id, and the application of plans to them.
///
/// ```swift
/// var store = PresentableStore<HeadlessPresenter>()
/// try store.apply(transition.plan, tree: tree, presented: transition.to.presented, presenter: HeadlessPresenter())
/// ```
public struct PresentableStore<P: Presenter> {
    public var presentables: [String: P.Presentable] { _presentables }
    @usableFromInline var _presentables: [String: P.Presentable] = [:]
    /// The presentable the last plan of one `update` went to, by node: the next such plan for
    /// the same node (a screen re-activated again and again) takes it without hashing the id.
    /// Cleared by every other change to the store.
    @usableFromInline var _lastUpdated: (node: NodeID, presentable: P.Presentable)?

    public init() {}

    @inlinable
    public subscript(id: String) -> P.Presentable? { _presentables[id] }

    /// Applies the operations in order. On a presenter error the operations before it stay
    /// applied; a host that needs all-or-nothing snapshots first (``HeadlessPresentable``
    /// can).
    @inlinable
    public mutating func apply(_ plan: Plan, tree: RouteTree, presented: Presented?, presenter: P) throws {
        try apply(plan, tree: tree, index: PresentedIndex(presented), state: nil, presenter: presenter)
    }

    @inlinable
    mutating func apply(
        _ plan: Plan, tree: RouteTree, index: PresentedIndex, state: RouterState?, presenter: P,
        reflected: [PlanOperation] = []
    ) throws {
        /// A screen's activation in the presentation (the state's match for its placeholder).
        func activation(_ node: NodeID) -> Activation? {
            guard case .screen(_, let activation, _)? = index[node] else { return nil }
            if let activation, activation.isMatchPlaceholder { return state?.match }
            return activation
        }
        func node(_ id: String) throws -> RouteTree.Node {
            guard let node = tree.presented(id) else { throw RouteError(.script, "no node '\(id)' in the tree") }
            return node
        }
        func existing(_ id: String) throws -> P.Presentable {
            guard let presentable = _presentables[id] else {
                throw RouteError(.script, "no presentable for '\(id)' (the plan does not fit the store)")
            }
            return presentable
        }
        if let sole = plan.soleUpdate, reflected.isEmpty {
            // One `update`, usually of the state's match: that node by its index (checked:
            // another node, or a plan applied to another tree, is found by id).
            let position = state?.matchNodeIndex ?? -1
            let isMatch = tree.nodes.indices.contains(position) && tree.nodes[position].nodeID == sole
            let spec = isMatch ? tree.nodes[position] : try node(sole.rawValue)
            // The match's activation is the state's own (no search of the presentation).
            guard let activation = (isMatch ? state?.match : nil) ?? activation(sole) else { return }
            let presentable: P.Presentable
            if let last = _lastUpdated, last.node == sole {
                presentable = last.presentable
            } else {
                presentable = try existing(spec.id)
                _lastUpdated = (sole, presentable)
            }
            try presenter.update(presentable, node: spec, activation: activation)
            return
        }
        _lastUpdated = nil
        var reflectedYet = reflected.isEmpty
        for operation in plan.operations {
            if !reflectedYet, case .unwind = operation {
                // What the UI did comes after the creates and updates, before the unwinds (the
                // order of a full plan).
                reflectedYet = true
                for change in reflected { presenter.reflect(change) { _presentables[$0] } }
            }
            switch operation {
            case .create(let id):
                let spec = try node(id)
                _presentables[id] = try presenter.create(spec, activation: activation(spec.nodeID))
            case .update(let id):
                let spec = try node(id)
                guard let activation = activation(spec.nodeID) else { continue }
                try presenter.update(try existing(id), node: spec, activation: activation)
            case .setStack(let id, let items):
                try presenter.setStack(try existing(id), node: try node(id), items: items.map(existing))
            case .setOptions(let id, let options):
                try presenter.setOptions(try existing(id), node: try node(id), options: options.map(existing))
            case .select(let id, let index, let option):
                try presenter.select(try existing(id), node: try node(id), index: index, option: try existing(option))
            case .presentModal(let id, let modal):
                try presenter.presentModal(try existing(modal), over: try existing(id), node: try node(modal))
            case .dismissModal(let id, let modal):
                try presenter.dismissModal(try existing(modal), from: try existing(id), node: try node(modal))
            case .unwind(let id):
                try presenter.unwind(try existing(id), node: try node(id))
                _presentables[id] = nil
            case .deliver(let id, let result):
                try presenter.deliver(try existing(id), node: try node(id), result: result)
            }
        }
        if !reflectedYet {
            for change in reflected { presenter.reflect(change) { _presentables[$0] } }
        }
    }

    /// Forgets every presentable (after a failed apply, or to start over).
    public mutating func replace(with presentables: [String: P.Presentable]) {
        _presentables = presentables
        _lastUpdated = nil
    }
}

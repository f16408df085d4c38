/// What a dispatch resolved to: the final request (after guards and redirects) and its match.
public struct Resolution: Equatable, Sendable {
    public var request: Request
    public var route: RouteID
    /// The parameter values by name (made on each read, as ``Activation/params``).
    public var params: [String: String] {
        get { parameters.dictionary }
        set { parameters = Parameters(newValue) }
    }
    /// The parameters as held (``Parameters``).
    var parameters: Parameters
    /// The requests passed through on the way (redirects and fallbacks), first to last.
    public var redirects: [String]
    /// The string that was dispatched, before any redirect.
    public var requested: String

    public init(
        request: Request, route: RouteID, params: [String: String], redirects: [String] = [], requested: String? = nil
    ) {
        self.init(
            request: request, route: route, parameters: Parameters(params), redirects: redirects, requested: requested)
    }

    init(
        request: Request, route: RouteID, parameters: Parameters, redirects: [String] = [], requested: String? = nil
    ) {
        self.request = request
        self.route = route
        self.parameters = parameters
        self.redirects = redirects
        self.requested = requested ?? redirects.first ?? request.original
    }
}

/// Options of one dispatch.
public struct DispatchOptions: Equatable, Sendable {
    /// MonarchRouter's `junctionsOnly`: when the request is a junction option's root, only the
    /// selection changes and the option's deeper stack stays.
    public var keepStack = false
    /// The request was accepted before and is resolved again (a flag change re-resolving the
    /// kept request): a link to a `link = false` route is not refused again
    /// (``RouteTree/resolve(_:reresolving:flags:)``).
    public var reresolving = false
    public init(keepStack: Bool = false, reresolving: Bool = false) {
        self.keepStack = keepStack
        self.reresolving = reresolving
    }
}

/// A computed state change: the new state and the plan that gets the presentables there.
public struct Transition: Equatable, Sendable {
    public var from: RouterState
    public var to: RouterState {
        didSet { index = nil }
    }
    public var plan: Plan
    /// The structural operations the UI already made itself (a ``Reducer/sync(_:to:)``):
    /// not in the plan, so no presenter drives them, but presenters that keep a model of the
    /// UI (``HeadlessPresentable``s) bring it in line through ``Presenter/reflect(_:lookup:)``.
    public var reflected: [PlanOperation]

    /// Lookup by node in `to`'s presentation, as the reducer made it for planning (nil: made
    /// when the plan is applied).
    fileprivate var index: PresentedIndex?

    // No initializer here: the inits are in the extension below, so the memberwise one
    // (fileprivate, for `index`) exists. The reducer makes its transitions with it. An
    // explicit init stores into a `var self` and copies it out. Swift then retains and releases
    // all seven references of the copy (a dispatch that keeps its presentation: 9,016 → 8,593
    // instructions, `LunaBench dispatches none`, callgrind).

    /// Lookup by node in `to`'s presentation.
    @usableFromInline var presentedIndex: PresentedIndex { index ?? to.presentedIndex }

    public static func == (lhs: Transition, rhs: Transition) -> Bool {
        lhs.from == rhs.from && lhs.to == rhs.to && lhs.plan == rhs.plan && lhs.reflected == rhs.reflected
    }
}

extension Transition {
    /// This transition as a change the UI already made: the structural operations move from
    /// the plan to ``reflected`` (``Reducer/sync(_:to:)``).
    func syncing() -> Transition {
        var transition = self
        var kept: [PlanOperation] = []
        for operation in transition.plan.operations {
            switch operation {
            case .setStack, .setOptions, .select, .presentModal, .dismissModal: transition.reflected.append(operation)
            case .create, .update, .unwind, .deliver: kept.append(operation)
            }
        }
        transition.plan.operations = kept
        return transition
    }

    public init(from: RouterState, to: RouterState, plan: Plan, reflected: [PlanOperation] = []) {
        self.init(from: from, to: to, plan: plan, reflected: reflected, index: nil)
    }

    /// A transition whose `to` presentation was indexed for planning (kept for applying it).
    init(from: RouterState, to: RouterState, plan: Plan, indexed index: PresentedIndex) {
        self.init(from: from, to: to, plan: plan, reflected: [], index: index)
    }
}

/// The pure reducer: (state, resolution, options) → new state and plan.
///
/// ```swift
/// let reducer = Reducer(tree: tree)
/// let transition = reducer.reduce(.initial, to: try tree.resolve("books/42"))
/// transition.plan.operations   // create …, setStack stack:books [books, books/:id], …
/// ```
public struct Reducer {
    public let tree: RouteTree

    public init(tree: RouteTree) { self.tree = tree }

    public func reduce(
        _ state: RouterState, to resolution: Resolution, options: DispatchOptions = .init()
    )
        -> Transition
    {
        reduce(state, to: resolution, options: options).transition
    }

    /// ``reduce(_:to:options:)``, saying how: the presentation kept (a dispatch re-activating
    /// the screen shown), the plan patched along the matched chain (`patching` and the
    /// presentation kept its shape) or made by the general planner.
    /// `oldIndex` is the index of `state`'s presentation when the caller kept it (a router
    /// keeps the last one it applied): the general planner reads it instead of making it again.
    ///
    /// `placeholders: false` (tests): every screen holds its activation, no presentation is
    /// kept — the states are equal, made without the placeholder for the match.
    @usableFromInline
    func reduce(
        _ state: RouterState, to resolution: Resolution, options: DispatchOptions, patching: Bool = true,
        oldIndex: PresentedIndex? = nil, placeholders: Bool = true
    ) -> (transition: Transition, path: Path) {
        let endpoint = tree[resolution.route].node
        let oldMatch = state.match
        if placeholders, patching, !options.keepStack, let oldMatch,
            let kept = keptPresentation(state, endpoint, resolution)
        {
            return (keeping(kept, from: state, oldMatch: oldMatch, endpoint: endpoint, resolution: resolution), .kept)
        }
        // The chain root → endpoint on the stack (a tree is a handful of levels deep).
        let depth = tree.depth(of: endpoint)
        let built = withUnsafeTemporaryAllocation(of: Int.self, capacity: depth) { chain in
            tree.fillChain(to: endpoint, into: chain)
            var context = BuildContext(
                tree: tree, chain: UnsafeBufferPointer(chain), resolution: resolution, keepStack: options.keepStack,
                oldMatch: oldMatch, placesMatch: placeholders)
            context.oldRoot = state.storedPresented
            let presented = context.build(depth: 0, old: state.storedPresented)
            return Built(
                presented: presented, keptOption: context.keptOption, match: context.match,
                updates: context.reshaped ? nil : context.plan, belowPushed: context.extendedPushed)
        }
        let presented = built.presented
        var next: RouterState
        if let match = built.match {
            next = RouterState(
                resolution: resolution, presented: presented, match: match, matchNode: endpoint, tree: tree,
                belowPushed: built.belowPushed)
        } else {
            next = RouterState(
                request: resolution.request, route: resolution.route, parameters: resolution.parameters,
                presented: presented, requested: resolution.requested)
        }
        if built.keptOption, let top = presented.topScreen, let request = top.activation.request,
            let route = tree[top.node]?.route
        {
            // keepStack: the state follows what is on screen (the kept stack's top).
            next.request = request
            next.requested = request.original
            next.route = route
            next.parameters = top.activation.parameters
        }
        if patching, let updates = built.updates {
            // The same nodes in the same places: only the chain's screens whose activation
            // changed have something to do, and the build found them.
            return (
                Transition(
                    from: state, to: next, plan: updates, reflected: [], index: PresentedIndex(walking: presented)),
                .patched
            )
        }
        let index = next.presentedIndex
        let plan = Self.plan(
            from: oldIndex ?? state.presentedIndex, to: index, tree: tree, oldMatch: oldMatch, newMatch: next.match)
        return (Transition(from: state, to: next, plan: plan, reflected: [], index: index), .planned)
    }

    /// How a transition was made.
    @usableFromInline enum Path {
        /// The screen shown re-activated: the presentation kept as it was.
        case kept
        /// Patched along the matched chain.
        case patched
        /// By the general planner.
        case planned
    }

    /// The screen shown, re-activated: the presentation stays as it is (its placeholder now
    /// stands for the new activation), and the plan is that screen's `update`.
    private func keeping(
        _ kept: Presented, from state: RouterState, oldMatch: Activation, endpoint: Int, resolution: Resolution
    ) -> Transition {
        let match = Self.matchActivation(resolution)
        let plan = oldMatch.differs(from: match) ? Plan(updating: tree.nodes[endpoint].nodeID) : Plan()
        let next = RouterState(resolution: resolution, presented: kept, match: match, matchNode: endpoint, tree: tree)
        return Transition(from: state, to: next, plan: plan, reflected: [], index: PresentedIndex(walking: kept))
    }

    /// The matched endpoint's activation: everything the request carries.
    static func matchActivation(_ resolution: Resolution) -> Activation {
        Activation(
            parameters: resolution.parameters, query: resolution.request.query, fragment: resolution.request.fragment,
            request: resolution.request, from: resolution.redirects.isEmpty ? nil : resolution.requested)
    }

    /// `state`'s stored presentation when a dispatch to `endpoint` would build it again as it
    /// is but for the match's activation: made on this tree for the same endpoint (so on the
    /// same chain, with the same selections, stack items and hidden tabs), and every screen
    /// below the match on the chain keeps its activation (its own parameters unchanged).
    private func keptPresentation(_ state: RouterState, _ endpoint: Int, _ resolution: Resolution) -> Presented? {
        guard let match = state.storage.value.match, match.treeSerial == tree.serial, Int(match.node) == endpoint,
            !match.belowPushed, let stored = state.storage.value.presented
        else { return nil }
        var current = tree.nodes[endpoint].parent
        while let index = current {
            defer { current = tree.nodes[index].parent }
            guard let route = tree.nodes[index].route, !tree.matcher.parameterNames[route].isEmpty else { continue }
            guard case .screen(_, let activation?, _)? = stored.first(tree.nodes[index].nodeID),
                Self.keepsOwnParameters(activation, route: route, tree: tree, resolution: resolution)
            else { return nil }
        }
        return stored
    }

    /// Whether a screen below the match, activated with `old`, keeps that activation for
    /// `resolution`: its own pattern's parameters (the names `route` declares) have the same
    /// values, so pushing a detail does not reset a filtered list. The one rule for the build
    /// and for keeping a presentation.
    static func keepsOwnParameters(
        _ old: Activation, route: RouteID, tree: RouteTree, resolution: Resolution
    ) -> Bool {
        var present = 0
        let (own, new) = (old.parameters, resolution.parameters)
        for name in tree.matcher.parameterNames[route] {
            let value = new[name]
            if value != nil { present += 1 }
            if own[name] != value { return false }
        }
        return own.count == present
    }

    /// Like ``reduce(_:to:options:)`` for a change the UI already made (a swipe back): the
    /// plan keeps only what the UI cannot have done — `create`, `update` and `unwind`.
    /// The structural operations move to ``Transition/reflected``, so the presentables still
    /// end up as a dispatch of the same request would leave them.
    public func sync(_ state: RouterState, to resolution: Resolution) -> Transition {
        reduce(state, to: resolution).syncing()
    }

    // MARK: Planning

    /// The operations between two presentations, in this order: dismiss modals
    /// (deepest first), create (parents first), update, set stacks / options / selections
    /// (children first), present modals, unwind (deepest first).
    public static func plan(from old: Presented?, to new: Presented?, tree: RouteTree) -> Plan {
        plan(from: PresentedIndex(old), to: PresentedIndex(new), tree: tree)
    }

    /// What to do to the presentables on screen — made for another tree of the same script
    /// (before a reload) — to show `new`, a presentation on `tree`. Nodes are matched by
    /// identity: an on-screen node that `tree` no longer has, or has as another kind, is not
    /// the plan's (the host sets its presentable aside and unwinds it with the presenter that
    /// made it); a kept screen that stays active gets `update` (the new script's hooks run);
    /// every container whose children or selection differ from what is on screen is set
    /// again. This is the whole reconciliation: no repair of the plan afterwards.
    public static func plan(fromOnScreen onScreen: Presented?, to new: Presented?, tree: RouteTree) -> Plan {
        plan(fromKept: onScreen, to: new, tree: tree, refreshing: true)
    }

    /// ``plan(fromOnScreen:to:tree:)`` where `refreshing` says whether kept active screens get
    /// `update` (a reload: the new script's hooks run) or only those whose activation changed
    /// (a linked device resuming on the same script).
    package static func plan(
        fromKept onScreen: Presented?, to new: Presented?, tree: RouteTree, refreshing: Bool
    )
        -> Plan
    {
        let kept = PresentedIndex(onScreen) { presented in tree[presented.node]?.kind == presented.kind }
        return plan(from: kept, to: PresentedIndex(new), tree: tree, refreshing: refreshing)
    }

    /// `oldMatch` and `newMatch`: what the match placeholder stands for in each presentation
    /// (``RouterState/match``).
    static func plan(
        from oldNodes: PresentedIndex, to newNodes: PresentedIndex, tree: RouteTree, refreshing: Bool = false,
        oldMatch: Activation? = nil, newMatch: Activation? = nil
    ) -> Plan {
        let new = newNodes.order.first
        let oldOrder = oldNodes.order
        let newOrder = newNodes.order
        var operations: [PlanOperation] = []
        operations.reserveCapacity(max(4, newOrder.count))
        for presented in oldOrder.reversed() {
            guard case .screen(let node, _, let modal?) = presented else { continue }
            if case .screen(_, _, let newModal)? = newNodes[node], newModal?.node == modal.node { continue }
            // A modal that is not kept is set aside by whoever swapped the tree.
            if refreshing, oldNodes[modal.node] == nil { continue }
            operations.append(.dismissModal(id: node.rawValue, modal: modal.node.rawValue))
        }
        for presented in newOrder where oldNodes[presented.node] == nil {
            operations.append(.create(id: presented.node.rawValue))
        }
        for presented in newOrder {
            guard case .screen(let node, var activation?, _) = presented,
                case .screen(_, var oldActivation, _)? = oldNodes[node]
            else { continue }
            if activation.isMatchPlaceholder, let newMatch { activation = newMatch }
            if let old = oldActivation, old.isMatchPlaceholder { oldActivation = oldMatch }
            if refreshing || (oldActivation.map({ $0.differs(from: activation) }) ?? true) {
                operations.append(.update(id: node.rawValue))
            }
        }
        func structural(_ presented: Presented) {
            switch presented {
            case .switcher(_, _, let content): structural(content)
            case .junction(_, _, let options): for option in options { structural(option) }
            case .stack(_, let items): for item in items { structural(item) }
            case .screen(_, _, let modal): if let modal { structural(modal) }
            }
            let previous = oldNodes[presented.node]
            switch presented {
            case .stack(let node, let items):
                if case .stack(_, let oldItems)? = previous {
                    if !oldItems.elementsEqual(items, by: { $0.node == $1.node }) {
                        operations.append(.setStack(id: node.rawValue, items: items.map(\.node.rawValue)))
                    }
                } else if !items.isEmpty {
                    operations.append(.setStack(id: node.rawValue, items: items.map(\.node.rawValue)))
                }
            case .junction(let node, let selected, let options):
                let option = options[selected].node.rawValue
                if case .junction(_, let oldSelected, let oldOptions)? = previous,
                    oldOptions.elementsEqual(options, by: { $0.node == $1.node })
                {
                    if oldSelected != selected {
                        operations.append(.select(id: node.rawValue, index: selected, option: option))
                    }
                } else {
                    operations.append(.setOptions(id: node.rawValue, options: options.map(\.node.rawValue)))
                    operations.append(.select(id: node.rawValue, index: selected, option: option))
                }
            case .switcher(let node, let section, let content):
                if case .switcher(_, let oldSection, let oldContent)? = previous, oldSection == section,
                    oldContent.node == content.node
                {
                    break
                }
                operations.append(.select(id: node.rawValue, index: section, option: content.node.rawValue))
            case .screen: break
            }
        }
        if let new { structural(new) }
        for presented in newOrder {
            guard case .screen(let node, _, let modal?) = presented else { continue }
            if case .screen(_, _, let oldModal)? = oldNodes[node], oldModal?.node == modal.node { continue }
            operations.append(.presentModal(id: node.rawValue, modal: modal.node.rawValue))
        }
        for presented in oldOrder.reversed() where newNodes[presented.node] == nil {
            operations.append(.unwind(id: presented.node.rawValue))
        }
        return Plan(operations)
    }

    // MARK: Another tree

    /// The part of a presentation made on another tree of the same script (before a reload)
    /// that this tree can still show, as the reducer's starting point: nodes are matched by
    /// identity; a stack keeps its items up to the first that no longer hangs where it did,
    /// a junction keeps the options it still declares (new ones start unvisited) and the
    /// selection by option, a screen keeps a modal it still declares. Nil when the root
    /// itself is gone or changed kind, or is a switcher whose shown section is gone (a switcher
    /// has no unvisited state to fall back to).
    public func rebase(_ presented: Presented?) -> Presented? {
        rebased(presented)?.uniquelyNamed()
    }

    private func rebased(_ presented: Presented?) -> Presented? {
        guard let presented, let node = tree[presented.node], node.kind == presented.kind else { return nil }
        switch presented {
        case .switcher(_, _, let content):
            guard let section = node.children.firstIndex(where: { tree.nodes[$0].nodeID == content.node }),
                let kept = rebased(content)
            else { return nil }
            return .switcher(node: node.nodeID, section: section, content: kept)
        case .junction(_, let selected, let options):
            var newSelected = 0
            var newOptions: [Presented] = []
            newOptions.reserveCapacity(node.children.count)
            for (position, child) in node.children.enumerated() {
                let id = tree.nodes[child].nodeID
                if options.indices.contains(selected), options[selected].node == id { newSelected = position }
                newOptions.append(rebased(options.first { $0.node == id }) ?? unvisited(child))
            }
            return .junction(node: node.nodeID, selected: newSelected, options: newOptions)
        case .stack(_, let items):
            var kept: [Presented] = []
            var parent = node.index
            for item in items {
                // A pushed screen stays while this tree lets it be pushed onto the stack.
                let placed =
                    item.isPushed
                    ? tree[item.node].map { tree.pushes($0.index, onto: node.index) } ?? false
                    : tree[item.node].map { $0.parent == parent && $0.relation == (kept.isEmpty ? .member : .child) }
                        ?? false
                // An instance's name (`ID#N`) is a pushed screen's, or one above a pushed screen.
                let named = item.node.instance == nil || item.isPushed || kept.contains(where: \.isPushed)
                guard placed, named, let itemNode = tree[item.node], !kept.isEmpty || !item.isPushed,
                    let rebasedItem = rebased(item)
                else { break }
                kept.append(rebasedItem)
                parent = itemNode.index
            }
            return .stack(node: node.nodeID, items: kept)
        case .screen(let id, let activation, let modal):
            // Its own modal, or a container's sheet (presented over whatever screen it shows).
            let keptModal = modal.flatMap { modal in
                node.modals.contains { tree.nodes[$0].nodeID == modal.node }
                    || tree[modal.node].map { tree.isContainerModal($0.index) } == true ? rebased(modal) : nil
            }
            // A pushed screen keeps its instance's name (`books/:id#2`).
            return .screen(node: id.base == node.nodeID ? id : node.nodeID, activation: activation, modal: keptModal)
        }
    }

    /// What a junction option shows before it was ever selected: its initial location (`initial`
    /// on the tab: that screen, activated, and the screens below it in the tab), or nothing
    /// activated.
    func unvisited(_ index: Int) -> Presented {
        if let initial = tree.tabInitials[index], let shown = presentation(of: initial, from: index) {
            return shown
        }
        let node = tree.nodes[index]
        switch node.kind {
        case .endpoint: return .screen(node: node.nodeID, activation: nil, modal: nil)
        case .stack: return .stack(node: node.nodeID, items: [])
        case .junction: return .junction(node: node.nodeID, selected: 0, options: node.children.map(unvisited))
        case .switcher: return .switcher(node: node.nodeID, section: 0, content: unvisited(node.children[0]))
        }
    }
}

extension Reducer {
    /// The presentation of `resolution` from node `top` (an ancestor of its endpoint) down.
    func presentation(of resolution: Resolution, from top: Int) -> Presented? {
        let endpoint = tree[resolution.route].node
        let depth = tree.depth(of: endpoint)
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: depth) { chain in
            tree.fillChain(to: endpoint, into: chain)
            guard let start = chain.firstIndex(of: top) else { return nil }
            var context = BuildContext(
                tree: tree, chain: UnsafeBufferPointer(chain), resolution: resolution, keepStack: false)
            return context.build(depth: start, old: nil)
        }
    }
}

/// What ``BuildContext`` made: the presentation, whether a junction kept its option's stack,
/// and the patched plan's updates (nil when the shape changed).
private struct Built {
    var presented: Presented
    var keptOption: Bool
    /// What the match's screen's placeholder stands for (nil: it has none).
    var match: Activation?
    var updates: Plan?
    /// The match's stack kept pushed screens below it.
    var belowPushed = false
}

/// Builds the new presentation along the matched chain, reusing the old one where kept, and
/// notes whether it kept the old one's shape — the same nodes in the same places, the same
/// selections and modals — in which case the plan is only the chain's `update`s.
private struct BuildContext {
    let tree: RouteTree
    /// Node indexes from the root to the matched endpoint (valid during the build only).
    let chain: UnsafeBufferPointer<Int>
    let resolution: Resolution
    let keepStack: Bool
    /// What the old presentation's match placeholder stands for (nil: it has none).
    let oldMatch: Activation?
    /// The whole old presentation (names a kept pushed screen's extension must not reuse).
    var oldRoot: Presented?
    /// Whether the match's screen gets the placeholder (a state's presentation) or its
    /// activation (a presentation for elsewhere: a tab's initial location).
    let placesMatch: Bool
    /// What the match's screen's placeholder stands for, once placed.
    var match: Activation?
    /// A junction kept its selected option's stack (`keepStack`).
    var keptOption = false
    /// A stack on the chain kept its pushed screens: the request extends the top one.
    var extendedPushed = false
    /// Something but an activation changed: a node is new or gone, a stack's items, a
    /// junction's options or selection, a switcher's section or a modal differ.
    var reshaped = false
    /// While the shape holds: `update` for each chain screen whose activation changed, in
    /// pre-order (the chain's order). The first is held apart: most dispatches have one, and
    /// a plan of one `update` takes no array.
    private var firstUpdate: NodeID?
    private var moreUpdates: [PlanOperation] = []

    /// The patched plan: the updates noted.
    var plan: Plan {
        guard let firstUpdate else { return Plan() }
        if moreUpdates.isEmpty { return Plan(updating: firstUpdate) }
        return Plan([.update(id: firstUpdate.rawValue)] + moreUpdates)
    }

    init(
        tree: RouteTree, chain: UnsafeBufferPointer<Int>, resolution: Resolution, keepStack: Bool,
        oldMatch: Activation? = nil, placesMatch: Bool = false
    ) {
        self.tree = tree
        self.chain = chain
        self.resolution = resolution
        self.keepStack = keepStack
        self.oldMatch = oldMatch
        self.placesMatch = placesMatch
    }

    /// An old screen's activation, the placeholder replaced by what it stands for.
    private func resolved(_ activation: Activation?) -> Activation? {
        if let activation, activation.isMatchPlaceholder { return oldMatch }
        return activation
    }

    /// An old subtree taken as it is, its placeholder (if it holds the old match) replaced:
    /// in the new state the placeholder stands for the new match.
    private func kept(_ presented: Presented) -> Presented {
        guard let oldMatch else { return presented }
        return presented.resolvingMatch(oldMatch) ?? presented
    }

    /// The identity of the chain's node at `depth`.
    private func id(at depth: Int) -> NodeID { tree.nodes[chain[depth]].nodeID }

    mutating func build(depth: Int, old: Presented?) -> Presented {
        let index = chain[depth]
        let node = tree.nodes[index].nodeID
        if old?.node != node { reshaped = true }
        if tree.nodes[index].kind != .endpoint, depth + 1 < chain.count, tree.nodes[chain[depth + 1]].relation == .modal
        {
            return containerModal(depth: depth, old: old)
        }
        // Fields read in place: a copy of the whole node retains every string and array in it.
        switch tree.nodes[index].kind {
        case .switcher:
            let section = tree.nodes[index].children.firstIndex(of: chain[depth + 1]) ?? 0
            var oldContent: Presented?
            if case .switcher(_, let oldSection, let content)? = old, content.node == id(at: depth + 1) {
                oldContent = content
                if oldSection != section { reshaped = true }
            } else {
                reshaped = true
            }
            return .switcher(node: node, section: section, content: build(depth: depth + 1, old: oldContent))
        case .junction:
            let children = tree.nodes[index].children
            let selected = children.firstIndex(of: chain[depth + 1]) ?? 0
            var oldOptions: [Presented]?
            if case .junction(_, let oldSelected, let options)? = old {
                oldOptions = options
                if oldSelected != selected || options.count != children.count { reshaped = true }
            } else {
                reshaped = true
            }
            var options: [Presented] = []
            options.reserveCapacity(children.count)
            for (position, child) in children.enumerated() {
                let childID = tree.nodes[child].nodeID
                // Options are found by identity: in place when the declarations did not move.
                var previous: Presented?
                if let oldOptions {
                    if position < oldOptions.count, oldOptions[position].node == childID {
                        previous = oldOptions[position]
                    } else {
                        previous = oldOptions.first { $0.node == childID }
                        reshaped = true
                    }
                }
                if position == selected {
                    if keepStack, isOptionRoot(depth: depth + 1), let previous, previous.hasActivatedScreen {
                        keptOption = true
                        reshaped = true
                        options.append(kept(previous).withoutModals())
                    } else {
                        options.append(build(depth: depth + 1, old: previous))
                    }
                } else if let previous {
                    // A tab that is not shown keeps its place but not its modals.
                    if previous.hasModal {
                        reshaped = true
                        options.append(kept(previous).withoutModals())
                    } else {
                        options.append(kept(previous))
                    }
                } else {
                    reshaped = true
                    options.append(Reducer(tree: tree).unvisited(child))
                }
            }
            return .junction(node: node, selected: selected, options: options)
        case .stack:
            var oldItems: [Presented] = []
            if case .stack(_, let items)? = old { oldItems = items } else { reshaped = true }
            return .stack(node: node, items: stackItems(from: depth + 1, old: oldItems))
        case .endpoint:
            return screen(at: depth, old: old)
        }
    }

    /// A container's modal (docs/dsl.md, "Sheets over any screen"): what the container shows
    /// stays as it is — or, before it showed anything (a cold link), its entry
    /// (``RouteTree/containerEntries``) — and the modal is presented over its top screen, or
    /// built again where it is already presented.
    private mutating func containerModal(depth: Int, old: Presented?) -> Presented {
        reshaped = true
        let container = chain[depth]
        let modalID = tree.nodes[chain[depth + 1]].nodeID
        var under: Presented
        if let old, old.node == tree.nodes[container].nodeID, old.hasActivatedScreen {
            under = kept(old)
        } else if let entry = tree.containerEntries[container],
            let shown = Reducer(tree: tree).presentation(of: entry, from: container)
        {
            under = shown
        } else {
            under = Reducer(tree: tree).unvisited(container)
        }
        let existing = under.first(modalID)
        let modal = build(depth: depth + 1, old: existing)
        if existing != nil, let replaced = under.replacingModal(modalID, with: modal) { return replaced }
        return under.presentingOverTop(modal) ?? under
    }

    /// Whether the chain below a junction is just the option's root endpoint.
    private func isOptionRoot(depth: Int) -> Bool {
        switch tree.nodes[chain[depth]].kind {
        case .endpoint: return depth == chain.count - 1
        case .stack: return depth + 1 == chain.count - 1 && tree.nodes[chain[depth + 1]].relation == .member
        default: return false
        }
    }

    private mutating func stackItems(from depth: Int, old: [Presented]) -> [Presented] {
        var old = old
        if let lastPushed = old.lastIndex(where: \.isPushed) {
            // Pushed screens stay when the request extends the top one (a child of it, with its
            // own parameters); otherwise the declared chain replaces them (docs/dsl.md, "Push").
            reshaped = true
            if let extended = extending(old, lastPushed: lastPushed, from: depth) { return extended }
            old.removeAll { $0.isPushed }
        }
        let first = chain[depth]
        if tree.nodes[first].kind != .endpoint {
            let firstID = tree.nodes[first].nodeID
            if old.count != 1 || old[0].node != firstID { reshaped = true }
            let previous = old.first { $0.node == firstID }
            return [build(depth: depth, old: previous)]
        }
        // The items are the chain's screens pushed one on the other: the same as before, in
        // place, or the shape changed (checked first, so no update is noted in vain).
        var last = depth
        while last < chain.count - 1, tree.nodes[chain[last + 1]].relation == .child { last += 1 }
        if !reshaped {
            if old.count != last - depth + 1 {
                reshaped = true
            } else {
                for place in old.indices where old[place].node != tree.nodes[chain[depth + place]].nodeID {
                    reshaped = true
                    break
                }
            }
        }
        // The old item of the screen at `current`: in place when the stack kept its items;
        // else found by identity.
        func previous(_ current: Int) -> Presented? {
            let node = tree.nodes[chain[current]].nodeID
            let place = current - depth
            return place < old.count && old[place].node == node ? old[place] : old.first { $0.node == node }
        }
        var items: [Presented] = []
        items.reserveCapacity(last - depth + 1)
        for current in depth..<last {
            let index = chain[current]
            let node = tree.nodes[index].nodeID
            let previous = previous(current)
            let activation = activation(of: index, below: previous)
            if !reshaped, case .screen(_, let oldActivation, let oldModal)? = previous {
                if oldModal != nil { reshaped = true }
                noteUpdate(node, from: resolved(oldActivation), to: activation)
            }
            items.append(.screen(node: node, activation: activation, modal: nil))
        }
        items.append(screen(at: last, old: previous(last)))
        return items
    }

    /// The stack's items when the chain from `depth` passes through the node of the pushed
    /// screen `old[lastPushed]` and goes on below it, the pushed screen's own parameters
    /// unchanged: the items up to that screen kept, then the chain below it; nil otherwise.
    private mutating func extending(_ old: [Presented], lastPushed: Int, from depth: Int) -> [Presented]? {
        guard case .screen(let instance, let pushedActivation?, _) = old[lastPushed] else { return nil }
        var last = depth
        while last < chain.count - 1, tree.nodes[chain[last + 1]].relation == .child { last += 1 }
        let base = instance.base
        guard let place = (depth...last).first(where: { tree.nodes[chain[$0]].nodeID == base }),
            place < chain.count - 1, let route = tree.nodes[chain[place]].route,
            Reducer.keepsOwnParameters(pushedActivation, route: route, tree: tree, resolution: resolution)
        else { return nil }
        extendedPushed = true
        var items = old[..<lastPushed].map(kept)
        func previous(_ current: Int) -> Presented? {
            let node = tree.nodes[chain[current]].nodeID
            return old[(lastPushed + 1)...].first { $0.node == node }
        }
        // A screen below the pushed one whose node is already on the stack (pushed there, or in
        // another stack's pushes) is named as a further instance: no two presentables share a name.
        var taken = Set(items.map(\.node)).union([instance])
        oldRoot?.forEach { taken.insert($0.node) }
        func named(_ screen: Presented) -> Presented {
            let base = screen.node
            for number in 1...NodeID.maximumInstances {
                let name = base.instance(number)
                if !taken.contains(name) || previous(at: screen) == name {
                    taken.insert(name)
                    return number == 1 ? screen : screen.renamed(name)
                }
            }
            return screen
        }
        func previous(at screen: Presented) -> NodeID? {
            old[(lastPushed + 1)...].first { $0.node.base == screen.node }?.node
        }
        if place == last {
            // The pushed screen presents the rest of the chain (a modal).
            items.append(screen(at: place, old: old[lastPushed]).renamed(instance))
            return items
        }
        items.append(.screen(node: instance, activation: pushedActivation, modal: nil))
        for current in (place + 1)..<last {
            let index = chain[current]
            items.append(
                named(
                    .screen(
                        node: tree.nodes[index].nodeID, activation: activation(of: index, below: previous(current)),
                        modal: nil)))
        }
        items.append(named(screen(at: last, old: previous(last))))
        return items
    }

    /// A screen for the endpoint at `depth`: the match, or the endpoint presenting a modal.
    private mutating func screen(at depth: Int, old: Presented?) -> Presented {
        let index = chain[depth]
        let node = tree.nodes[index].nodeID
        if depth == chain.count - 1 {
            let activation = Reducer.matchActivation(resolution)
            if !reshaped {
                if case .screen(let oldNode, let oldActivation, nil)? = old, oldNode == node {
                    noteUpdate(node, from: resolved(oldActivation), to: activation)
                } else {
                    reshaped = true
                }
            }
            if placesMatch {
                match = activation
                return .screen(node: node, activation: .matchPlaceholder, modal: nil)
            }
            return .screen(node: node, activation: activation, modal: nil)
        }
        var oldModal: Presented?
        if case .screen(_, _, let modal?)? = old, modal.node == id(at: depth + 1) { oldModal = modal }
        let activation = activation(of: index, below: old)
        if !reshaped {
            if case .screen(let oldNode, let oldActivation, _)? = old, oldNode == node {
                noteUpdate(node, from: resolved(oldActivation), to: activation)
            } else {
                reshaped = true
            }
        }
        return .screen(node: node, activation: activation, modal: build(depth: depth + 1, old: oldModal))
    }

    /// An `update` for a kept screen whose activation is new or differs (as the general
    /// planner decides it).
    private mutating func noteUpdate(_ node: NodeID, from old: Activation?, to new: Activation) {
        guard !reshaped, old.map({ $0.differs(from: new) }) ?? true else { return }
        if firstUpdate == nil {
            firstUpdate = node
        } else {
            moreUpdates.append(.update(id: node.rawValue))
        }
    }

    /// A screen below the match (a stack's lower screens, an endpoint presenting a modal)
    /// gets its own pattern's parameters; it keeps its previous activation (query,
    /// fragment) while those parameters are unchanged, so pushing a detail does not reset a
    /// filtered list.
    private func activation(of node: Int, below previous: Presented?) -> Activation {
        guard let route = tree.nodes[node].route else { return Activation() }
        if case .screen(_, let stored?, _)? = previous, let old = resolved(stored),
            Reducer.keepsOwnParameters(old, route: route, tree: tree, resolution: resolution)
        {
            return old
        }
        return Activation(parameters: resolution.parameters.restricted(to: tree.matcher.parameterNames[route]))
    }
}

extension Presented {
    /// The kind of node it shows.
    public var kind: NodeKind {
        switch self {
        case .switcher: .switcher
        case .junction: .junction
        case .stack: .stack
        case .screen: .endpoint
        }
    }

    /// Whether a modal is presented anywhere in it.
    var hasModal: Bool {
        switch self {
        case .switcher(_, _, let content): content.hasModal
        case .junction(_, _, let options): options.contains { $0.hasModal }
        case .stack(_, let items): items.contains { $0.hasModal }
        case .screen(_, _, let modal): modal != nil
        }
    }

    /// Whether it is a pushed screen (``Activation/pushed``).
    package var isPushed: Bool {
        if case .screen(_, let activation?, _) = self { return activation.pushed }
        return false
    }

    /// Whether any screen in it was activated (a stack that was visited).
    var hasActivatedScreen: Bool {
        var found = false
        forEach { if case .screen(_, _?, _) = $0 { found = true } }
        return found
    }
}

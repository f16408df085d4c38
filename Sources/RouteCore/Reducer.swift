/// What a dispatch resolved to: the final request (after guards and redirects) and its match.
public struct Resolution: Equatable, Sendable {
    public var request: Request
    public var route: Int
    public var params: [String: String]
    /// The requests passed through on the way (redirects and fallbacks), first to last.
    public var redirects: [String]
    /// The string that was dispatched, before any redirect.
    public var requested: String

    public init(
        request: Request, route: Int, params: [String: String], redirects: [String] = [], requested: String? = nil
    ) {
        self.request = request
        self.route = route
        self.params = params
        self.redirects = redirects
        self.requested = requested ?? redirects.first ?? request.original
    }
}

/// Options of one dispatch.
public struct DispatchOptions: Equatable, Sendable {
    /// MonarchRouter's `junctionsOnly`: when the request is a junction option's root, only the
    /// selection changes and the option's deeper stack stays.
    public var keepStack = false
    public init(keepStack: Bool = false) { self.keepStack = keepStack }
}

/// A computed state change: the new state and the plan that gets the presentables there.
public struct Transition: Equatable, Sendable {
    public var from: RouterState
    public var to: RouterState
    public var plan: Plan
    /// The structural operations the UI already made itself (a ``Reducer/sync(_:to:)``):
    /// not in the plan, so no presenter drives them, but presenters that keep a model of the
    /// UI (``HeadlessPresentable``s) bring it in line through ``Presenter/reflect(_:lookup:)``.
    public var reflected: [PlanOperation]

    public init(from: RouterState, to: RouterState, plan: Plan, reflected: [PlanOperation] = []) {
        self.from = from
        self.to = to
        self.plan = plan
        self.reflected = reflected
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
        let endpoint = tree.endpoints[resolution.route].node
        // The chain root → endpoint on the stack (a tree is a handful of levels deep).
        let depth = tree.depth(of: endpoint)
        let (presented, keptOption) = withUnsafeTemporaryAllocation(of: Int.self, capacity: depth) { chain in
            tree.fillChain(to: endpoint, into: chain)
            var context = BuildContext(
                tree: tree, chain: UnsafeBufferPointer(chain), resolution: resolution, keepStack: options.keepStack,
                keptOption: nil)
            return (context.build(depth: 0, old: state.presented), context.keptOption)
        }
        var next = RouterState(
            request: resolution.request, route: resolution.route, params: resolution.params, presented: presented,
            requested: resolution.requested)
        if keptOption == true, let top = presented.topScreen, let request = top.activation.request,
            let route = tree.nodes[top.node].route
        {
            // keepStack: the state follows what is on screen (the kept stack's top).
            next.request = request
            next.requested = request.original
            next.route = route
            next.params = top.activation.params
        }
        let plan = Self.plan(from: state.presentedIndex, to: next.presentedIndex, tree: tree)
        return Transition(from: state, to: next, plan: plan)
    }

    /// Like ``reduce(_:to:options:)`` for a change the UI already made (a swipe back): the
    /// plan keeps only what the UI cannot have done — `create`, `update` and `unwind`.
    /// The structural operations move to ``Transition/reflected``, so the presentables still
    /// end up as a dispatch of the same request would leave them.
    public func sync(_ state: RouterState, to resolution: Resolution) -> Transition {
        var transition = reduce(state, to: resolution)
        var kept: [PlanOperation] = []
        for operation in transition.plan.operations {
            switch operation {
            case .setStack, .setOptions, .select, .presentModal, .dismissModal: transition.reflected.append(operation)
            case .create, .update, .unwind: kept.append(operation)
            }
        }
        transition.plan.operations = kept
        return transition
    }

    // MARK: Planning

    /// The operations between two presentations, in this order: dismiss modals
    /// (deepest first), create (parents first), update, set stacks / options / selections
    /// (children first), present modals, unwind (deepest first).
    public static func plan(from old: Presented?, to new: Presented?, tree: RouteTree) -> Plan {
        plan(from: PresentedIndex(old), to: PresentedIndex(new), tree: tree)
    }

    static func plan(from oldNodes: PresentedIndex, to newNodes: PresentedIndex, tree: RouteTree) -> Plan {
        let new = newNodes.order.first
        let oldOrder = oldNodes.order
        let newOrder = newNodes.order
        let id = { (node: Int) in tree.nodes[node].id }
        var operations: [PlanOperation] = []
        operations.reserveCapacity(max(4, newOrder.count))
        for presented in oldOrder.reversed() {
            guard case .screen(let node, _, let modal?) = presented else { continue }
            if case .screen(_, _, let newModal)? = newNodes[node], newModal?.node == modal.node { continue }
            operations.append(.dismissModal(id: id(node), modal: id(modal.node)))
        }
        for presented in newOrder where oldNodes[presented.node] == nil {
            operations.append(.create(id: id(presented.node)))
        }
        for presented in newOrder {
            guard case .screen(let node, let activation?, _) = presented,
                case .screen(_, let oldActivation, _)? = oldNodes[node]
            else { continue }
            if oldActivation.map({ $0.differs(from: activation) }) ?? true {
                operations.append(.update(id: id(node)))
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
                        operations.append(.setStack(id: id(node), items: items.map { id($0.node) }))
                    }
                } else if !items.isEmpty {
                    operations.append(.setStack(id: id(node), items: items.map { id($0.node) }))
                }
            case .junction(let node, let selected, let options):
                let option = id(options[selected].node)
                if case .junction(_, let oldSelected, _)? = previous {
                    if oldSelected != selected {
                        operations.append(.select(id: id(node), index: selected, option: option))
                    }
                } else {
                    operations.append(.setOptions(id: id(node), options: options.map { id($0.node) }))
                    operations.append(.select(id: id(node), index: selected, option: option))
                }
            case .switcher(let node, let section, let content):
                if case .switcher(_, let oldSection, _)? = previous, oldSection == section { break }
                operations.append(.select(id: id(node), index: section, option: id(content.node)))
            case .screen: break
            }
        }
        if let new { structural(new) }
        for presented in newOrder {
            guard case .screen(let node, _, let modal?) = presented else { continue }
            if case .screen(_, _, let oldModal)? = oldNodes[node], oldModal?.node == modal.node { continue }
            operations.append(.presentModal(id: id(node), modal: id(modal.node)))
        }
        for presented in oldOrder.reversed() where newNodes[presented.node] == nil {
            operations.append(.unwind(id: id(presented.node)))
        }
        return Plan(operations)
    }
}

/// Builds the new presentation along the matched chain, reusing the old one where kept.
private struct BuildContext {
    let tree: RouteTree
    /// Node indexes from the root to the matched endpoint (valid during the build only).
    let chain: UnsafeBufferPointer<Int>
    let resolution: Resolution
    let keepStack: Bool
    var keptOption: Bool?

    init(tree: RouteTree, chain: UnsafeBufferPointer<Int>, resolution: Resolution, keepStack: Bool, keptOption: Bool?) {
        self.tree = tree
        self.chain = chain
        self.resolution = resolution
        self.keepStack = keepStack
        self.keptOption = keptOption
    }

    mutating func build(depth: Int, old: Presented?) -> Presented {
        let index = chain[depth]
        // Fields read in place: a copy of the whole node retains every string and array in it.
        switch tree.nodes[index].kind {
        case .switcher:
            let section = tree.nodes[index].children.firstIndex(of: chain[depth + 1]) ?? 0
            var oldContent: Presented?
            if case .switcher(_, let oldSection, let content)? = old, oldSection == section { oldContent = content }
            return .switcher(node: index, section: section, content: build(depth: depth + 1, old: oldContent))
        case .junction:
            let children = tree.nodes[index].children
            let selected = children.firstIndex(of: chain[depth + 1]) ?? 0
            var oldOptions: [Presented]?
            if case .junction(_, _, let options)? = old, options.count == children.count { oldOptions = options }
            var options: [Presented] = []
            options.reserveCapacity(children.count)
            for (position, child) in children.enumerated() {
                let previous = oldOptions?[position]
                if position == selected {
                    if keepStack, isOptionRoot(depth: depth + 1), let previous, previous.hasActivatedScreen {
                        keptOption = true
                        options.append(previous.withoutModals())
                    } else {
                        options.append(build(depth: depth + 1, old: previous))
                    }
                } else {
                    options.append(previous?.withoutModals() ?? empty(child))
                }
            }
            return .junction(node: index, selected: selected, options: options)
        case .stack:
            var oldItems: [Presented] = []
            if case .stack(_, let items)? = old { oldItems = items }
            return .stack(node: index, items: stackItems(from: depth + 1, old: oldItems))
        case .endpoint:
            return screen(at: depth, old: old)
        }
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
        let first = chain[depth]
        if tree.nodes[first].kind != .endpoint {
            let previous = old.first { $0.node == first }
            return [build(depth: depth, old: previous)]
        }
        var items: [Presented] = []
        items.reserveCapacity(chain.count - depth)
        var current = depth
        while true {
            let node = chain[current]
            let isLast = current == chain.count - 1
            if !isLast, tree.nodes[chain[current + 1]].relation == .child {
                let previous = old.first { $0.node == node }
                items.append(.screen(node: node, activation: activation(of: node, below: previous), modal: nil))
                current += 1
                continue
            }
            items.append(screen(at: current, old: old.first { $0.node == node }))
            return items
        }
    }

    /// A screen for the endpoint at `depth`: the match, or the endpoint presenting a modal.
    private mutating func screen(at depth: Int, old: Presented?) -> Presented {
        let node = chain[depth]
        if depth == chain.count - 1 {
            return .screen(node: node, activation: activation(of: node, isMatch: true), modal: nil)
        }
        var oldModal: Presented?
        if case .screen(_, _, let modal?)? = old, modal.node == chain[depth + 1] { oldModal = modal }
        return .screen(
            node: node, activation: activation(of: node, below: old), modal: build(depth: depth + 1, old: oldModal))
    }

    /// The matched endpoint's activation: everything the request carries.
    private func activation(of node: Int, isMatch: Bool) -> Activation {
        Activation(
            params: resolution.params, query: resolution.request.query, fragment: resolution.request.fragment,
            request: resolution.request, from: resolution.redirects.isEmpty ? nil : resolution.requested)
    }

    /// A screen below the match (a stack's lower screens, an endpoint presenting a modal)
    /// gets its own pattern's parameters; it keeps its previous activation (query,
    /// fragment) while those parameters are unchanged, so pushing a detail does not reset a
    /// filtered list.
    private func activation(of node: Int, below previous: Presented?) -> Activation {
        guard let route = tree.nodes[node].route else { return Activation() }
        let names = tree.matcher.parameterNames[route]
        let fresh = Activation(params: resolution.params.filter { names.contains($0.key) })
        if case .screen(_, let old?, _)? = previous, old.params == fresh.params { return old }
        return fresh
    }

    /// What a junction option shows before it was ever selected.
    private func empty(_ node: Int) -> Presented {
        let spec = tree.nodes[node]
        switch spec.kind {
        case .endpoint: return .screen(node: node, activation: nil, modal: nil)
        case .stack: return .stack(node: node, items: [])
        case .junction: return .junction(node: node, selected: 0, options: spec.children.map(empty))
        case .switcher: return .switcher(node: node, section: 0, content: empty(spec.children[0]))
        }
    }
}

extension Presented {
    /// Whether any screen in it was activated (a stack that was visited).
    var hasActivatedScreen: Bool {
        var found = false
        forEach { if case .screen(_, _?, _) = $0 { found = true } }
        return found
    }
}

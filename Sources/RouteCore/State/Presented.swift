/// What a screen was activated with.
///
/// A value type over a copy-on-write box: activations are copied into presentations,
/// states, presentables and snapshots on every dispatch, and a copy is one retain.
public struct Activation: Equatable, Sendable {
    private struct Fields: Sendable {
        var params: Parameters
        var query: [String: String]
        var fragment: String?
        var request: Request?
        var from: String?
        /// The placeholder of a state's match (``isMatchPlaceholder``).
        var isMatchPlaceholder = false
        /// A screen pushed onto its stack (``pushed``).
        var pushed = false
        /// The value handed back to the screen (``result``).
        var result: [String: AttributeValue]?
    }

    private var storage: CopyOnWrite<Fields>

    /// Stands, in a state's stored presentation, for the matched endpoint's activation, which
    /// the state holds itself (``RouterState/match``): a dispatch that only re-activates the
    /// screen shown keeps the whole presentation. Never seen outside the core: the state's
    /// `presented` puts the activation in its place.
    static let matchPlaceholder: Activation = {
        var placeholder = Activation()
        placeholder.storage.value.isMatchPlaceholder = true
        return placeholder
    }()

    /// Whether this is ``matchPlaceholder``.
    @usableFromInline var isMatchPlaceholder: Bool { storage.value.isMatchPlaceholder }

    /// The parameter values by name. A screen's one or two parameters are not held as a
    /// dictionary, so each read makes one; ``forEachParameter(_:)`` reads them without.
    public var params: [String: String] {
        get { storage.value.params.dictionary }
        set { storage.value.params = Parameters(newValue) }
    }
    /// The parameters as held (``Parameters``).
    var parameters: Parameters {
        get { storage.value.params }
        set { storage.value.params = newValue }
    }
    /// How many parameters ``params`` has, without making the dictionary.
    public var parameterCount: Int { storage.value.params.count }
    /// Calls `body` with each parameter's name and value, without making the ``params``
    /// dictionary (which a screen's one or two parameters are not held as): for code that
    /// copies them elsewhere on every dispatch, as a hook's `ctx` does.
    public func forEachParameter<E: Error>(_ body: (String, String) throws(E) -> Void) throws(E) {
        try storage.value.params.forEach(body)
    }
    public var query: [String: String] {
        get { storage.value.query }
        set { storage.value.query = newValue }
    }
    public var fragment: String? {
        get { storage.value.fragment }
        set { storage.value.fragment = newValue }
    }
    /// Whether the screen was pushed (`push`, ``Router/push(_:)``) rather than built from the
    /// route tree: a stack's pushed screens stay above its declared chain until Back pops them
    /// or a request that does not extend them replaces them (docs/dsl.md, "Push").
    public var pushed: Bool {
        get { storage.value.pushed }
        set { storage.value.pushed = newValue }
    }

    /// The value last handed back to this screen when a screen or sheet above it closed
    /// (``Router/back(result:)``, docs/dsl.md, "Results"): part of the screen's state, so a
    /// restoration, an undo or a reload shows it without handing it over again.
    public var result: [String: AttributeValue]? {
        get { storage.value.result }
        set { storage.value.result = newValue }
    }

    /// The full request, for the endpoint that was the match (nil for the screens below it).
    public var request: Request? {
        get { storage.value.request }
        set { storage.value.request = newValue }
    }

    /// The request the user asked for when a guard's fallback or a redirect led to the match
    /// (`ctx.from`); nil otherwise.
    public var from: String? {
        get { storage.value.from }
        set { storage.value.from = newValue }
    }

    public init(
        params: [String: String] = [:], query: [String: String] = [:], fragment: String? = nil, request: Request? = nil,
        from: String? = nil
    ) {
        self.init(parameters: Parameters(params), query: query, fragment: fragment, request: request, from: from)
    }

    init(
        parameters: Parameters, query: [String: String] = [:], fragment: String? = nil, request: Request? = nil,
        from: String? = nil
    ) {
        storage = CopyOnWrite(
            Fields(params: parameters, query: query, fragment: fragment, request: request, from: from))
    }

    public static func == (lhs: Activation, rhs: Activation) -> Bool {
        lhs.storage.isIdentical(to: rhs.storage)
            || (lhs.isMatchPlaceholder == rhs.isMatchPlaceholder && lhs.parameters == rhs.parameters
                && lhs.query == rhs.query
                && lhs.fragment == rhs.fragment
                && lhs.request == rhs.request && lhs.from == rhs.from && lhs.pushed == rhs.pushed
                && lhs.result == rhs.result)
    }

    /// Whether an `update` is due when going from `self` to `other` (neither a placeholder:
    /// resolved first).
    func differs(from other: Activation) -> Bool {
        !storage.isIdentical(to: other.storage)
            && (storage.value.params != other.storage.value.params || !Self.same(query, other.query)
                || fragment != other.fragment
                || from != other.from || result != other.result)
    }

    /// `==` without hashing for the usual zero or one entry (two dictionaries with the same
    /// entries may iterate in different orders, so more entries go through `==`).
    private static func same(_ lhs: [String: String], _ rhs: [String: String]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        switch lhs.count {
        case 0: return true
        case 1:
            guard let left = lhs.first, let right = rhs.first else { return false }
            return left.key == right.key && left.value == right.value
        default: return lhs == rhs
        }
    }
}

/// The shape of what is on screen, as pure data: the reducer's output and the input of
/// planning and rendering. Nodes are named by identity (``NodeID``), not by position, so a
/// presentation made on one tree is read on the tree a reload builds from the same script.
///
/// Every case is boxed, so a copy is one retain. (Boxing only the switcher and the screen
/// saved a stack's or junction's allocation per dispatch but made every copy an outlined
/// multi-field copy: a push cost 10 % more instructions, `LunaBench dispatches push`.)
public indirect enum Presented: Equatable, Sendable {
    /// A switcher showing one section (`section` is its index among the declared sections).
    case switcher(node: NodeID, section: Int, content: Presented)
    /// A junction with all its options and the selected one.
    case junction(node: NodeID, selected: Int, options: [Presented])
    /// A stack and its items, root first.
    case stack(node: NodeID, items: [Presented])
    /// A screen: activated (or only created, as a junction option not yet selected), with
    /// the modal presented over it.
    case screen(node: NodeID, activation: Activation?, modal: Presented?)

    /// The node this presentable shows.
    public var node: NodeID {
        switch self {
        case .switcher(let node, _, _), .junction(let node, _, _), .stack(let node, _), .screen(let node, _, _): node
        }
    }

    /// Direct children in the presentable tree (a screen's modal included).
    public var children: [Presented] {
        switch self {
        case .switcher(_, _, let content): [content]
        case .junction(_, _, let options): options
        case .stack(_, let items): items
        case .screen(_, _, let modal): modal.map { [$0] } ?? []
        }
    }

    /// Pre-order walk.
    public func forEach(_ body: (Presented) -> Void) {
        body(self)
        switch self {
        case .switcher(_, _, let content): content.forEach(body)
        case .junction(_, _, let options): for option in options { option.forEach(body) }
        case .stack(_, let items): for item in items { item.forEach(body) }
        case .screen(_, _, let modal): modal?.forEach(body)
        }
    }

    /// The node `node` in this tree, searched in pre-order.
    func first(_ node: NodeID) -> Presented? {
        if self.node == node { return self }
        switch self {
        case .switcher(_, _, let content): return content.first(node)
        case .junction(_, _, let options):
            for option in options { if let found = option.first(node) { return found } }
            return nil
        case .stack(_, let items):
            for item in items { if let found = item.first(node) { return found } }
            return nil
        case .screen(_, _, let modal): return modal?.first(node)
        }
    }

    /// Appends the tree in pre-order (no closure, no intermediate arrays).
    func appendPreorder(to list: inout [Presented]) {
        list.append(self)
        switch self {
        case .switcher(_, _, let content): content.appendPreorder(to: &list)
        case .junction(_, _, let options): for option in options { option.appendPreorder(to: &list) }
        case .stack(_, let items): for item in items { item.appendPreorder(to: &list) }
        case .screen(_, _, let modal): modal?.appendPreorder(to: &list)
        }
    }

    /// The same tree with every modal removed (what a non-selected tab keeps).
    func withoutModals() -> Presented {
        switch self {
        case .switcher(let node, let section, let content):
            .switcher(node: node, section: section, content: content.withoutModals())
        case .junction(let node, let selected, let options):
            .junction(node: node, selected: selected, options: options.map { $0.withoutModals() })
        case .stack(let node, let items): .stack(node: node, items: items.map { $0.withoutModals() })
        case .screen(let node, let activation, _): .screen(node: node, activation: activation, modal: nil)
        }
    }

    /// The deepest activated screen along selections, stack tops and modals: what the user sees.
    public var topScreen: (node: NodeID, activation: Activation)? {
        switch self {
        case .switcher(_, _, let content): return content.topScreen
        case .junction(_, let selected, let options): return options[selected].topScreen
        case .stack(_, let items): return items.last?.topScreen
        case .screen(let node, let activation, let modal):
            if let modal, let top = modal.topScreen { return top }
            return activation.map { (node, $0) }
        }
    }
}

/// The nodes of a presentation in pre-order, with lookup by node: a linear scan for the
/// small presentations of real apps, a sorted copy and binary search past 32 nodes (a
/// dictionary would hash every node of every dispatch). (Searching a small presentation in
/// place instead of flattening it saved the array's allocation but cost a dispatch 56 % more
/// instructions, `scripts/bench-instructions`, 2026-11-25: the walks copy enum payloads; and
/// walking `order` through closures cost 4 % more than plain loops.)
@usableFromInline
struct PresentedIndex: Sendable {
    /// Pre-order.
    private(set) var order: [Presented] = []
    /// For large presentations: node identities (as addresses) sorted, and their positions in `order`.
    private var sorted: [(address: UInt, position: Int)] = []

    /// Set instead of `order` by ``init(walking:)``: lookups search the tree itself.
    private var unindexed: Presented?

    static let linearScanLimit = 32

    /// Lookups only, without the pre-order list: for applying a plan of a few operations
    /// (the patched plan of a dispatch that kept the shape on screen), where building the
    /// list would cost more than the lookups. `order` is empty.
    init(walking root: Presented?) { unindexed = root }

    /// Whether this is the full index (not a lookup by walking the tree).
    @usableFromInline var isComplete: Bool { unindexed == nil }

    @usableFromInline
    init(_ root: Presented?) {
        guard let root else { return }
        order.reserveCapacity(8)
        root.appendPreorder(to: &order)
        indexIfLarge()
    }

    /// Only the nodes `keep` accepts (a presentation from another tree: the nodes it still has).
    init(_ root: Presented?, keeping keep: (Presented) -> Bool) {
        root?.appendPreorder(to: &order)
        order.removeAll { !keep($0) }
        indexIfLarge()
    }

    private mutating func indexIfLarge() {
        if order.count > Self.linearScanLimit {
            sorted = order.indices.map { (order[$0].node.address, $0) }.sorted { $0.address < $1.address }
        }
    }

    @usableFromInline
    subscript(node: NodeID) -> Presented? {
        if let unindexed { return unindexed.first(node) }
        if sorted.isEmpty {
            for presented in order where presented.node == node { return presented }
            return nil
        }
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle].address < node.address { low = middle + 1 } else { high = middle }
        }
        guard low < sorted.count, sorted[low].address == node.address else { return nil }
        return order[sorted[low].position]
    }
}

/// The router state: the current request, the matched endpoint and what is on screen.
public struct RouterState: Equatable, Sendable {
    @usableFromInline
    struct Fields: Sendable {
        var request: Request?
        var route: RouteID?
        var params: Parameters
        /// As stored: the matched screen's activation may be ``Activation/matchPlaceholder``,
        /// standing for `match`.
        var presented: Presented?
        var requested: String?
        /// When `presented` holds the placeholder: what it stands for (``Match``).
        var match: Match?
    }

    /// The matched screen of a stored presentation that holds its placeholder: its activation,
    /// its node and the tree the presentation was made on (``RouteTree/serial``), so the next
    /// dispatch to the same endpoint of the same tree can keep the presentation.
    @usableFromInline
    struct Match: Sendable {
        var activation: Activation
        var node: Int32
        var treeSerial: UInt64
        /// The match's stack keeps pushed screens below it (a request that extended one): a
        /// dispatch to the same endpoint is built again, never kept, so the rule for pushed
        /// screens decides.
        var belowPushed = false
    }

    @usableFromInline var storage: CopyOnWrite<Fields>

    public var request: Request? {
        get { storage.value.request }
        set { storage.value.request = newValue }
    }
    /// The matched route index.
    public var route: RouteID? {
        get { storage.value.route }
        set { storage.value.route = newValue }
    }
    /// The matched route's parameter values by name (made on each read, as
    /// ``Activation/params``).
    public var params: [String: String] {
        get { storage.value.params.dictionary }
        set { storage.value.params = Parameters(newValue) }
    }
    /// The parameters as held (``Parameters``).
    var parameters: Parameters {
        get { storage.value.params }
        set { storage.value.params = newValue }
    }
    /// What is on screen.
    public var presented: Presented? {
        get {
            guard let match = storage.value.match?.activation else { return storage.value.presented }
            return storage.value.presented.map { $0.resolvingMatch(match) ?? $0 }
        }
        set {
            storage.value.presented = newValue
            storage.value.match = nil
        }
    }
    /// What was dispatched to get here, before redirects and fallbacks: re-resolved when
    /// flags change or the script reloads.
    public var requested: String? {
        get { storage.value.requested }
        set { storage.value.requested = newValue }
    }

    public init(
        request: Request? = nil, route: RouteID? = nil, params: [String: String] = [:], presented: Presented? = nil,
        requested: String? = nil
    ) {
        self.init(
            request: request, route: route, parameters: Parameters(params), presented: presented, requested: requested)
    }

    init(
        request: Request?, route: RouteID?, parameters: Parameters, presented: Presented?, requested: String?
    ) {
        storage = CopyOnWrite(
            Fields(request: request, route: route, params: parameters, presented: presented, requested: requested))
    }

    /// A state whose presentation holds the placeholder for the matched screen at `matchNode`
    /// of `tree`, activated with `match`.
    init(
        resolution: Resolution, presented: Presented, match: Activation, matchNode: Int, tree: RouteTree,
        belowPushed: Bool = false
    ) {
        storage = CopyOnWrite(
            Fields(
                request: resolution.request, route: resolution.route, params: resolution.parameters,
                presented: presented,
                requested: resolution.requested,
                match: Match(
                    activation: match, node: Int32(truncatingIfNeeded: matchNode), treeSerial: tree.serial,
                    belowPushed: belowPushed)))
    }

    /// The presentation as stored (the matched screen's activation may be the placeholder for
    /// ``match``).
    var storedPresented: Presented? { storage.value.presented }
    /// The matched screen's activation when the stored presentation holds its placeholder.
    @usableFromInline var match: Activation? { storage.value.match?.activation }
    /// The matched endpoint's node index in the tree the presentation was made on (-1: none;
    /// the tree is not checked: compare the node).
    @usableFromInline var matchNodeIndex: Int { storage.value.match.map { Int($0.node) } ?? -1 }

    /// The stored presentation in pre-order with lookup by node.
    var presentedIndex: PresentedIndex { PresentedIndex(storage.value.presented) }

    public static func == (lhs: RouterState, rhs: RouterState) -> Bool {
        lhs.storage.isIdentical(to: rhs.storage)
            || (lhs.request == rhs.request && lhs.route == rhs.route && lhs.parameters == rhs.parameters
                && lhs.presented == rhs.presented && lhs.requested == rhs.requested)
    }

    public static let initial = RouterState()
}

extension Presented {
    /// The same tree with ``Activation/matchPlaceholder`` replaced by `match`; nil when it
    /// holds no placeholder (nothing is copied then).
    func resolvingMatch(_ match: Activation) -> Presented? {
        switch self {
        case .switcher(let node, let section, let content):
            return content.resolvingMatch(match).map { .switcher(node: node, section: section, content: $0) }
        case .junction(let node, let selected, let options):
            for position in options.indices {
                guard let resolved = options[position].resolvingMatch(match) else { continue }
                var copy = options
                copy[position] = resolved
                return .junction(node: node, selected: selected, options: copy)
            }
            return nil
        case .stack(let node, let items):
            for position in items.indices {
                guard let resolved = items[position].resolvingMatch(match) else { continue }
                var copy = items
                copy[position] = resolved
                return .stack(node: node, items: copy)
            }
            return nil
        case .screen(let node, let activation, let modal):
            if let activation, activation.isMatchPlaceholder {
                return .screen(node: node, activation: match, modal: modal)
            }
            return modal?.resolvingMatch(match).map { .screen(node: node, activation: activation, modal: $0) }
        }
    }
}

/// A node's identity: its id (`stack:books`, `books/:id`, or the `id` a script gives). Unlike a
/// node's position in ``RouteTree/nodes``, it means the same node in every tree built from the
/// same declarations, so what is on screen (``Presented``), the presentables and a reload are
/// keyed by it.
///
/// Each distinct id string is stored once, the first time a tree declares it (and kept for the
/// process's life: a few dozen bytes per distinct id); an identity is a pointer to it, so
/// identities compare and hash as pointers and are copied without reference counting — a
/// dispatch looks nodes up by identity without comparing strings. Ids are told apart by their
/// UTF-8 bytes (`Café` precomposed and decomposed are two ids), as a tree's text is.
///
/// An id that arrives from outside — a restoration string, a linked device, a page — is only
/// looked up (``init(existing:)``), never stored: a peer cannot make the process keep ids no
/// tree declares.
public struct NodeID: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// One distinct id string, made once and kept by the process-wide table for good, so an
    /// identity can point at it without owning it.
    @usableFromInline
    final class Interned: Sendable {
        let rawValue: String
        init(_ rawValue: String) { self.rawValue = rawValue }
    }

    /// Copying an identity copies this pointer: no reference counting (the table owns it).
    @usableFromInline let interned: Unmanaged<Interned>

    public var rawValue: String { interned._withUnsafeGuaranteedRef { $0.rawValue } }

    /// The identity of `rawValue`, stored the first time (for ids a tree declares; an id from
    /// outside is looked up with ``init(existing:)``).
    public init(_ rawValue: String) { self = Self.intern(CollectionOfOne(rawValue))[0] }
    public init(stringLiteral value: String) { self.init(value) }

    /// The identity of an id some tree declared; nil for any other (nothing is stored).
    public init?(existing rawValue: String) {
        guard let interned = Self.table.withLock({ $0[Key(rawValue)] }) else { return nil }
        self.init(interned)
    }

    /// The identity of an id no tree declares (its text is empty, which no node's id is): what
    /// an unknown id from outside reads as, found in no tree.
    public static let unknown = NodeID("")

    private init(_ interned: Interned) { self.interned = Unmanaged.passUnretained(interned) }

    /// The identities of `ids`, under one acquisition of the table's lock.
    static func intern(_ ids: some Collection<String>) -> [NodeID] {
        table.withLock { table in
            ids.map { id in
                let key = Key(id)
                if let interned = table[key] { return NodeID(interned) }
                let interned = Interned(id)
                table[key] = interned
                return NodeID(interned)
            }
        }
    }

    /// An id as the table keys it: by its bytes.
    private struct Key: Hashable {
        let text: String
        init(_ text: String) { self.text = text }
        static func == (lhs: Key, rhs: Key) -> Bool { Pattern.sameBytes(lhs.text, rhs.text) }
        func hash(into hasher: inout Hasher) { Pattern.hashBytes(0, text, into: &hasher) }
    }

    private static let table = Locked<[Key: Interned]>([:])

    @inlinable public static func == (lhs: NodeID, rhs: NodeID) -> Bool {
        lhs.interned.toOpaque() == rhs.interned.toOpaque()
    }
    @inlinable public func hash(into hasher: inout Hasher) { hasher.combine(interned.toOpaque()) }
    /// The identity as a number, for ordering lookups (not stable between runs).
    @usableFromInline var address: UInt { UInt(bitPattern: interned.toOpaque()) }
    public var description: String { rawValue }
    public static func < (lhs: NodeID, rhs: NodeID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A route's number in its tree: where its endpoint is in ``RouteTree/endpoints`` and its
/// definition in the tree's ``Matcher``. Valid in that tree only (a reload may number routes
/// anew); a node's lasting identity is its ``NodeID``.
public struct RouteID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let index: Int
    @inlinable public init(_ index: Int) { self.index = index }
    public var description: String { "route \(index)" }
    @inlinable public static func < (lhs: RouteID, rhs: RouteID) -> Bool { lhs.index < rhs.index }
}

/// A compiled, validated route tree: nodes with ids and relations, and the matcher over all
/// its endpoints.
///
/// Default ids (docs/dsl.md, "Ids"): the root container's is `root`; an endpoint's is its pattern
/// (`/` for the root pattern); another container's is `KIND:FIRST-ENDPOINT-ID` (`stack:books`).
/// Titles default to ids.
///
/// ```swift
/// let tree = try RouteTree(root: .stack([.endpoint("books", children: [.endpoint("./:id")])]))
/// tree.nodes.map(\.id)   // ["root", "books", "books/:id"]
/// ```
public final class RouteTree: Sendable {
    /// This tree among every tree the process made (a state remembers the tree its
    /// presentation was made on; an address could be reused by a later tree).
    let serial: UInt64 = RouteTree.serials.withLock { count in
        count += 1
        return count
    }
    private static let serials = Locked<UInt64>(0)

    /// How a node hangs from its parent.
    public enum Relation: String, Sendable, Equatable {
        case root
        /// A switcher's section, a junction's option, or a stack's root.
        case member
        /// An endpoint's child (pushed above it in the nearest enclosing stack).
        case child
        /// Presented modally over its parent endpoint.
        case modal
    }

    /// One node of the compiled tree. A class: presenters get one for every operation, and
    /// passing a reference is one retain where a copy of the struct retained every string
    /// and array in it.
    public final class Node: Sendable {
        /// The node's position in ``RouteTree/nodes``: valid in this tree only.
        public let index: Int
        public let kind: NodeKind
        /// The node's identity: what ``Presented`` and the store key by, kept by a reload.
        public let nodeID: NodeID
        /// The identity's text (`stack:books`, `books/:id`).
        @inlinable public var id: String { nodeID.rawValue }
        public let title: String
        public let parent: Int?
        public let relation: Relation
        /// Sections, options, stack roots or endpoint children, in declaration order.
        public let children: [Int]
        public let modals: [Int]
        /// The endpoint's route (endpoints only).
        public let route: RouteID?
        public let location: SourceLocation?
        /// The endpoint's pattern (`regex:SOURCE` for a regex, the root as `/`), whatever its id.
        public let routeText: String?
        /// The presenter the declaration names (``NodeSpec/presenter``), for the app's presenter
        /// to pick a presentable type by.
        public let presenter: String?

        init(
            index: Int, kind: NodeKind, id: NodeID, title: String, parent: Int?, relation: Relation, children: [Int],
            modals: [Int], route: RouteID?, location: SourceLocation?, routeText: String?, presenter: String?
        ) {
            self.index = index
            self.kind = kind
            self.nodeID = id
            self.title = title
            self.parent = parent
            self.relation = relation
            self.children = children
            self.modals = modals
            self.route = route
            self.location = location
            self.routeText = routeText
            self.presenter = presenter
        }
    }

    /// A guard and the node that declared it (an ancestor of the endpoint, or the endpoint).
    public struct Guard: Sendable {
        public let node: Int
        public let enabled: (@Sendable (RouteContext) throws -> Bool)?
        public let fallback: String?
        public let redirect: (@Sendable (RouteContext) throws -> String?)?
    }

    /// An endpoint's route facts. A class, like ``Node``: reading one is a retain, not a copy
    /// of its pattern, validators and guards.
    public final class Endpoint: Sendable {
        public let node: Int
        public let definition: RouteDefinition
        public let name: String?
        /// Every guard that applies: those of the nodes above it, outermost first, then its own.
        public let guards: [Guard]
        /// Whether a link may open it (``EndpointSpec/linkable``).
        public let linkable: Bool

        /// The route's pattern (nil for a regex route), read in place: `definition.pattern`
        /// copies the whole definition first.
        var pattern: Pattern? {
            if case .pattern(let pattern) = definition.shape { return pattern }
            return nil
        }

        init(node: Int, definition: RouteDefinition, name: String?, guards: [Guard], linkable: Bool = true) {
            self.node = node
            self.definition = definition
            self.name = name
            self.guards = guards
            self.linkable = linkable
        }
    }

    /// The nodes in depth-first declaration order; the root is node 0.
    public let nodes: [Node]
    /// The endpoints by route index.
    public let endpoints: [Endpoint]
    public let matcher: Matcher
    /// The link hosts and schemes the root declares; nil: any host and scheme (the path matches).
    public let links: LinkDomains?
    /// The request the app starts on (the root's `initial`), checked to match a route.
    public let initial: String?
    /// Each tab's initial location (`initial` on a junction's option): what the tab shows before
    /// it is ever visited, by the option's node index.
    public let tabInitials: [Int: Resolution]
    /// Node indexes by id.
    public let nodeIndex: [String: Int]
    /// Routes by name.
    public let routeNames: [String: RouteID]

    /// Builds and validates a tree.
    ///
    /// - Throws: ``RouteDefinitionError`` for empty containers, misplaced children, bad
    ///   patterns or validators, duplicate ids or names.
    public convenience init(root: NodeSpec) throws(RouteDefinitionError) {
        try self.init(root: root, reusing: nil)
    }

    /// Builds a tree that keeps `previous`'s compiled matcher when its routes are the same
    /// (patterns, regexes and validator sources, in order, and no validator a closure): a
    /// reload that changed titles, presenters or guards does not recompile the matcher.
    package convenience init(root: NodeSpec, reusing previous: RouteTree?) throws(RouteDefinitionError) {
        try self.init(declaration: Declaration(root), reusing: previous)
    }

    /// Builds a tree from declarations (a script's nodes, read where its builders made them),
    /// keeping `previous`'s unchanged parts as ``init(root:reusing:)`` does.
    package init(declaration root: Declaration, reusing previous: RouteTree?) throws(RouteDefinitionError) {
        var builder = TreeBuilder()
        builder.previous = previous
        if let previous {  // a reload's tree is usually the same size
            builder.nodes.reserveCapacity(previous.nodes.count)
            builder.endpoints.reserveCapacity(previous.endpoints.count)
        }
        try builder.add(root, parent: nil, relation: .root, enclosingEndpoint: nil, inStack: false, guards: [])
        let (index, ids) = try builder.assignIDs()
        let endpoints = builder.endpoints
        let previousNodes = previous?.nodes ?? []
        // By position: zipping the drafts copied each one. A node the previous tree has at the
        // same place with the same fields is that node (nodes hold no closures): a reload that
        // changed a few declarations allocates and frees only theirs.
        self.nodes = builder.nodes.indices.map { position in
            let routeText = builder.nodes[position].route.map { Lint.show(endpoints[$0].definition.displayText) }
            if position < previousNodes.count,
                builder.nodes[position].isFrozen(as: previousNodes[position], id: ids[position], routeText: routeText)
            {
                return previousNodes[position]
            }
            return builder.nodes[position].frozen(id: ids[position], routeText: routeText)
        }
        self.endpoints = endpoints
        if let previous, Self.sameRoutes(previous.endpoints, endpoints) {
            self.matcher = previous.matcher
        } else if let previous {
            // A few routes changed: their parts of the trie are compiled again, the rest kept.
            self.matcher = Matcher(
                routes: endpoints.map(\.definition), patching: previous.matcher,
                from: previous.endpoints.map(\.definition))
        } else {
            self.matcher = Matcher(routes: builder.endpoints.map(\.definition))
        }
        self.nodeIndex = index
        self.routeNames = builder.routeNames.mapValues(RouteID.init)
        self.links = root.links
        self.initial = root.initial
        var tabInitials: [Int: Resolution] = [:]
        for (option, text, location) in builder.optionInitials {
            let request: Request
            let matched: Match?
            do {
                request = try Request(parsing: text)
                matched = try matcher.match(request)
            } catch {
                throw RouteDefinitionError("initial '\(text)': \(error.message)", location: location)
            }
            guard let matched else {
                throw RouteDefinitionError("initial '\(text)' matches no route", location: location)
            }
            var ancestor: Int? = endpoints[matched.route].node
            while let current = ancestor, current != option { ancestor = nodes[current].parent }
            guard ancestor == option else {
                throw RouteDefinitionError(
                    "initial '\(text)' of tab '\(nodes[option].id)' opens a screen outside that tab", location: location
                )
            }
            tabInitials[option] = Resolution(
                request: request, route: RouteID(matched.route), params: matched.parameters(in: matcher))
        }
        self.tabInitials = tabInitials
        if let initial {
            // Checked by the matcher alone: guards run when it is dispatched.
            let matched: Match?
            do { matched = try matcher.match(try request(from: initial)) } catch {
                throw RouteDefinitionError("initial '\(initial)': \(error.message)", location: root.location)
            }
            if matched == nil {
                throw RouteDefinitionError("initial '\(initial)' matches no route", location: root.location)
            }
        }
    }

    /// Whether two route lists compile to the same matcher: the same pattern texts in the same
    /// order, and the same validators by source, none of them a closure (a closure may differ,
    /// or belong to a Lua state that is closed after the reload).
    static func sameRoutes(_ old: [Endpoint], _ new: [Endpoint]) -> Bool {
        old.count == new.count
            && zip(old, new).allSatisfy { a, b in
                Lint.sameDefinition(a, b) && !b.definition.validators.values.contains(where: \.isPredicate)
            }
    }

    public var root: Node { nodes[0] }

    /// The node with this identity, if the tree has it.
    @inlinable
    public subscript(id: NodeID) -> Node? {
        guard let index = nodeIndex[id.rawValue] else { return nil }
        return nodes[index]
    }

    /// The node indexes from the root down to `node`.
    public func chain(to node: Int) -> [Int] {
        let depth = depth(of: node)
        return [Int](unsafeUninitializedCapacity: depth) { buffer, count in
            fillChain(to: node, into: buffer)
            count = depth
        }
    }

    /// How many nodes the chain from the root down to `node` has (the root alone: 1).
    func depth(of node: Int) -> Int {
        var depth = 0
        var current: Int? = node
        while let index = current {
            depth += 1
            current = nodes[index].parent
        }
        return depth
    }

    /// Writes the chain from the root down to `node` into `buffer`, which holds
    /// `depth(of: node)` elements (a dispatch keeps its chain on the stack).
    func fillChain(to node: Int, into buffer: UnsafeMutableBufferPointer<Int>) {
        var position = buffer.count
        var current: Int? = node
        while let index = current, position > 0 {
            position -= 1
            buffer.initializeElement(at: position, to: index)
            current = nodes[index].parent
        }
    }

    /// The endpoint node of a route.
    public func endpointNode(ofRoute route: RouteID) -> Node { nodes[endpoints[route.index].node] }

    /// A route's endpoint.
    @inlinable
    public subscript(route: RouteID) -> Endpoint { endpoints[route.index] }
}

/// Collects nodes while validating, then assigns default ids.
struct TreeBuilder {
    struct Draft {
        var index: Int
        var kind: NodeKind
        var id: String?
        var title: String?
        var parent: Int?
        var relation: RouteTree.Relation
        var children: [Int] = []
        var modals: [Int] = []
        var route: Int?
        var location: SourceLocation?
        var presenter: String?

        /// The title a node shows: its own, else its id.
        var shownTitle: String { title ?? id ?? "" }

        /// Whether `node` is what ``frozen(id:routeText:)`` would make.
        func isFrozen(as node: RouteTree.Node, id nodeID: NodeID, routeText: String?) -> Bool {
            node.index == index && node.nodeID == nodeID && node.kind == kind && node.parent == parent
                && node.relation == relation && node.route?.index == route && node.children == children
                && node.modals == modals && Pattern.sameBytes(node.title, shownTitle) && node.location == location
                && Pattern.sameBytes(node.routeText, routeText) && Pattern.sameBytes(node.presenter, presenter)
        }

        func frozen(id nodeID: NodeID, routeText: String?) -> RouteTree.Node {
            RouteTree.Node(
                index: index, kind: kind, id: nodeID, title: shownTitle, parent: parent, relation: relation,
                children: children, modals: modals, route: route.map(RouteID.init), location: location,
                routeText: routeText,
                presenter: presenter)
        }
    }

    var nodes: [Draft] = []
    var endpoints: [RouteTree.Endpoint] = []
    var routeNames: [String: Int] = [:]
    /// The tree a reload replaces: its compiled route definitions are reused where a
    /// declaration did not change.
    var previous: RouteTree?
    var patterns: [Int: Pattern] = [:]  // by node index
    /// Tabs' initial locations (`initial` on a junction's option), by node index.
    var optionInitials: [(node: Int, request: String, location: SourceLocation?)] = []

    private func failure(_ node: Declaration, _ message: String) -> RouteDefinitionError {
        let prefix = node.location.map { "\($0): " } ?? ""
        return RouteDefinitionError("\(prefix)\(node.kind.rawValue): \(message)", location: node.location)
    }

    /// Adds `node` and everything below it; returns its index.
    @discardableResult
    mutating func add(
        _ node: Declaration, parent: Int?, relation: RouteTree.Relation, enclosingEndpoint: Int?, inStack: Bool,
        guards inherited: [RouteTree.Guard]
    ) throws(RouteDefinitionError) -> Int {
        let index = nodes.count
        if relation != .root, node.links != nil {
            throw failure(node, "'links' (the app's link hosts and schemes) is declared on the root node")
        }
        if let initial = node.initial, relation != .root {
            // A tab's initial location: only a junction's option has one.
            guard let parent, nodes[parent].kind == .junction else {
                throw failure(
                    node, "'initial' is declared on the root (where the app starts) or on a tab (a junction's option)")
            }
            optionInitials.append((index, initial, node.location))
        }
        let own = node.guards
        if let own, own.enabled == nil, own.fallback != nil {
            throw failure(node, "'fallback' needs 'enabled'")
        }
        var guards = inherited
        if let own, own.enabled != nil || own.redirect != nil {
            guards.append(
                RouteTree.Guard(node: index, enabled: own.enabled, fallback: own.fallback, redirect: own.redirect))
        }
        nodes.append(
            Draft(
                index: index, kind: node.kind, id: node.id, title: node.title, parent: parent, relation: relation,
                location: node.location, presenter: node.presenterName))
        if let id = node.id, id.isEmpty { throw failure(node, "'id' must not be empty") }
        switch node.kind {
        case .endpoint:
            let definition: RouteDefinition
            var unchanged: RouteTree.Endpoint?
            // A pattern is kept only as the base of relative patterns below the endpoint.
            let isBase = !node.children.isEmpty || !node.modals.isEmpty
            if let source = node.pattern, node.regex == nil, let old = previousEndpoint(source, node, at: index) {
                if isBase { patterns[index] = old.pattern }
                definition = old.definition
                unchanged = old
            } else {
                let made: (definition: RouteDefinition, pattern: Pattern?)
                do { made = try Self.definition(of: node, base: enclosingEndpoint.flatMap { patterns[$0] }) } catch {
                    throw failure(node, error.message)
                }
                if isBase, let pattern = made.pattern { patterns[index] = pattern }
                definition = made.definition
            }
            let route = endpoints.count
            if let name = node.name {
                if routeNames[name] != nil { throw failure(node, "route name '\(name)' is used twice") }
                routeNames[name] = route
            }
            // The previous tree's endpoint object itself when nothing in it changed (no guards:
            // a guard is a closure of its own script's state).
            if let old = unchanged, old.node == index, old.guards.isEmpty, guards.isEmpty,
                Pattern.sameBytes(old.name, node.name),
                old.linkable == node.linkable
            {
                endpoints.append(old)
            } else {
                endpoints.append(
                    RouteTree.Endpoint(
                        node: index, definition: definition, name: node.name, guards: guards, linkable: node.linkable))
            }
            nodes[index].route = route
            if !node.children.isEmpty && !inStack {
                throw failure(node, "'\(definition.displayText)' has children but no enclosing stack to push them on")
            }
            for child in node.children {
                guard child.kind == .endpoint else {
                    // A stack's items are screens: a tab bar (or a stack, a switcher) is not
                    // pushed as one item. docs/design-choices.md says why and what to write instead.
                    let hint =
                        child.kind == .junction
                        ? "; a tab bar cannot be one item of a stack: present it in 'modals', or give the screen "
                            + "routes for its tabs ('./reviews') that its presenter shows as segments"
                        : ""
                    throw failure(
                        child,
                        "an endpoint's children must be endpoints: they are pushed onto the enclosing stack one "
                            + "screen at a time (put a \(child.kind.rawValue) in 'modals' or in a stack)\(hint)"
                    )
                }
                let childIndex = try add(
                    child, parent: index, relation: .child, enclosingEndpoint: index, inStack: inStack, guards: guards)
                nodes[index].children.append(childIndex)
            }
            for modal in node.modals {
                let modalIndex = try add(
                    modal, parent: index, relation: .modal, enclosingEndpoint: index, inStack: false, guards: guards)
                nodes[index].modals.append(modalIndex)
            }
        case .stack, .junction, .switcher:
            if node.declaresRoute || node.pattern != nil || node.regex != nil || !node.modals.isEmpty {
                throw failure(node, "only endpoints have a route or modals")
            }
            guard !node.children.isEmpty else {
                throw failure(node, "a \(node.kind.rawValue) needs at least one node")
            }
            for child in node.children {
                let childIndex = try add(
                    child, parent: index, relation: .member, enclosingEndpoint: enclosingEndpoint,
                    inStack: node.kind == .stack ? true : (child.kind == .endpoint ? false : inStack), guards: guards)
                nodes[index].children.append(childIndex)
            }
        }
        return index
    }

    /// The route definition of an endpoint's declaration, with its pattern (nil for a regex);
    /// `base`: the pattern of the nearest endpoint above, which a relative pattern extends.
    /// The error's message is without the node (the caller's ``failure(_:_:)`` adds it).
    static func definition(
        of node: Declaration, base: Pattern?
    ) throws(RouteDefinitionError) -> (definition: RouteDefinition, pattern: Pattern?) {
        switch (node.pattern, node.regex) {
        case (let source?, nil):
            let pattern = try Pattern(source, relativeTo: base)
            if source.hasPrefix("./"), base == nil {
                throw RouteDefinitionError(
                    "pattern '\(source)': a relative pattern needs an enclosing endpoint with a pattern")
            }
            return (try RouteDefinition(pattern: pattern, validators: node.validators), pattern)
        case (nil, let source?):
            let definition = RouteDefinition(regex: try PathRegex(source))
            if !node.validators.isEmpty { throw RouteDefinitionError("'where' does not apply to a regex endpoint") }
            return (definition, nil)
        case (nil, nil): throw RouteDefinitionError("an endpoint needs a pattern or a regex")
        case (_?, _?): throw RouteDefinitionError("an endpoint has either a pattern or a regex, not both")
        }
    }

    /// A node's default id below the root (``RouteTree``): an endpoint's is its pattern (`/`
    /// for the root pattern); a container's `KIND:FIRST-ENDPOINT-ID`, or `KIND:INDEX` with no
    /// endpoint below. (The root container's was the same until it became ``RouteTree/rootID``;
    /// ``RouteTree/legacyRootID`` keeps older restoration strings restoring.) `displayText`: an
    /// endpoint's route text (nil for a container); `endpointID`: the id of an endpoint below.
    static func defaultID(
        of index: Int, kind: (Int) -> NodeKind, children: (Int) -> [Int], displayText: (Int) -> String?,
        endpointID: (Int) -> String
    ) -> String {
        if let text = displayText(index) { return text.isEmpty ? "/" : text }
        let first = firstEndpoint(below: index, kind: kind, children: children).map(endpointID)
        return kind(index).rawValue + ":" + (first ?? String(index))
    }

    /// The first endpoint below `index`, depth first.
    private static func firstEndpoint(below index: Int, kind: (Int) -> NodeKind, children: (Int) -> [Int]) -> Int? {
        for child in children(index) {
            if kind(child) == .endpoint { return child }
            if let found = firstEndpoint(below: child, kind: kind, children: children) { return found }
        }
        return nil
    }

    /// The previous tree's endpoint at node `index`, when its definition is this declaration's:
    /// the same pattern text (already in its normal form, so parsing it again gives the same
    /// pattern; a relative pattern never is) and no validators on either side (a closure
    /// validator belongs to its own Lua state).
    private func previousEndpoint(_ source: String, _ node: Declaration, at index: Int) -> RouteTree.Endpoint? {
        guard let previous, node.validators.isEmpty, index < previous.nodes.count,
            let route = previous.nodes[index].route
        else { return nil }
        let old = previous.endpoints[route.index]
        // By bytes, as requests are matched: `café` precomposed and decomposed are two patterns.
        guard old.definition.validators.isEmpty, Pattern.sameBytes(old.definition.displayText, source),
            old.pattern != nil
        else {
            return nil
        }
        return old
    }

    /// Gives every node its id (declared or default) and checks they are unique; returns the
    /// index by id and the identities. With ``previous`` (the tree a reload replaces) of as many
    /// nodes, where at most 64 ids differ place by place, its index and identities are reused
    /// and only those ids are checked and interned; any clash goes the whole way, whose error
    /// names the first duplicate in declaration order.
    mutating func assignIDs() throws(RouteDefinitionError) -> (
        index: [String: Int], ids: [NodeID]
    ) {
        // The root container is `root` (unless another node declares that id); it is
        // assigned last, after every declared and default id below it is known.
        let rootNeedsID = nodes.first.map { $0.id == nil } ?? false
        for index in nodes.indices.reversed() where index > 0 && nodes[index].id == nil {
            nodes[index].id = defaultID(index)
        }
        if rootNeedsID {
            let taken = nodes.contains { $0.id == RouteTree.rootID }
            nodes[0].id = nodes[0].kind == .endpoint || taken ? defaultID(0) : RouteTree.rootID
        }
        if let previous, let reused = idsChanging(previous) { return reused }
        let index = try assignIDsWhole()
        return (index, NodeID.intern(nodes.lazy.map { $0.id ?? "" }))
    }

    /// ``assignIDs()`` from the tree before: nil when it does not apply.
    private func idsChanging(_ previous: RouteTree) -> (index: [String: Int], ids: [NodeID])? {
        guard previous.nodes.count == nodes.count else { return nil }
        var changed: [Int] = []
        for position in nodes.indices where !Pattern.sameBytes(nodes[position].id, previous.nodes[position].id) {
            changed.append(position)
            if changed.count > 64 { return nil }
        }
        var index = previous.nodeIndex
        var ids = previous.nodes.map(\.nodeID)
        if changed.isEmpty { return (index, ids) }
        for position in changed { index[previous.nodes[position].id] = nil }
        let interned = NodeID.intern(changed.lazy.map { nodes[$0].id ?? "" })
        for (place, position) in changed.enumerated() {
            let id = nodes[position].id ?? ""
            guard index[id] == nil else { return nil }
            index[id] = position
            ids[position] = interned[place]
        }
        return (index, ids)
    }

    private func assignIDsWhole() throws(RouteDefinitionError) -> [String: Int] {
        var seen: [String: Int] = [:]
        seen.reserveCapacity(nodes.count)
        for node in nodes {
            let id = node.id ?? ""
            // One hash per id: the insertion says whether the id was there (the table is
            // dropped on an error, so overwriting the first place does not matter).
            if let first = seen.updateValue(node.index, forKey: id) {
                let where1 = nodes[first].location.map { " (first at \($0))" } ?? ""
                let prefix = node.location.map { "\($0): " } ?? ""
                throw RouteDefinitionError(
                    "\(prefix)\(node.kind.rawValue): duplicate id '\(id)'\(where1)", location: node.location)
            }
        }
        return seen
    }

    private func defaultID(_ index: Int) -> String {
        Self.defaultID(
            of: index, kind: { nodes[$0].kind }, children: { nodes[$0].children },
            displayText: { nodes[$0].route.map { endpoints[$0].definition.displayText } },
            endpointID: { nodes[$0].id ?? defaultID($0) })
    }
}

extension RouteTree {
    /// The default id of a root container (unless another node declares it).
    public static let rootID = "root"

    /// The id the root container had by default before it became ``RouteTree/rootID``
    /// (`switcher:welcome`, after its first endpoint); nil when the root is not named `root`.
    /// Restoration reads it as the root, so strings saved by older versions still restore.
    public var legacyRootID: String? {
        guard root.id == RouteTree.rootID, root.kind != .endpoint else { return nil }
        return TreeBuilder.defaultID(
            of: 0, kind: { nodes[$0].kind }, children: { nodes[$0].children }, displayText: { _ in nil },
            endpointID: { nodes[$0].id })
    }
}

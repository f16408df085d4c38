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

        /// This node under another identity (a pushed instance's).
        func renamed(_ id: NodeID) -> Node {
            Node(
                index: index, kind: kind, id: id, title: title, parent: parent, relation: relation, children: children,
                modals: modals, route: route, location: location, routeText: routeText, presenter: presenter)
        }

        /// Whether this is a pushed instance's copy (``RouteTree/presented(_:)``).
        public var isInstance: Bool { nodeID.instance != nil }
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
    /// What changed from the tree this one was built reusing (a reload's), worked out once as
    /// the tree was built: the matcher patch, the reload's summary and lint and a session's
    /// route table read it. Nil for a tree built from nothing.
    package let change: TreeChange?
    /// The request the app starts on (the root's `initial`), checked to match a route.
    public let initial: String?
    /// Each tab's initial location (`initial` on a junction's option): what the tab shows before
    /// it is ever visited, by the option's node index.
    public let tabInitials: [Int: Resolution]
    /// Leave guards (`leave = function(ctx, to)`), by node index: asked before a change
    /// removes the node (``Router``).
    public let leaveGuards: [Int: LeaveGuard]
    /// What a container with modals shows under one opened by a link before anything was
    /// shown (a cold link): the root's `initial`, a tab's `initial`, or the first screen under
    /// it that needs no parameter — by the container's node index.
    public let containerEntries: [Int: Resolution]
    /// Stacks' `pushes` lists (the endpoints each takes pushes of), by the stack's node index;
    /// a stack without one takes its own screens (``pushes(_:onto:)``).
    public let pushLists: [Int: [Int]]
    /// Whether any node has a leave guard (read on every dispatch: a flag, not the dictionary).
    @usableFromInline let hasLeaveGuards: Bool
    /// Whether any route declares a query schema (read on every resolution).
    @usableFromInline let hasQuerySchemas: Bool
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
        var change: TreeChange?
        if let previous {
            change = TreeChange(from: previous, nodes: nodes, endpoints: endpoints, nodeIndex: index, links: root.links)
        }
        self.change = change
        if let previous, let change, change.sameRoutes,
            !endpoints.contains(where: { $0.definition.validators.values.contains(where: \.isPredicate) }),
            !endpoints.contains(where: { $0.definition.querySchema != nil })
        {
            // The same routes, with no closure among their checks: the same matcher.
            self.matcher = previous.matcher
        } else if let previous, let change {
            // A few routes changed: their parts of the trie are compiled again, the rest kept.
            self.matcher = Matcher(
                routes: endpoints.map(\.definition), patching: previous.matcher,
                from: previous.endpoints.map(\.definition), kept: change.routes)
        } else {
            self.matcher = Matcher(routes: builder.endpoints.map(\.definition))
        }
        self.nodeIndex = index
        self.routeNames = builder.routeNames.mapValues(RouteID.init)
        self.leaveGuards = builder.leaveGuards
        self.hasLeaveGuards = !builder.leaveGuards.isEmpty
        self.hasQuerySchemas = !matcher.querySchemas.isEmpty || !matcher.regexRoutes.allSatisfy { $0.query == nil }
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
            var filled = request
            if let schema = endpoints[matched.route].definition.querySchema,
                case .fits(let query)? = try? schema.verdict(request)
            {
                filled.query = query
            }
            tabInitials[option] = Resolution(
                request: filled, route: RouteID(matched.route), params: matched.parameters(in: matcher))
        }
        self.tabInitials = tabInitials
        var pushLists: [Int: [Int]] = [:]
        for (stack, entries, location) in builder.pushLists {
            var list: [Int] = []
            for entry in entries {
                let named = builder.routeNames[entry].map { endpoints[$0].node }
                guard let node = index[entry] ?? named, nodes[node].kind == .endpoint else {
                    throw RouteDefinitionError(
                        "pushes entry '\(entry)' of stack '\(nodes[stack].id)' names no screen (an endpoint's id or "
                            + "route name)", location: location)
                }
                if !list.contains(node) { list.append(node) }
            }
            pushLists[stack] = list
        }
        self.pushLists = pushLists
        var containerEntries: [Int: Resolution] = [:]
        for (container, modal, location) in builder.containerModals where containerEntries[container] == nil {
            // The root's or the tab's `initial`, else the first screen under the container whose
            // pattern needs no parameter.
            var candidates: [Request] = []
            if let text = container == 0 ? root.initial : nil, let request = try? Request(parsing: text) {
                candidates.append(request)
            }
            if let tab = tabInitials[container] { candidates.append(tab.request) }
            var pending = nodes[container].children
            while !pending.isEmpty {
                let node = pending.removeFirst()
                if let request = Self.plainRequest(of: node, nodes: nodes, endpoints: endpoints) {
                    candidates.append(request)
                    break
                }
                pending.insert(contentsOf: nodes[node].children, at: 0)
            }
            var entry: Resolution?
            for request in candidates {
                guard let matched = try? matcher.match(request) else { continue }
                var ancestor: Int? = endpoints[matched.route].node
                while let current = ancestor, current != container { ancestor = nodes[current].parent }
                guard ancestor == container else { continue }
                entry = Resolution(
                    request: request, route: RouteID(matched.route), params: matched.parameters(in: matcher))
                break
            }
            guard let entry else {
                throw RouteDefinitionError(
                    "modal '\(nodes[modal].id)' of '\(nodes[container].id)' is shown over what that container shows, "
                        + "and a link to it over the container's first screen; every screen under it needs parameters "
                        + "(declare the modal on a screen instead)", location: location)
            }
            containerEntries[container] = entry
        }
        self.containerEntries = containerEntries
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

    public var root: Node { nodes[0] }

    /// The request of an endpoint whose pattern needs no parameter (its constants; an optional
    /// parameter or a bare catch-all left out); nil for another node.
    static func plainRequest(of node: Int, nodes: [Node], endpoints: [Endpoint]) -> Request? {
        guard let route = nodes[node].route, let pattern = endpoints[route.index].pattern else { return nil }
        var segments: [String] = []
        for segment in pattern.segments {
            switch segment {
            case .constant(let text): segments.append(text)
            case .optional, .catchAll(nil): continue
            default: return nil
            }
        }
        return Request(segments: segments)
    }

    /// The node with this identity, if the tree has it; for a pushed instance (`books/:id#2`),
    /// the node it shows.
    @inlinable
    public subscript(id: NodeID) -> Node? {
        guard let index = index(of: id.rawValue) else { return nil }
        return nodes[index]
    }

    /// The index of the node with this id, or of the node a pushed instance's name
    /// (`books/:id#2`) shows.
    @inlinable
    public func index(of id: String) -> Int? {
        if let index = nodeIndex[id] { return index }
        return instanceIndex(id)
    }

    @usableFromInline
    func instanceIndex(_ id: String) -> Int? {
        guard let (base, _) = NodeID.instanceParts(id), let index = nodeIndex[String(base)],
            nodes[index].kind == .endpoint
        else { return nil }
        return index
    }

    /// The node as a presenter gets it for the presentable named `id`: the node itself, or for
    /// a pushed instance (`books/:id#2`) a copy named as the instance (its `id` and `nodeID`),
    /// so a presenter keys the instance's presentable apart from the first one's.
    public func presented(_ id: String) -> Node? {
        if let index = nodeIndex[id] { return nodes[index] }
        guard let index = instanceIndex(id), let instance = NodeID(existing: id) else { return nil }
        return nodes[index].renamed(instance)
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

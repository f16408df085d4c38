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
    /// Leave guards, by node index.
    var leaveGuards: [Int: LeaveGuard] = [:]
    /// Containers' modals (container, modal), with the modal's place.
    var containerModals: [(container: Int, modal: Int, location: SourceLocation?)] = []
    /// Stacks' `pushes` lists, by node index.
    var pushLists: [(node: Int, entries: [String], location: SourceLocation?)] = []
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
        if let pushes = node.pushes {
            guard node.kind == .stack else {
                throw failure(node, "'pushes' (what else may be pushed onto it) is declared on a stack")
            }
            pushLists.append((index, pushes, node.location))
        }
        let own = node.guards
        if let own, own.enabled == nil, own.fallback != nil {
            throw failure(node, "'fallback' needs 'enabled'")
        }
        if let leave = own?.leave { leaveGuards[index] = leave }
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
            if node.declaresRoute || node.pattern != nil || node.regex != nil {
                throw failure(node, "only endpoints have a route")
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
            // A container's modals: sheets over whatever screen it shows (docs/dsl.md, "Sheets
            // over any screen"), under the container's guards.
            for modal in node.modals {
                let modalIndex = try add(
                    modal, parent: index, relation: .modal, enclosingEndpoint: enclosingEndpoint, inStack: false,
                    guards: guards)
                nodes[index].modals.append(modalIndex)
                containerModals.append((index, modalIndex, modal.location))
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
            return (
                try RouteDefinition(pattern: pattern, validators: node.validators, query: node.querySchema), pattern
            )
        case (nil, let source?):
            let definition = RouteDefinition(regex: try PathRegex(source), query: node.querySchema)
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
        guard let previous, node.validators.isEmpty, node.querySchema == nil, index < previous.nodes.count,
            let route = previous.nodes[index].route
        else { return nil }
        let old = previous.endpoints[route.index]
        // By bytes, as requests are matched: `café` precomposed and decomposed are two patterns.
        guard old.definition.validators.isEmpty, old.definition.querySchema == nil,
            Pattern.sameBytes(old.definition.displayText, source),
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
            // An id that reads as an instance name goes the whole way, to its error.
            if NodeID.readsAsInstance(nodes[position].id ?? "") { return nil }
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
            if NodeID.readsAsInstance(id) {
                let prefix = node.location.map { "\($0): " } ?? ""
                throw RouteDefinitionError(
                    "\(prefix)\(node.kind.rawValue): id '\(id)' ends in #NUMBER, which names a pushed screen "
                        + "(docs/dsl.md, \"Push\"); choose another id", location: node.location)
            }
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

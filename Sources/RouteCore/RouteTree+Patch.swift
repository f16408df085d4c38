extension RouteTree {
    /// A declaration whose strings changed since a tree was built from the same declarations:
    /// its node index there and the declarations above it, the root first.
    package struct ChangedDeclaration {
        package let index: Int
        package let declaration: Declaration
        package let ancestors: [Declaration]

        package init(index: Int, declaration: Declaration, ancestors: [Declaration]) {
            self.index = index
            self.declaration = declaration
            self.ancestors = ancestors
        }
    }

    /// The tree ``init(declaration:reusing:)`` builds from `previous`'s declarations when only
    /// the strings of `changes` (a title, id, name, pattern or regex) differ, made from
    /// `previous`'s nodes, endpoints, index and matcher: only the changed nodes, the containers
    /// whose default ids follow them, and the changed routes' part of the matcher are made
    /// again.
    ///
    /// Nil where a change reaches further or would fail — an endpoint with children or modals
    /// (relative patterns build on it), an `initial`, tabs' initial locations when routes
    /// changed, another shape, a duplicate id or name, a pattern or regex the tree refuses, the
    /// root's initial no longer matching: the whole build then runs, and reports any error.
    package static func patching(_ previous: RouteTree, changes: [ChangedDeclaration]) -> RouteTree? {
        var nodes = previous.nodes
        var endpoints = previous.endpoints
        var routeNames = previous.routeNames
        var routesChanged = false
        /// New ids by node index, and the declarations whose nodes are made again.
        var ids: [Int: String] = [:]
        var remade: [Int: Declaration] = [:]
        func id(_ index: Int) -> String { ids[index] ?? nodes[index].id }
        func defaultID(_ index: Int) -> String {
            TreeBuilder.defaultID(
                of: index, kind: { nodes[$0].kind }, children: { nodes[$0].children },
                displayText: { nodes[$0].route.map { endpoints[$0.index].definition.displayText } }, endpointID: id)
        }
        for change in changes {
            let index = change.index
            let declaration = change.declaration
            guard index < nodes.count, change.ancestors.count == previous.depth(of: index) - 1 else { return nil }
            let old = nodes[index]
            guard old.kind == declaration.kind, old.presenter == declaration.presenterName,
                declaration.initial == nil || (index == 0 && declaration.initial == previous.initial),
                declaration.id?.isEmpty != true
            else { return nil }
            if declaration.kind == .endpoint {
                guard let route = old.route, declaration.children.isEmpty, declaration.modals.isEmpty else {
                    return nil
                }
                let endpoint = endpoints[route.index]
                guard let definition = definition(of: declaration, at: index, was: endpoint, in: previous) else {
                    return nil
                }
                let sameRoute = definition.same
                if declaration.name != endpoint.name {
                    if let name = endpoint.name { routeNames[name] = nil }
                    if let name = declaration.name {
                        guard routeNames[name] == nil else { return nil }
                        routeNames[name] = route
                    }
                }
                guard declaration.linkable == endpoint.linkable else { return nil }
                if !sameRoute || declaration.name != endpoint.name {
                    endpoints[route.index] = Endpoint(
                        node: index, definition: definition.definition, name: declaration.name,
                        guards: endpoint.guards, linkable: declaration.linkable)
                }
                if !sameRoute { routesChanged = true }
            }
            remade[index] = declaration
            ids[index] = declaration.id ?? defaultID(index)
            // Containers above with default ids: `KIND:FIRST-ENDPOINT-ID`, nearest first.
            var above = old.parent
            for ancestor in change.ancestors.reversed() {
                guard let node = above else { return nil }
                if ancestor.id == nil {
                    ids[node] = defaultID(node)
                    remade[node] = ancestor
                }
                above = nodes[node].parent
            }
        }
        // Ids are unique: every old id of a changed node leaves the index before a new one
        // enters it.
        var nodeIndex = previous.nodeIndex
        let changedIDs = ids.filter { $0.value != nodes[$0.key].id }
        for position in changedIDs.keys { nodeIndex[nodes[position].id] = nil }
        for (position, newID) in changedIDs {
            guard nodeIndex[newID] == nil else { return nil }
            nodeIndex[newID] = position
        }
        for (position, declaration) in remade {
            let old = nodes[position]
            let newID = id(position)
            let routeText = old.route.map { Lint.show(endpoints[$0.index].definition.displayText) }
            let title = declaration.title ?? newID
            guard newID != old.id || title != old.title || routeText != old.routeText else { continue }
            nodes[position] = Node(
                index: position, kind: old.kind, id: newID == old.id ? old.nodeID : NodeID(newID), title: title,
                parent: old.parent, relation: old.relation, children: old.children, modals: old.modals,
                route: old.route, location: old.location, routeText: routeText, presenter: old.presenter)
        }
        if routesChanged && !previous.tabInitials.isEmpty { return nil }
        let matcher =
            routesChanged
            ? Matcher(
                routes: endpoints.map(\.definition), patching: previous.matcher,
                from: previous.endpoints.map(\.definition)) : previous.matcher
        let tree = RouteTree(
            nodes: nodes, endpoints: endpoints, matcher: matcher, links: previous.links, initial: previous.initial,
            tabInitials: previous.tabInitials, nodeIndex: nodeIndex, routeNames: routeNames)
        if routesChanged, let initial = tree.initial {
            guard let request = try? tree.request(from: initial), (try? matcher.match(request)) != nil else {
                return nil
            }
        }
        return tree
    }

    /// The route definition of an endpoint's declaration, and whether it is the one `endpoint`
    /// has (then it is that one, as ``TreeBuilder`` keeps it). Nil when the tree would refuse it.
    private static func definition(
        of declaration: Declaration, at index: Int, was endpoint: Endpoint, in previous: RouteTree
    ) -> (definition: RouteDefinition, same: Bool)? {
        let old = endpoint.definition
        // A relative pattern builds on the nearest endpoint above.
        var above = previous.nodes[index].parent
        while let node = above, previous.nodes[node].kind != .endpoint { above = previous.nodes[node].parent }
        let base = above.flatMap { previous.nodes[$0].route }.flatMap { previous.endpoints[$0.index].pattern }
        if let source = declaration.pattern, declaration.regex == nil, endpoint.pattern != nil,
            Pattern.sameBytes(old.displayText, source)
        {
            return (old, true)
        }
        guard let made = try? TreeBuilder.definition(of: declaration, base: base) else { return nil }
        // The same regex: the definition it had.
        if made.pattern == nil, endpoint.pattern == nil, Pattern.sameBytes(old.displayText, made.definition.displayText)
        {
            return (old, true)
        }
        return (made.definition, false)
    }
}

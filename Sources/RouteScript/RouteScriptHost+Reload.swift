import LuaHost
import RouteCore

/// What a reload did.
public struct ReloadSummary: Sendable, Equatable {
    public var duration: Duration
    /// Node ids that are new, gone, or whose kind, route, name, validators, guards, title or
    /// place changed.
    public var added: [String]
    public var removed: [String]
    public var changed: [String]
    /// Set when the current request no longer matched and a shorter path was shown instead.
    public var warning: String?
    /// The plan that took the presentables to the new tree.
    public var plan: Plan
    /// The lint's warnings about the new tree (`luna check`'s lines, with file:line).
    public var lint: [String] = []

    /// `reloaded in 3.1 ms: 1 added, 0 removed, 2 changed`.
    public var line: String {
        let milliseconds = Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000
        let rounded = (milliseconds * 10).rounded() / 10
        func part(_ ids: [String], _ word: String) -> String {
            guard !ids.isEmpty else { return "0 \(word)" }
            let shown = ids.prefix(4).joined(separator: ", ") + (ids.count > 4 ? ", …" : "")
            return "\(ids.count) \(word) (\(shown))"
        }
        return
            "reloaded in \(rounded) ms: \(part(added, "added")), \(part(removed, "removed")), \(part(changed, "changed"))"
    }
}

extension RouteScriptHost {
    /// Reloads the script into a fresh Lua state. On success the new tree replaces the old
    /// one and the current request is dispatched again (or its longest matching prefix, with
    /// a warning): presentables whose node id still exists are kept and get `update`,
    /// vanished ones are unwound, new ones are created lazily. On failure nothing changes.
    @discardableResult
    public func reload() throws -> ReloadSummary {
        try exclusive { try reloading() }
    }

    private func reloading() throws -> ReloadSummary {
        guard !busy else { throw RouteScriptError(.reentrant, "cannot reload from inside a presenter or guard") }
        let clock = ContinuousClock()
        let start = clock.now
        if script == nil, let path {
            // Nothing ran yet (the first load failed): this is the first load.
            try load(contentsOf: path)
            let endpoints = routeTree?.endpoints.map { routeTree?.nodes[$0.node].id ?? "" } ?? []
            return ReloadSummary(
                duration: clock.now - start, added: endpoints, removed: [], changed: [], warning: nil,
                plan: Plan([]))
        }
        let (oldScript, oldRouter) = try loaded()
        let fresh: LoadedScript
        if let path {
            fresh = try LoadedScript(
                path: path, options: options, hostPresenters: hostPresenterNames, reusing: oldScript.tree)
        } else if let source {
            fresh = try LoadedScript(
                source: source.text, name: source.name, folder: source.folder, path: "", options: options,
                hostPresenters: hostPresenterNames, reusing: oldScript.tree)
        } else {
            throw RouteScriptError(.notLoaded, "no script is loaded")
        }
        // A save gets what `luna check` would say: errors fail the reload, warnings are shown.
        // A tree whose lint inputs did not change (a title, a presenter) has the same findings.
        let findings: [Lint.Finding]
        if let cached = lintCache, Lint.sameInputs(cached.tree, fresh.tree) {
            findings = cached.findings
        } else {
            findings = Lint(tree: fresh.tree).findings()
        }
        lintCache = (fresh.tree, findings)
        let errors = findings.filter { $0.severity == .error }
        if !errors.isEmpty {
            fresh.vm.close()
            throw RouteScriptError(.load, errors.map(\.line).joined(separator: "\n"), location: errors.first?.location)
        }
        busy = true
        defer { busy = false }
        let newTree = fresh.tree
        let oldTree = oldScript.tree
        let translated = oldRouter.state.presented.flatMap { Self.translate($0, from: oldTree, to: newTree) }
        var keptIDs: Set<String> = []
        translated?.forEach { keptIDs.insert(newTree.nodes[$0.node].id) }
        let kept = oldRouter.store.presentables.filter { keptIDs.contains($0.key) }

        // What to show: the current request, or its longest matching prefix.
        var warning: String?
        var resolution: Resolution?
        fresh.callbacks.beginDispatch()
        if let request = intent ?? oldRouter.state.request {
            do {
                (resolution, warning) = try Self.resolveAfterReload(
                    request, oldRoute: oldRouter.state.route, oldTree: oldTree, newTree: newTree)
            } catch {
                // A guard, redirect or validator of the new script failed (a Lua error or a
                // limit): the reload failed, and says why; the old tree and state stay.
                fresh.vm.close()
                throw RouteScriptError(
                    .load, "\(error.message)\n(while re-resolving '\(request.original)' on the new script)",
                    location: error.location)
            }
        }
        let startState = RouterState(
            request: oldRouter.state.request, route: nil, params: oldRouter.state.params, presented: translated)
        var transition: Transition
        if let resolution {
            transition = Reducer(tree: newTree).reduce(startState, to: resolution)
        } else {
            transition = Transition(
                from: startState, to: .initial, plan: Reducer.plan(from: translated, to: nil, tree: newTree))
        }
        Self.addUpdates(to: &transition, kept: keptIDs, tree: newTree)
        Self.addRepairs(to: &transition, presentables: kept, tree: newTree)

        let newPresenter = makePresenter(fresh)
        let newRouter = Router(tree: newTree, presenter: newPresenter)
        newRouter.replace(tree: newTree, state: startState, presentables: kept)
        let titles = kept.map { ($0.value, $0.value.title) }
        let vanished = oldRouter.store.presentables.compactMap { id, presentable in
            kept[id] == nil ? oldTree.nodeIndex[id].map { ($0, presentable) } : nil
        }
        do {
            try newRouter.apply(transition) {
                // The app's presentables of vanished nodes step aside: the new tree may create
                // ones with the same ids before the old ones are unwound.
                registry.mirror?.detach(vanished.map(\.1))
                // Kept presentables get what the new script (and the device) would give a
                // fresh one: declared attributes and what `create` returns (`split`, `badge`).
                for (id, presentable) in kept.sorted(by: { $0.key < $1.key }) {
                    guard let index = newTree.nodeIndex[id] else { continue }
                    try newPresenter.redecorate(presentable, node: newTree.nodes[index])
                }
            }
        } catch {
            // Everything was put back; the old presenter takes its presentables back.
            oldRouter.presenter.adopt(Array(kept.values))
            fresh.vm.close()
            throw RouteScriptError(.load, "\(error)", location: (error as? RouteError)?.location)
        }
        // Default titles follow the script; titles set by hooks stay.
        for (presentable, title) in titles {
            if let old = oldTree.nodeIndex[presentable.id].map({ oldTree.nodes[$0] }), old.title == title,
                let new = newTree.nodeIndex[presentable.id].map({ newTree.nodes[$0] }), presentable.title == title,
                new.title != title
            {
                presentable.title = new.title
                try? registry.mirror?.decorate(presentable, "title", .string(new.title))
            }
        }
        // Vanished presentables are unwound by the old script's presenter.
        // They are part of what the reload did, so the summary's plan lists them (deepest first).
        let oldPresenter = makePresenter(oldScript)
        var plan = transition.plan
        for (index, presentable) in vanished.sorted(by: { $0.0 > $1.0 }) {
            try? oldPresenter.unwind(presentable, node: oldTree.nodes[index])
            plan.operations.append(.unwind(id: oldTree.nodes[index].id))
        }
        script = fresh
        router = newRouter
        // A sibling's old script is shared with other hosts: it stays open for them.
        if !sharesScript { oldScript.vm.close() }
        sharesScript = false
        var (added, removed, changed) = Self.compare(oldTree, newTree)
        // A presenter that changed (another host presenter, hooks added or removed) counts too.
        for node in newTree.nodes where !changed.contains(node.id) {
            guard let oldIndex = oldTree.nodeIndex[node.id] else { continue }
            if Self.presenterShape(oldScript.presenters[oldIndex]) != Self.presenterShape(fresh.presenters[node.index])
            {
                changed.append(node.id)
            }
        }
        changed.sort()
        return ReloadSummary(
            duration: clock.now - start, added: added, removed: removed, changed: changed, warning: warning,
            plan: plan, lint: findings.map(\.line))
    }

    /// The old presentation in the new tree's node numbers; a subtree whose node is gone or
    /// no longer fits where it was is dropped.
    static func translate(_ presented: Presented, from old: RouteTree, to new: RouteTree) -> Presented? {
        let oldNode = old.nodes[presented.node]
        guard let index = new.nodeIndex[oldNode.id], new.nodes[index].kind == oldNode.kind else { return nil }
        let node = new.nodes[index]
        switch presented {
        case .switcher(_, _, let content):
            guard let content = translate(content, from: old, to: new),
                let section = node.children.firstIndex(of: content.node)
            else { return nil }
            return .switcher(node: index, section: section, content: content)
        case .junction(_, let selected, let options):
            // Options are matched by node: a kept option keeps its stack, a new one starts as a
            // junction shows an option never visited, a vanished one goes.
            var kept: [Int: Presented] = [:]
            for option in options {
                if let translated = translate(option, from: old, to: new) { kept[translated.node] = translated }
            }
            guard selected < options.count, let selectedNode = new.nodeIndex[old.nodes[options[selected].node].id],
                let newSelected = node.children.firstIndex(of: selectedNode), kept[selectedNode] != nil
            else { return nil }
            var newOptions: [Presented] = []
            for child in node.children {
                guard let option = kept[child] ?? Self.unvisited(child, in: new) else { return nil }
                newOptions.append(option)
            }
            return .junction(node: index, selected: newSelected, options: newOptions)
        case .stack(_, let items):
            var result: [Presented] = []
            for item in items {
                guard let translatedItem = translate(item, from: old, to: new) else { break }
                result.append(translatedItem)
            }
            return .stack(node: index, items: result)
        case .screen(_, let activation, let modal):
            let translatedModal = modal.flatMap { translate($0, from: old, to: new) }
            let fits = translatedModal.map { node.modals.contains($0.node) } ?? true
            return .screen(node: index, activation: activation, modal: fits ? translatedModal : nil)
        }
    }

    /// How a junction shows an option that was never on the active path: an empty stack, an
    /// endpoint without activation, a junction of such options; a switcher has no such state.
    static func unvisited(_ node: Int, in tree: RouteTree) -> Presented? {
        let spec = tree.nodes[node]
        switch spec.kind {
        case .stack: return .stack(node: node, items: [])
        case .endpoint: return .screen(node: node, activation: nil, modal: nil)
        case .junction:
            let options = spec.children.compactMap { unvisited($0, in: tree) }
            guard options.count == spec.children.count, !options.isEmpty else { return nil }
            return .junction(node: node, selected: 0, options: options)
        case .switcher: return nil
        }
    }

    /// The current request on the new tree, or its longest prefix that matches something
    /// other than a bare catch-all (unless it matched one before).
    ///
    /// - Throws: a guard, redirect or validator that failed (a Lua error or a limit, kind
    ///   `script`) or a redirect loop: that is a broken script, not a request that no longer
    ///   matches.
    static func resolveAfterReload(
        _ request: Request, oldRoute: Int?, oldTree: RouteTree, newTree: RouteTree
    ) throws(RouteError) -> (Resolution?, String?) {
        let wasCatchAll = oldRoute.map { oldTree.endpoints[$0].definition.pattern?.isBareCatchAll == true } ?? false
        func acceptable(_ resolution: Resolution) -> Bool {
            wasCatchAll || newTree.endpoints[resolution.route].definition.pattern?.isBareCatchAll != true
        }
        func attempt(_ string: String) throws(RouteError) -> Resolution? {
            do { return try newTree.resolve(string) } catch {
                if error.kind == .script || error.kind == .redirectLoop { throw error }
                return nil
            }
        }
        if let resolution = try attempt(request.original), acceptable(resolution) { return (resolution, nil) }
        var segments = request.segments
        while !segments.isEmpty {
            segments.removeLast()
            let prefix = Request(segments: segments)
            if let resolution = try attempt(prefix.original), acceptable(resolution) {
                let shown = prefix.path.isEmpty ? "/" : prefix.path
                return (resolution, "'\(request.path)' no longer matches; showing '\(shown)'")
            }
        }
        if let resolution = try attempt(request.original) {
            return (resolution, "'\(request.path)' now matches only the catch-all")
        }
        return (nil, "'\(request.path)' no longer matches anything; nothing is shown")
    }

    /// Kept screens that stay active get `update` (README, Hot reload: kept presentables get `update`).
    static func addUpdates(to transition: inout Transition, kept: Set<String>, tree: RouteTree) {
        var updated = Set(
            transition.plan.operations.compactMap { operation -> String? in
                if case .update(let id) = operation { return id }
                if case .create(let id) = operation { return id }
                return nil
            })
        let insertAt = (transition.plan.operations.lastIndex { $0.name == "create" || $0.name == "update" } ?? -1) + 1
        var extra: [PlanOperation] = []
        transition.to.presented?.forEach { presented in
            guard case .screen(let node, _?, _) = presented else { return }
            let id = tree.nodes[node].id
            if kept.contains(id), updated.insert(id).inserted { extra.append(.update(id: id)) }
        }
        transition.plan.operations.insert(contentsOf: extra, at: insertAt)
    }

    /// Kept presentables still show what the old tree had: where the translation dropped
    /// stack items or a switcher section, make the plan put them right; a modal that is no
    /// longer presented is detached.
    static func addRepairs(
        to transition: inout Transition, presentables: [String: HeadlessPresentable], tree: RouteTree
    ) {
        var operations = transition.plan.operations
        let planned = Set(operations.map { $0.name + " " + $0.id })
        var creates: [PlanOperation] = []
        transition.to.presented?.forEach { presented in
            let id = tree.nodes[presented.node].id
            guard let presentable = presentables[id] else {
                // A junction option the new tree added: shown, but never created.
                if !planned.contains("create " + id) { creates.append(.create(id: id)) }
                return
            }
            switch presented {
            case .stack(_, let items):
                let ids = items.map { tree.nodes[$0.node].id }
                if presentable.children.map(\.id) != ids, !planned.contains("setStack " + id) {
                    operations.append(.setStack(id: id, items: ids))
                }
            case .screen(_, _, let modal):
                // A modal the new tree no longer presents here: its presentable is not kept
                // (the old script unwinds it), so it is detached directly.
                if let shown = presentable.modal, shown.id != modal.map({ tree.nodes[$0.node].id }) {
                    presentable.detachModal()
                }
            case .switcher(_, let section, let content):
                let option = tree.nodes[content.node].id
                if presentable.children.first?.id != option, !planned.contains("select " + id) {
                    operations.append(.select(id: id, index: section, option: option))
                }
            case .junction(_, let selected, let options):
                let ids = options.map { tree.nodes[$0.node].id }
                if presentable.children.map(\.id) != ids, !planned.contains("setOptions " + id) {
                    operations.append(.setOptions(id: id, options: ids))
                }
                // Options moved: the selection is an index, so it is set again.
                if presentable.selected != selected, !planned.contains("select " + id) {
                    operations.append(.select(id: id, index: selected, option: ids[selected]))
                }
            }
        }
        let firstAfterDismissals = operations.firstIndex { if case .dismissModal = $0 { false } else { true } }
        operations.insert(contentsOf: creates, at: firstAfterDismissals ?? operations.count)
        transition.plan.operations = operations
    }

    /// Endpoint ids added, removed and changed between two trees: changed means another
    /// kind, route, name, title, validators, guards or parent. Compared node by node through
    /// the id indexes, without building a summary of either tree.
    static func compare(_ old: RouteTree, _ new: RouteTree) -> ([String], [String], [String]) {
        var added: [String] = []
        var changed: [String] = []
        var kept = 0
        for node in new.nodes {
            guard let oldIndex = old.nodeIndex[node.id] else {
                added.append(node.id)
                continue
            }
            kept += 1
            if !same(old.nodes[oldIndex], in: old, node, in: new) { changed.append(node.id) }
        }
        // Ids are unique: when every old node was kept, none was removed (no second lookup).
        let removed = kept == old.nodes.count ? [] : old.nodes.lazy.map(\.id).filter { new.nodeIndex[$0] == nil }
        return (added.sorted(), removed.sorted(), changed.sorted())
    }

    /// A presenter choice as text that two Lua states can compare: which host presenter, or
    /// which hooks (their bodies cannot be compared across states).
    static func presenterShape(_ choice: PresenterChoice?) -> String {
        switch choice {
        case nil, .headless?: ""
        case .host(let name)?: "host " + name
        case .hooks(let hooks)?: "hooks " + hooks.keys.sorted().joined(separator: ",")
        }
    }

    /// Whether a node kept its kind, route, name, title, validators, guards and parent.
    private static func same(_ a: RouteTree.Node, in old: RouteTree, _ b: RouteTree.Node, in new: RouteTree) -> Bool {
        guard a.kind == b.kind, a.title == b.title, a.routeText == b.routeText else { return false }
        guard (a.parent.map { old.nodes[$0].id }) == (b.parent.map { new.nodes[$0].id }) else { return false }
        switch (a.route, b.route) {
        case (nil, nil): return true
        case (let x?, let y?):
            let first = old.endpoints[x]
            let second = new.endpoints[y]
            guard first.name == second.name, first.guards.count == second.guards.count,
                first.definition.displayText == second.definition.displayText,
                first.definition.validators.count == second.definition.validators.count
            else { return false }
            for (parameter, validator) in first.definition.validators
            where second.definition.validators[parameter]?.source != validator.source {
                return false
            }
            return true
        default: return false
        }
    }
}

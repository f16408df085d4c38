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
    /// Reloads the script into a fresh Lua state: the script runs again, so a reload always
    /// equals a fresh load of the saved file (docs/cli.md, "Hot reload"). On success the new tree
    /// replaces the old one and the current request is dispatched again (or its longest matching prefix, with
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
        // What the new tree may reuse of the old one (nothing with `reusesUnchangedParts` off).
        let reusable = options.reusesUnchangedParts ? oldScript.tree : nil
        let fresh: LoadedScript
        if let path {
            fresh = try LoadedScript(
                path: path, options: options, hostPresenters: hostPresenterNames, reusing: reusable)
        } else if let source {
            fresh = try LoadedScript(
                source: source.text, name: source.name, folder: source.folder, path: "", options: options,
                hostPresenters: hostPresenterNames, reusing: reusable)
        } else {
            throw RouteScriptError(.notLoaded, "no script is loaded")
        }
        // What changed, worked out once as the new tree was built (its matcher patch read it);
        // the lint, the summary and a session's route table read it too. A tree built from
        // nothing (`--full-reload`) is compared here.
        let change = fresh.tree.change ?? TreeChange(from: oldScript.tree, to: fresh.tree)
        let report = try Self.lint(
            fresh, previous: options.reusesUnchangedParts ? lintCache : nil,
            change: lintCache?.tree === oldScript.tree ? change : nil, options: options)
        lintCache = report
        let findings = report.findings
        busy = true
        defer { busy = false }
        let newTree = fresh.tree
        let oldTree = oldScript.tree
        // Presentables whose node the new tree still has, as the same kind, are kept.
        let kept = oldRouter.store.presentables.filter { id, _ in
            guard let old = oldTree.index(of: id), let new = newTree.index(of: id) else { return false }
            return oldTree.nodes[old].kind == newTree.nodes[new].kind
        }

        // What to show: the current request, or its longest matching prefix.
        var warning: String?
        var resolution: Resolution?
        fresh.callbacks.beginDispatch()
        // Pushed screens shown: the request under them first, then each push again.
        let pushes = oldRouter.state.presented?.pushSteps
        let base = pushes.flatMap { try? newTree.request(from: $0.base) }
        if let request = base ?? intent ?? oldRouter.state.request {
            do {
                let wasCatchAll = oldRouter.state.route.map {
                    oldTree[$0].definition.pattern?.isBareCatchAll == true
                }
                (resolution, warning) = try newTree.resolveSurviving(request, wasCatchAll: wasCatchAll ?? false)
            } catch {
                // A guard, redirect or validator of the new script failed (a Lua error or a
                // limit): the reload failed, and says why; the old tree and state stay.
                fresh.discard()
                throw RouteScriptError(
                    .load, "\(error.message)\n(while re-resolving '\(request.original)' on the new script)",
                    location: error.location)
            }
        }
        // Reduce from what is on screen: its part the new tree still has is where the reducer
        // starts (tab stacks, lower screens' activations), and the plan goes from the
        // presentables on screen, by identity, to the new presentation.
        let reducer = Reducer(tree: newTree)
        let onScreen = oldRouter.state.presented
        // What the state kept that a guard of the new script refuses is dropped (docs/dsl.md,
        // "Guards"), as after a flag change.
        let admitted: Presented?
        do throws(RouteError) {
            admitted = try reducer.rebase(onScreen).map { presented throws(RouteError) in
                try reducer.admitted(presented).presented
            }
        } catch {
            fresh.discard()
            throw RouteScriptError(
                .load, "\(error.message)\n(while checking the guards of the screens kept, on the new script)",
                location: error.location)
        }
        let startState = RouterState(
            request: oldRouter.state.request, route: nil, params: oldRouter.state.params,
            presented: base != nil ? admitted?.withoutShownPushes() : admitted)
        var target = resolution.map { reducer.reduce(startState, to: $0).to.keepingResults(of: admitted) } ?? .initial
        if let pushes, base != nil, resolution != nil, warning == nil {
            do throws(RouteError) {
                let replayed = try reducer.replaying(pushes.steps, onto: target) { text throws(RouteError) in
                    try newTree.resolveIfStill(text)
                }
                target = replayed.state.keepingResults(of: admitted)
                if !replayed.warnings.isEmpty { warning = replayed.warnings.joined(separator: "; ") }
            } catch {
                fresh.discard()
                throw RouteScriptError(
                    .load, "\(error.message)\n(while pushing the pushed screens again, on the new script)",
                    location: error.location)
            }
        }
        let transition = Transition(
            from: startState, to: target,
            plan: Reducer.plan(fromOnScreen: onScreen, to: target.presented, tree: newTree))

        let newPresenter = makePresenter(fresh)
        let newRouter = Router(tree: newTree, presenter: newPresenter)
        newRouter.replace(tree: newTree, state: startState, presentables: kept)
        let titles = kept.map { ($0.value, $0.value.title) }
        // By node index, then id (a node's pushed instances, `books/:id#2`, after it).
        let vanished = oldRouter.store.presentables.compactMap { id, presentable in
            kept[id] == nil ? oldTree.presented(id).map { ($0, presentable) } : nil
        }
        do {
            try newRouter.apply(transition) {
                // The app's presentables of vanished nodes step aside: the new tree may create
                // ones with the same ids before the old ones are unwound.
                registry.mirror?.detach(vanished.map(\.1))
                for presentable in kept.values {
                    if let modal = presentable.modal, kept[modal.id] == nil { presentable.detachModal() }
                }
                // Kept presentables get what the new script (and the device) would give a
                // fresh one: declared attributes and what `create` returns (`split`, `badge`).
                for (id, presentable) in kept.sorted(by: { $0.key < $1.key }) {
                    guard let index = newTree.index(of: id) else { continue }
                    try newPresenter.redecorate(presentable, node: newTree.nodes[index])
                }
            }
        } catch {
            // Everything was put back; the old presenter takes its presentables back.
            oldRouter.presenter.adopt(Array(kept.values))
            fresh.discard()
            let message = (error as? any LunaError)?.message ?? "\(error)"
            throw RouteScriptError(.load, message, location: (error as? any LunaError)?.location)
        }
        // Default titles follow the script; titles set by hooks stay.
        for (presentable, title) in titles {
            if let old = oldTree.index(of: presentable.id).map({ oldTree.nodes[$0] }), old.title == title,
                let new = newTree.index(of: presentable.id).map({ newTree.nodes[$0] }), presentable.title == title,
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
        for (node, presentable) in vanished.sorted(by: { ($0.0.index, $0.0.id) > ($1.0.index, $1.0.id) }) {
            try? oldPresenter.unwind(presentable, node: node)
            plan.operations.append(.unwind(id: node.id))
        }
        script = fresh
        router = newRouter
        lastChange = change
        // A sibling's old script is shared with other hosts: it stays open for them. Else it
        // is closed now and freed on a background thread (its node objects and Lua's memory:
        // about a fifth of a 10k-route reload's time), so the reload returns without waiting.
        if !sharesScript { oldScript.vm.closeFreeingInBackground() }
        sharesScript = false
        var (added, removed, changed) = change.summary(old: oldTree, new: newTree)
        // A presenter that changed (another host presenter, hooks added or removed) counts too.
        let listed = Set(changed)
        for node in newTree.nodes where change.oldIndex[node.index] >= 0 {
            let oldIndex = Int(change.oldIndex[node.index])
            if !Self.samePresenter(oldScript.presenters[oldIndex], fresh.presenters[node.index]),
                !listed.contains(node.id)
            {
                changed.append(node.id)
            }
        }
        changed.sort()
        return ReloadSummary(
            duration: clock.now - start, added: added, removed: removed, changed: changed, warning: warning,
            plan: plan, lint: findings.map(\.line))
    }

    /// Whether two presenter choices (of two Lua states) are the same: both headless, the same
    /// host presenter, or the same hooks by name (their bodies cannot be compared across
    /// states).
    static func samePresenter(_ a: PresenterChoice?, _ b: PresenterChoice?) -> Bool {
        switch (a ?? .headless, b ?? .headless) {
        case (.headless, .headless): true
        case (.host(let x), .host(let y)): x == y
        case (.hooks(let x), .hooks(let y)): x.count == y.count && x.keys.allSatisfy { y[$0] != nil }
        default: false
        }
    }

    /// What `luna check` says of a loaded script: its errors fail the load (a fresh one or a
    /// reload alike, so a reload equals a fresh load of the saved file) and close the script's
    /// state; the report, warnings included, otherwise. A tree whose lint inputs did not change
    /// since `previous` (a title, a presenter) has the same findings; one whose route
    /// definitions changed in a few places is linted again only where they can change them.
    static func lint(
        _ loaded: LoadedScript, previous: Lint.Report?, change: TreeChange? = nil, options: RouteScriptOptions
    ) throws(RouteScriptError) -> Lint.Report {
        let report = Lint(tree: loaded.tree).report(previous: previous, change: change)
        let errors = report.findings.filter { $0.severity == .error }
        if !errors.isEmpty, options.lintErrorsFailTheLoad {
            loaded.discard()
            throw RouteScriptError(.load, errors.map(\.line).joined(separator: "\n"), location: errors.first?.location)
        }
        return report
    }
}

import LuaHost
import RouteCore

/// The presenter of a loaded script. Each operation, in this order: the headless model
/// takes the structural change; the app's presentables take it (a ``ScriptHost``'s
/// presenter); the node's Swift presenter runs (named by the script, or bound by id, route
/// name or kind); the node's Lua hook runs (`presenter = { … }`).
struct ScriptPresenter: Presenter {
    let script: LoadedScript
    let registry: PresenterRegistry
    let options: () -> (flags: [String: String], device: Device)
    private let headless = HeadlessPresenter()

    init(
        script: LoadedScript, registry: PresenterRegistry,
        options: @escaping () -> (flags: [String: String], device: Device)
    ) {
        self.script = script
        self.registry = registry
        self.options = options
        script.callbacks.registry = registry
    }

    private var mirror: (any PresentableMirror)? { registry.mirror }

    private var callbacks: ScriptCallbacks { script.callbacks }

    /// The node's Lua hook, if it has one (it is about to run: the probe is told).
    private func lua(_ node: RouteTree.Node, _ hook: String) -> LuaValue? {
        guard case .hooks(let hooks)? = script.presenters[node.index], let function = hooks[hook] else { return nil }
        callbacks.probe?.hookRan(node.index, hook)
        return function
    }

    private func host(_ node: RouteTree.Node) -> ErasedPresenter? {
        var scriptName: String?
        if case .host(let name)? = script.presenters[node.index] { scriptName = name }
        return registry.presenter(for: node, scriptName: scriptName, in: script.tree)
    }

    /// The context of a node for its hooks.
    private func routeContext(_ node: RouteTree.Node, _ activation: Activation?) -> RouteContext {
        let endpoint = node.route.map { script.tree[$0] }
        let path =
            activation?.request?.path
            ?? ((try? script.tree.request(for: node.nodeID, params: activation?.params ?? [:]))?.path ?? "")
        return RouteContext(
            path: path, params: activation?.params ?? [:], query: activation?.query ?? [:],
            fragment: activation?.fragment, route: endpoint?.definition.displayText ?? "", name: endpoint?.name,
            endpointID: node.id, from: activation?.from)
    }

    private func presenterContext(_ node: RouteTree.Node, _ activation: Activation?) -> PresenterContext {
        let context = routeContext(node, activation)
        let (flags, device) = options()
        return PresenterContext(
            path: context.path, params: context.params, query: context.query, fragment: context.fragment,
            route: context.route, name: context.name, flags: flags, device: device, id: node.id, kind: node.kind,
            from: context.from)
    }

    func create(_ node: RouteTree.Node, activation: Activation?) throws -> HeadlessPresentable {
        let presentable = try headless.create(node, activation: activation)
        try mirror?.create(presentable, node: node, activation: activation)
        try decorate(presentable, node: node, activation: activation)
        if let activation { try runUpdate(presentable, node: node, activation: activation) }
        return presentable
    }

    /// What `create` sets besides the structure: the node's declared attributes, then the
    /// host presenter's `create` and the attributes the Lua `create` returns.
    private func decorate(_ presentable: HeadlessPresentable, node: RouteTree.Node, activation: Activation?) throws {
        for (name, value) in script.declaredAttributes[node.index] ?? [] {
            presentable.attributes[name] = value
            try mirror?.decorate(presentable, name, value)
        }
        if let host = host(node) { try host.create?(presentable, presenterContext(node, activation)) }
        if let create = lua(node, "create") {
            let result = try callbacks.call(create, screen: node, activation: activation, in: script.tree)
            if let attributes = result.first, case .table = attributes {
                try apply(attributes, to: presentable, node: node)
            }
        }
    }

    /// After a reload or a device change a kept presentable is decorated again by the new
    /// script (its declared attributes and what `create` returns follow the script and the
    /// device, as a fresh one would get); its structure and Lua-set fields stay.
    func redecorate(_ presentable: HeadlessPresentable, node: RouteTree.Node) throws {
        try decorate(presentable, node: node, activation: presentable.activation)
    }

    /// `create` may return a table of attributes; `title` sets the title.
    private func apply(_ attributes: LuaValue, to presentable: HeadlessPresentable, node: RouteTree.Node) throws {
        for (key, value) in try callbacks.vm.entries(attributes) {
            guard case .string(let name) = key else { continue }
            if name == "title" {
                guard case .string(let title) = value else {
                    throw RouteError(
                        .script, "\(node.id): create returned a title that is not a string (\(value.typeName))")
                }
                presentable.title = title
                try mirror?.decorate(presentable, name, .string(title))
            } else if let attribute = ViewHandles.attribute(value) {
                presentable.attributes[name] = attribute
                try mirror?.decorate(presentable, name, attribute)
            } else {
                throw RouteError(
                    .script,
                    "\(node.id): create returned attribute '\(name)' of type \(value.typeName) (strings, numbers and booleans only)"
                )
            }
        }
    }

    func update(_ presentable: HeadlessPresentable, node: RouteTree.Node, activation: Activation) throws {
        try headless.update(presentable, node: node, activation: activation)
        try mirror?.update(presentable, node: node, activation: activation)
        try runUpdate(presentable, node: node, activation: activation)
    }

    private func runUpdate(_ presentable: HeadlessPresentable, node: RouteTree.Node, activation: Activation) throws {
        if let host = host(node) { try host.update?(presentable, presenterContext(node, activation)) }
        if let update = lua(node, "update") {
            _ = try callbacks.call(
                update, callbacks.view(presentable), screen: node, activation: activation, in: script.tree)
        }
    }

    /// A value handed back: the models and the app's presentable take it, then the screen's
    /// `on_result(view, ctx, value)` runs (it may set the title and attributes).
    func deliver(_ presentable: HeadlessPresentable, node: RouteTree.Node, result: [String: AttributeValue]) throws {
        try headless.deliver(presentable, node: node, result: result)
        try mirror?.deliver(presentable, node: node, result: result)
        guard let hook = script.resultHooks[node.index] else { return }
        callbacks.probe?.hookRan(node.index, "on_result")
        let vm = callbacks.vm
        let value = vm.newTable(fieldCapacity: result.count)
        for (key, item) in result {
            try vm.rawSet(value, key: .string(key), value: ViewHandles.luaValue(item))
        }
        _ = try callbacks.call(
            hook, callbacks.view(presentable), screen: node, activation: presentable.activation, in: script.tree,
            then: value)
    }

    func setStack(_ stack: HeadlessPresentable, node: RouteTree.Node, items: [HeadlessPresentable]) throws {
        try headless.setStack(stack, node: node, items: items)
        try mirror?.setStack(stack, node: node, items: items)
        try listHook("setStack", container: stack, node: node, items: items) { $0.setStack }
    }

    func setOptions(_ container: HeadlessPresentable, node: RouteTree.Node, options: [HeadlessPresentable]) throws {
        try headless.setOptions(container, node: node, options: options)
        try mirror?.setOptions(container, node: node, options: options)
        try listHook("setOptions", container: container, node: node, items: options) { $0.setOptions }
    }

    /// The hooks that get a container and its children (setStack, setOptions).
    private func listHook(
        _ name: String, container: HeadlessPresentable, node: RouteTree.Node, items: [HeadlessPresentable],
        _ hostHook: (ErasedPresenter) -> ((HeadlessPresentable, [HeadlessPresentable]) throws -> Void)?
    ) throws {
        if let host = host(node) { try hostHook(host)?(container, items) }
        if let hook = lua(node, name) {
            _ = try callbacks.call(hook, callbacks.view(container), viewList(items))
        }
    }

    func select(_ container: HeadlessPresentable, node: RouteTree.Node, index: Int, option: HeadlessPresentable) throws
    {
        try headless.select(container, node: node, index: index, option: option)
        try mirror?.select(container, node: node, index: index, option: option)
        if let host = host(node) { try host.select?(container, option) }
        if let hook = lua(node, "select") {
            _ = try callbacks.call(hook, callbacks.view(container), callbacks.view(option))
        }
    }

    func presentModal(_ modal: HeadlessPresentable, over presenter: HeadlessPresentable, node: RouteTree.Node) throws {
        try headless.presentModal(modal, over: presenter, node: node)
        try mirror?.presentModal(modal, over: presenter, node: node)
        try modalHook("presentModal", modal: modal, presenter: presenter) { $0.presentModal }
    }

    func dismissModal(_ modal: HeadlessPresentable, from presenter: HeadlessPresentable, node: RouteTree.Node) throws {
        try headless.dismissModal(modal, from: presenter, node: node)
        try mirror?.dismissModal(modal, from: presenter, node: node)
        try modalHook("dismissModal", modal: modal, presenter: presenter) { $0.dismissModal }
    }

    /// Modal hooks belong to the presenting endpoint.
    private func modalHook(
        _ name: String, modal: HeadlessPresentable, presenter: HeadlessPresentable,
        _ hostHook: (ErasedPresenter) -> ((HeadlessPresentable, HeadlessPresentable) throws -> Void)?
    ) throws {
        guard let index = script.tree.index(of: presenter.id) else { return }
        let owner = script.tree.nodes[index]
        if let host = host(owner) { try hostHook(host)?(presenter, modal) }
        if let hook = lua(owner, name) {
            _ = try callbacks.call(hook, callbacks.view(presenter), callbacks.view(modal))
        }
    }

    func unwind(_ presentable: HeadlessPresentable, node: RouteTree.Node) throws {
        try headless.unwind(presentable, node: node)
        // Hooks see the presentable before the app's presenter discards it.
        if let host = host(node) { try host.unwind?(presentable) }
        if let hook = lua(node, "unwind") {
            _ = try callbacks.call(hook, callbacks.view(presentable))
        }
        try mirror?.unwind(presentable, node: node)
        callbacks.forgetView(presentable)
    }

    // All or nothing: the headless model is journaled, the app's presentables (of a
    // ``ScriptHost``) go back to the set they were, and the app's presenter is told too.
    func begin() {
        headless.begin()
        mirror?.checkpoint()
    }

    func commit() {
        headless.commit()
        mirror?.commit()
    }

    func rollback() {
        headless.rollback()
        mirror?.rollback()
    }

    func adopt(_ presentables: [HeadlessPresentable]) { headless.adopt(presentables) }

    /// What the UI did itself changes the headless model only: no hook runs.
    func reflect(_ operation: PlanOperation, lookup: (String) -> HeadlessPresentable?) {
        headless.reflect(operation, lookup: lookup)
        mirror?.reflect(operation)
    }

    private func viewList(_ presentables: [HeadlessPresentable]) -> LuaValue {
        let table = callbacks.vm.newTable(arrayCapacity: presentables.count)
        for (offset, presentable) in presentables.enumerated() {
            try? callbacks.vm.rawSet(table, key: .integer(Int64(offset + 1)), value: callbacks.view(presentable))
        }
        return table
    }
}

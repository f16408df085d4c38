import LuaHost
import RouteCore

/// The presenter of a loaded script: applies each operation to the headless presentables,
/// then runs the node's hook — Lua (`presenter = { … }`) or host (`presenter = "Name"`).
struct ScriptPresenter: Presenter {
    let script: LoadedScript
    let hostPresenters: [String: HostPresenter]
    let options: () -> (flags: [String: String], device: Device)
    private let headless = HeadlessPresenter()

    init(
        script: LoadedScript, hostPresenters: [String: HostPresenter],
        options: @escaping () -> (flags: [String: String], device: Device)
    ) {
        self.script = script
        self.hostPresenters = hostPresenters
        self.options = options
    }

    private var callbacks: ScriptCallbacks { script.callbacks }

    /// The node's Lua hook, if it has one (it is about to run: the probe is told).
    private func lua(_ node: RouteTree.Node, _ hook: String) -> LuaValue? {
        guard case .hooks(let hooks)? = script.presenters[node.index], let function = hooks[hook] else { return nil }
        callbacks.probe?.hookRan?(node.index, hook)
        return function
    }

    private func host(_ node: RouteTree.Node) -> HostPresenter? {
        guard case .host(let name)? = script.presenters[node.index] else { return nil }
        return hostPresenters[name]
    }

    /// The context of a node for its hooks.
    private func routeContext(_ node: RouteTree.Node, _ activation: Activation?) -> RouteContext {
        let endpoint = node.route.map { script.tree.endpoints[$0] }
        let path =
            activation?.request?.path
            ?? ((try? script.tree.request(for: node.index, params: activation?.params ?? [:]))?.path ?? "")
        return RouteContext(
            path: path, params: activation?.params ?? [:], query: activation?.query ?? [:],
            fragment: activation?.fragment, route: endpoint?.definition.displayText ?? "", name: endpoint?.name,
            endpointID: node.id)
    }

    private func presenterContext(_ node: RouteTree.Node, _ activation: Activation?) -> PresenterContext {
        let context = routeContext(node, activation)
        let (flags, device) = options()
        return PresenterContext(
            path: context.path, params: context.params, query: context.query, fragment: context.fragment,
            route: context.route, name: context.name, flags: flags, device: device)
    }

    func create(_ node: RouteTree.Node, activation: Activation?) throws -> HeadlessPresentable {
        let presentable = try headless.create(node, activation: activation)
        if let create = lua(node, "create") {
            let result = try callbacks.call(create, [callbacks.context(routeContext(node, activation))])
            if let attributes = result.first, case .table = attributes {
                try apply(attributes, to: presentable, node: node)
            }
        } else if let host = host(node) {
            try host.create?(presentable, presenterContext(node, activation))
        }
        if let activation { try runUpdate(presentable, node: node, activation: activation) }
        return presentable
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
            } else if let attribute = ViewHandles.attribute(value) {
                presentable.attributes[name] = attribute
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
        try runUpdate(presentable, node: node, activation: activation)
    }

    private func runUpdate(_ presentable: HeadlessPresentable, node: RouteTree.Node, activation: Activation) throws {
        if let update = lua(node, "update") {
            _ = try callbacks.call(
                update, [callbacks.view(presentable), callbacks.context(routeContext(node, activation))])
        } else if let host = host(node) {
            try host.update?(presentable, presenterContext(node, activation))
        }
    }

    func setStack(_ stack: HeadlessPresentable, node: RouteTree.Node, items: [HeadlessPresentable]) throws {
        try headless.setStack(stack, node: node, items: items)
        try listHook("setStack", container: stack, node: node, items: items) { $0.setStack }
    }

    func setOptions(_ container: HeadlessPresentable, node: RouteTree.Node, options: [HeadlessPresentable]) throws {
        try headless.setOptions(container, node: node, options: options)
        try listHook("setOptions", container: container, node: node, items: options) { $0.setOptions }
    }

    /// The hooks that get a container and its children (setStack, setOptions).
    private func listHook(
        _ name: String, container: HeadlessPresentable, node: RouteTree.Node, items: [HeadlessPresentable],
        _ hostHook: (HostPresenter) -> ((HeadlessPresentable, [HeadlessPresentable]) throws -> Void)?
    ) throws {
        if let hook = lua(node, name) {
            _ = try callbacks.call(hook, [callbacks.view(container), viewList(items)])
        } else if let host = host(node) {
            try hostHook(host)?(container, items)
        }
    }

    func select(_ container: HeadlessPresentable, node: RouteTree.Node, index: Int, option: HeadlessPresentable) throws
    {
        try headless.select(container, node: node, index: index, option: option)
        if let hook = lua(node, "select") {
            _ = try callbacks.call(hook, [callbacks.view(container), callbacks.view(option)])
        } else if let host = host(node) {
            try host.select?(container, option)
        }
    }

    func presentModal(_ modal: HeadlessPresentable, over presenter: HeadlessPresentable, node: RouteTree.Node) throws {
        try headless.presentModal(modal, over: presenter, node: node)
        try modalHook("presentModal", modal: modal, presenter: presenter) { $0.presentModal }
    }

    func dismissModal(_ modal: HeadlessPresentable, from presenter: HeadlessPresentable, node: RouteTree.Node) throws {
        try headless.dismissModal(modal, from: presenter, node: node)
        try modalHook("dismissModal", modal: modal, presenter: presenter) { $0.dismissModal }
    }

    /// Modal hooks belong to the presenting endpoint.
    private func modalHook(
        _ name: String, modal: HeadlessPresentable, presenter: HeadlessPresentable,
        _ hostHook: (HostPresenter) -> ((HeadlessPresentable, HeadlessPresentable) throws -> Void)?
    ) throws {
        guard let index = script.tree.nodeIndex[presenter.id] else { return }
        let owner = script.tree.nodes[index]
        if let hook = lua(owner, name) {
            _ = try callbacks.call(hook, [callbacks.view(presenter), callbacks.view(modal)])
        } else if let host = host(owner) {
            try hostHook(host)?(presenter, modal)
        }
    }

    func unwind(_ presentable: HeadlessPresentable, node: RouteTree.Node) throws {
        try headless.unwind(presentable, node: node)
        if let hook = lua(node, "unwind") {
            _ = try callbacks.call(hook, [callbacks.view(presentable)])
        } else if let host = host(node) {
            try host.unwind?(presentable)
        }
        callbacks.forgetView(presentable)
    }

    /// What the UI did itself changes the headless model only: no hook runs.
    func reflect(_ operation: PlanOperation, lookup: (String) -> HeadlessPresentable?) {
        headless.reflect(operation, lookup: lookup)
    }

    private func viewList(_ presentables: [HeadlessPresentable]) -> LuaValue {
        let table = callbacks.vm.newTable(arrayCapacity: presentables.count)
        for (offset, presentable) in presentables.enumerated() {
            try? callbacks.vm.rawSet(table, key: .integer(Int64(offset + 1)), value: callbacks.view(presentable))
        }
        return table
    }
}

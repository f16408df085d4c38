import LuaHost
import RouteCore

/// The app's own presentables, kept in step with the headless model by the script's
/// presenter (type-erased so ``RouteScriptHost`` stays one class).
protocol PresentableMirror: AnyObject {
    func create(_ model: HeadlessPresentable, node: RouteTree.Node, activation: Activation?) throws
    func update(_ model: HeadlessPresentable, node: RouteTree.Node, activation: Activation) throws
    func setStack(_ model: HeadlessPresentable, node: RouteTree.Node, items: [HeadlessPresentable]) throws
    func setOptions(_ model: HeadlessPresentable, node: RouteTree.Node, options: [HeadlessPresentable]) throws
    func select(_ model: HeadlessPresentable, node: RouteTree.Node, index: Int, option: HeadlessPresentable) throws
    func presentModal(_ modal: HeadlessPresentable, over: HeadlessPresentable, node: RouteTree.Node) throws
    func dismissModal(_ modal: HeadlessPresentable, from: HeadlessPresentable, node: RouteTree.Node) throws
    func unwind(_ model: HeadlessPresentable, node: RouteTree.Node) throws
    func deliver(_ model: HeadlessPresentable, node: RouteTree.Node, result: [String: AttributeValue]) throws
    /// Sets the app presentables of these models aside (a reload's vanished nodes): a later
    /// `unwind` of the same model object finds them there.
    func detach(_ models: [HeadlessPresentable])
    func reflect(_ operation: PlanOperation)
    func decorate(_ model: HeadlessPresentable, _ name: String, _ value: AttributeValue?) throws
    /// Before a dispatch: remember which presentables exist, to go back to on failure.
    func checkpoint()
    /// The dispatch succeeded: forget what `checkpoint` remembered.
    func commit()
    func rollback()
    func removeAll()
}

/// The presentables of a ``ScriptHost``, made and changed by the app's presenter.
final class AppPresentables<App: Presenter>: PresentableMirror {
    let presenter: App
    var presentables: [String: App.Presentable] = [:]
    private var saved: [String: App.Presentable]?
    private var detached: [ObjectIdentifier: App.Presentable] = [:]

    init(presenter: App) { self.presenter = presenter }

    func require(_ model: HeadlessPresentable) throws -> App.Presentable {
        guard let presentable = presentables[model.id] else {
            throw RouteError(.script, "no app presentable for '\(model.id)' (the plan does not fit the store)")
        }
        return presentable
    }

    func create(_ model: HeadlessPresentable, node: RouteTree.Node, activation: Activation?) throws {
        presentables[node.id] = try presenter.create(node, activation: activation)
    }

    func update(_ model: HeadlessPresentable, node: RouteTree.Node, activation: Activation) throws {
        try presenter.update(require(model), node: node, activation: activation)
    }

    func setStack(_ model: HeadlessPresentable, node: RouteTree.Node, items: [HeadlessPresentable]) throws {
        try presenter.setStack(require(model), node: node, items: items.map(require))
    }

    func setOptions(_ model: HeadlessPresentable, node: RouteTree.Node, options: [HeadlessPresentable]) throws {
        try presenter.setOptions(require(model), node: node, options: options.map(require))
    }

    func select(_ model: HeadlessPresentable, node: RouteTree.Node, index: Int, option: HeadlessPresentable) throws {
        try presenter.select(require(model), node: node, index: index, option: require(option))
    }

    func presentModal(_ modal: HeadlessPresentable, over: HeadlessPresentable, node: RouteTree.Node) throws {
        try presenter.presentModal(require(modal), over: require(over), node: node)
    }

    func dismissModal(_ modal: HeadlessPresentable, from: HeadlessPresentable, node: RouteTree.Node) throws {
        try presenter.dismissModal(require(modal), from: require(from), node: node)
    }

    func detach(_ models: [HeadlessPresentable]) {
        for model in models {
            if let presentable = presentables.removeValue(forKey: model.id) {
                detached[ObjectIdentifier(model)] = presentable
            }
        }
    }

    func deliver(_ model: HeadlessPresentable, node: RouteTree.Node, result: [String: AttributeValue]) throws {
        try presenter.deliver(require(model), node: node, result: result)
    }

    func unwind(_ model: HeadlessPresentable, node: RouteTree.Node) throws {
        if let presentable = detached.removeValue(forKey: ObjectIdentifier(model)) {
            try presenter.unwind(presentable, node: node)
            return
        }
        guard let presentable = presentables[model.id] else { return }
        try presenter.unwind(presentable, node: node)
        presentables[model.id] = nil
    }

    func reflect(_ operation: PlanOperation) {
        presenter.reflect(operation) { presentables[$0] }
    }

    func decorate(_ model: HeadlessPresentable, _ name: String, _ value: AttributeValue?) throws {
        guard let viewable = presentables[model.id] as? any ScriptViewable else { return }
        try viewable.setScriptAttribute(name, to: value)
    }

    func checkpoint() {
        saved = presentables
        presenter.begin()
    }

    func commit() {
        saved = nil
        presenter.commit()
    }

    func rollback() {
        if let saved { presentables = saved }
        saved = nil
        detached = [:]
        presenter.rollback()
    }

    func removeAll() {
        presentables = [:]
        detached = [:]
    }
}

/// A route script driving the app's own presentables: view controllers, or any Swift type.
///
/// The script's tree, state, Lua hooks, guards and hot reload are those of a
/// ``RouteScriptHost`` (``core``), which keeps its headless model as the REPL shows it. For
/// each plan operation, in this order:
///
/// 1. the headless model takes the structural change;
/// 2. the app's `Presenter` (`App`) applies it to the app's presentables;
/// 3. the node's Swift ``HostPresenter`` runs, if one is bound (``bind(_:_:)``);
/// 4. the node's Lua hook decorates: its `view` writes go to the model and, when the app's
///    presentable is `ScriptViewable` (RouteCore), to it.
///
/// A failed dispatch puts the headless model and the set of app presentables back as they
/// were; changes the app's presenter made to its own objects before the failure stay.
///
/// The host is `@MainActor`: an app drives its presentables (view controllers) there. The
/// values it returns (outcomes, plans, states, summaries) are `Sendable`.
///
/// ```swift
/// let host = try ScriptHost(contentsOf: "books.lua", presenter: ScreenPresenter())
/// host.bind(.name("book"), bookPresenter)
/// try host.dispatch("books/42")
/// host.root    // the app's presentable of the root node
/// ```
@MainActor
public final class ScriptHost<App: Presenter> {
    /// The script host underneath: tree, state, headless model, reload, flags, Lua.
    public let core: RouteScriptHost
    let store: AppPresentables<App>

    public init(presenter: App, options: RouteScriptOptions = .init()) {
        core = RouteScriptHost(options: options)
        store = AppPresentables(presenter: presenter)
        core.registry.mirror = store
    }

    public convenience init(contentsOf path: String, presenter: App, options: RouteScriptOptions = .init()) throws {
        self.init(presenter: presenter, options: options)
        try load(contentsOf: path)
    }

    public var presenter: App { store.presenter }

    /// Registers a presenter scripts can name (`presenter = "Name"`); register before loading.
    public func registerPresenter(_ name: String, _ presenter: HostPresenter<App.Presentable>) {
        core.registry.named[name] = ErasedPresenter(presenter, resolve: store.require)
    }

    /// Binds a Swift presenter to a node id, a route name or a node kind (at any time: it
    /// applies from the next operation on).
    public func bind(_ target: PresenterTarget, _ presenter: HostPresenter<App.Presentable>) {
        core.registry.bound[target] = ErasedPresenter(presenter, resolve: store.require)
    }

    public func unbind(_ target: PresenterTarget) { core.registry.bound[target] = nil }

    /// Loads (or replaces) the script; the app's presentables of a previous script are dropped.
    public func load(contentsOf path: String) throws { try core.load(contentsOf: path) }

    public func load(source: String, name: String = "script.lua", folder: String = ".") throws {
        try core.load(source: source, name: name, folder: folder)
    }

    @discardableResult
    public func dispatch(
        _ request: String, keepStack: Bool = false, reresolving: Bool = false
    ) throws -> RouteScriptHost.Outcome {
        try core.dispatch(request, keepStack: keepStack, reresolving: reresolving)
    }

    @discardableResult
    public func sync(_ request: String) throws -> RouteScriptHost.Outcome { try core.sync(request) }

    /// Pushes the screen `request` matches onto the top stack shown, the same screen again too
    /// (docs/dsl.md, "Push"); ``back()`` pops it.
    @discardableResult
    public func push(_ request: String) throws -> RouteScriptHost.Outcome { try core.push(request) }

    @discardableResult
    public func back() throws -> RouteScriptHost.Outcome { try core.back() }

    /// Back, handing `result` to the screen that shows again (docs/dsl.md, "Results").
    @discardableResult
    public func back(result: [String: AttributeValue]) throws -> RouteScriptHost.Outcome {
        try core.back(result: result)
    }

    /// Closes the top sheet: what it covered shows as it was (docs/dsl.md, "Sheets over any screen").
    @discardableResult
    public func close() throws -> RouteScriptHost.Outcome { try core.close() }

    @discardableResult
    public func reload() throws -> ReloadSummary { try core.reload() }

    @discardableResult
    public func setFlag(_ name: String, _ value: String?) throws -> RouteScriptHost.Outcome? {
        try core.setFlag(name, value)
    }

    @discardableResult
    public func setDevice(_ device: Device) throws -> ReloadSummary { try core.setDevice(device) }

    public func explain(_ request: String) throws -> MatchExplanation { try core.explain(request) }

    /// The app's presentable of the root node, once something was dispatched.
    public var root: App.Presentable? { core.routeTree.flatMap { store.presentables[$0.root.id] } }
    /// The app's presentable of a node.
    public subscript(id: String) -> App.Presentable? { store.presentables[id] }
    /// Every app presentable, by node id.
    public var presentables: [String: App.Presentable] { store.presentables }
    public var state: RouterState { core.state }
    public var routeTree: RouteTree? { core.routeTree }
    /// The headless model of what is shown (what `luna repl` prints).
    public var model: HeadlessPresentable? { core.tree }
}

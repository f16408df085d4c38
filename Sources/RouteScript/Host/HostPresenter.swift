import RouteCore

/// What a host presenter's hooks are told about the node.
public struct PresenterContext: Sendable, Equatable {
    public var path: String
    public var params: [String: String]
    public var query: [String: String]
    public var fragment: String?
    /// The endpoint's pattern (empty for containers).
    public var route: String
    public var name: String?
    public var flags: [String: String]
    public var device: Device
    /// The node's id and kind.
    public var id: String
    public var kind: NodeKind
    /// The request the user asked for, when a guard's fallback or a redirect led here.
    public var from: String? = nil
}

/// A presenter written in Swift. Every hook is optional and runs after the structural
/// change was applied — to the headless model and to the app's own presentable — and before
/// the node's Lua hook (see ``PresenterTarget`` for which nodes it runs on).
///
/// `View` is the presentable type the hooks get: `HeadlessPresentable` on a
/// ``RouteScriptHost``, the app's own type on a ``ScriptHost``.
///
/// ```swift
/// var book = HostPresenter<HeadlessPresentable>()
/// book.create = { view, context in view.title = "Book " + (context.params["id"] ?? "?") }
/// host.bind(.name("book"), book)
/// ```
public struct HostPresenter<View> {
    public var create: ((View, PresenterContext) throws -> Void)?
    public var update: ((View, PresenterContext) throws -> Void)?
    public var unwind: ((View) throws -> Void)?
    /// `(presenter, modal)`: runs on the presenting endpoint's binding.
    public var presentModal: ((View, View) throws -> Void)?
    public var dismissModal: ((View, View) throws -> Void)?
    public var setStack: ((View, [View]) throws -> Void)?
    public var setOptions: ((View, [View]) throws -> Void)?
    public var select: ((View, View) throws -> Void)?

    public init() {}
}

/// Where a Swift presenter is bound. For each node one Swift presenter runs, the most
/// specific that applies: the one the script names (`presenter = "Name"`, see
/// ``RouteScriptHost/registerPresenter(_:_:)``), then ``id(_:)``, then ``name(_:)``, then
/// ``kind(_:)`` — the default for every node of a kind.
public enum PresenterTarget: Hashable, Sendable {
    /// The node with this id (`books/:id`, `stack:books`, or the id the script gave).
    case id(String)
    /// The endpoint with this route name (`name = "book"`).
    case name(String)
    /// Every node of a kind without a more specific binding.
    case kind(NodeKind)
}

/// A ``HostPresenter`` with its presentables turned into headless models: `resolve` finds
/// the host's own presentable for a model.
struct ErasedPresenter {
    var create: ((HeadlessPresentable, PresenterContext) throws -> Void)?
    var update: ((HeadlessPresentable, PresenterContext) throws -> Void)?
    var unwind: ((HeadlessPresentable) throws -> Void)?
    var presentModal: ((HeadlessPresentable, HeadlessPresentable) throws -> Void)?
    var dismissModal: ((HeadlessPresentable, HeadlessPresentable) throws -> Void)?
    var setStack: ((HeadlessPresentable, [HeadlessPresentable]) throws -> Void)?
    var setOptions: ((HeadlessPresentable, [HeadlessPresentable]) throws -> Void)?
    var select: ((HeadlessPresentable, HeadlessPresentable) throws -> Void)?

    init<View>(_ presenter: HostPresenter<View>, resolve: @escaping (HeadlessPresentable) throws -> View) {
        if let hook = presenter.create { create = { try hook(resolve($0), $1) } }
        if let hook = presenter.update { update = { try hook(resolve($0), $1) } }
        if let hook = presenter.unwind { unwind = { try hook(resolve($0)) } }
        if let hook = presenter.presentModal { presentModal = { try hook(resolve($0), resolve($1)) } }
        if let hook = presenter.dismissModal { dismissModal = { try hook(resolve($0), resolve($1)) } }
        if let hook = presenter.setStack { setStack = { try hook(resolve($0), $1.map(resolve)) } }
        if let hook = presenter.setOptions { setOptions = { try hook(resolve($0), $1.map(resolve)) } }
        if let hook = presenter.select { select = { try hook(resolve($0), resolve($1)) } }
    }
}

/// The Swift presenters a host registered and bound; shared by reference with the script's
/// presenter, so a binding made after loading applies from the next operation on.
final class PresenterRegistry {
    /// Presenters scripts name (`presenter = "Name"`).
    var named: [String: ErasedPresenter] = [:]
    // Checked: skipping the check saved 0.8 % of a dispatch (76 of 9,186 instructions), under
    // the 2 % a field must save to go unchecked (docs/architecture.md).
    var bound: [PresenterTarget: ErasedPresenter] = [:]
    /// The app's own presentables, when the host has them (``ScriptHost``).
    var mirror: (any PresentableMirror)?

    /// The Swift presenter of a node of `tree`: the script's choice, then id, route name, kind.
    /// The route name is looked up only when there are bindings. Every plan operation asks, so
    /// the name is read here rather than through a closure from the caller: building one
    /// cost about 400 instructions per operation (`LunaBench dispatches none`, callgrind).
    func presenter(for node: RouteTree.Node, scriptName: String?, in tree: RouteTree) -> ErasedPresenter? {
        if let scriptName { return named[scriptName] }
        if bound.isEmpty { return nil }
        if let presenter = bound[.id(node.id)] { return presenter }
        if let route = node.route, let name = tree[route].name, let presenter = bound[.name(name)] { return presenter }
        return bound[.kind(node.kind)]
    }
}

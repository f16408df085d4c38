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
}

/// A presenter written in Swift and registered by name; scripts use it with
/// `presenter = "Name"`. Every hook is optional and runs after the host applied the
/// structural change to the headless presentable, like a Lua hook.
///
/// ```swift
/// var book = HostPresenter()
/// book.create = { view, context in view.title = "Book " + (context.params["id"] ?? "?") }
/// host.registerPresenter("BookScreen", book)
/// ```
public struct HostPresenter {
    public var create: ((HeadlessPresentable, PresenterContext) throws -> Void)?
    public var update: ((HeadlessPresentable, PresenterContext) throws -> Void)?
    public var unwind: ((HeadlessPresentable) throws -> Void)?
    public var presentModal: ((HeadlessPresentable, HeadlessPresentable) throws -> Void)?
    public var dismissModal: ((HeadlessPresentable, HeadlessPresentable) throws -> Void)?
    public var setStack: ((HeadlessPresentable, [HeadlessPresentable]) throws -> Void)?
    public var setOptions: ((HeadlessPresentable, [HeadlessPresentable]) throws -> Void)?
    public var select: ((HeadlessPresentable, HeadlessPresentable) throws -> Void)?

    public init() {}
}

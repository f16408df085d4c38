import NIOCore
import NIOPosix
import RouteCore

/// The live link: a debug build of your app follows a `luna serve` session — every change
/// made in the REPL, the inspector page, the script's editor or another device reaches your
/// own `Presenter` as the plan of that change, on the main actor; what your app's user does
/// (an interactive pop, a sheet swiped down, a tab or a row tapped) goes back to the session.
///
/// ```swift
/// #if DEBUG
/// let link = LunaLink(url: "http://192.168.1.20:8421/?token=…", idiom: .phone, presenter: presenter)
/// link.onEvent = { event in print(event) }
/// link.start()
/// #else
/// let router = Router(tree: try RouteTree(json: bundledJSON), presenter: presenter)
/// #endif
/// ```
///
/// The session runs the script — Lua never runs in the app — and sends, per change, the
/// operations with what a presenter needs: the node (from the tree of the app's idiom, sent
/// when it changes), the activation (route, parameters, query, fragment) and what hooks set
/// on the view (title, badge: through `ScriptViewable`). The link reconnects with backoff;
/// on reconnect it says what it holds, and gets only the difference.
@MainActor
public final class LunaLink<P: Presenter> {
    /// How the link connects and retries.
    public struct Options: Sendable {
        /// Connect again after the session went away (a restart, a network change).
        public var reconnect = true
        /// The first wait before connecting again; doubled after each failure, up to the maximum.
        public var initialBackoff: Duration = .milliseconds(200)
        public var maximumBackoff: Duration = .seconds(5)
        /// The largest message accepted (a tree of 10,000 routes is about 2 MB).
        public var maximumMessageBytes = 32 * 1024 * 1024

        public init() {}
    }

    /// What happened on the link.
    public enum Event: Sendable, Equatable {
        case connected
        /// A plan from the session was applied: the request now shown and the operations, as
        /// `create books/:id` lines (reflected ones, which the UI had made, marked `reflect`).
        case applied(request: String?, operations: [String])
        /// The session refused something the app sent (a request that does not match).
        case refused(String)
        /// A plan could not be applied (a presenter threw); the link starts over from what
        /// the app holds.
        case failed(String)
        case disconnected(String)
        /// A leave guard asks the user (`Discard this transfer?`): show it, then call
        /// ``confirm()`` or ``cancel()``. A swipe it asked about was put back first.
        case asked(question: String, node: String)
        /// The answer to ``canLeave(_:to:)``: what the node's leave guard would say now (nil:
        /// it has none, or the node is not shown).
        case leaveAnswer(node: String, answer: LeaveAnswer?)
    }

    public let presenter: P
    public let idiom: Device
    public var options: Options
    /// Told of every ``Event``, on the main actor.
    public var onEvent: ((Event) -> Void)?

    /// The tree of the app's idiom, as the session last sent it.
    public private(set) var tree: RouteTree?
    /// The presentables the link made through the presenter, by node id.
    public private(set) var presentables: [String: P.Presentable] = [:]
    /// The session's state as a restoration string (`RouterState.restorationString`): keep
    /// it to resume where the app was.
    public private(set) var state: String?
    /// The request shown.
    public private(set) var request: String?
    /// Whether the link is connected now.
    public var isConnected: Bool { connection != nil }

    private let address: Result<LinkAddress, LinkError>
    private var connection: LinkConnection?
    /// Set when the session and this app speak different live-link protocols: connecting again
    /// cannot help, so the link stops (``Event/disconnected(_:)`` says why).
    private var incompatible: String?
    private var task: Task<Void, Never>?
    /// The title and attributes last given to each presentable.
    private var decorations: [String: (title: String, attributes: [String: AttributeValue])] = [:]

    /// A link to the session at `url` — the URL `luna serve` prints (`http://HOST:PORT/?token=…`).
    public init(url: String, idiom: Device, presenter: P, options: Options = Options()) {
        self.presenter = presenter
        self.idiom = idiom
        self.options = options
        do { address = .success(try LinkAddress(url)) } catch { address = .failure(error) }
    }

    /// Connects (and keeps connecting, with ``Options/reconnect``) until ``stop()``.
    public func start() {
        guard task == nil else { return }
        task = Task { [weak self] in
            var backoff = self?.options.initialBackoff ?? .zero
            while !Task.isCancelled, let link = self {
                let connected = await link.connectOnce()
                guard link.options.reconnect, !Task.isCancelled, link.incompatible == nil else { break }
                if connected { backoff = link.options.initialBackoff }
                let maximum = link.options.maximumBackoff
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, maximum)
            }
        }
    }

    /// Disconnects and stops reconnecting. The presentables stay as they are.
    public func stop() {
        task?.cancel()
        task = nil
        connection?.close()
        connection = nil
    }

    /// The app's user went back (an interactive pop, a sheet swiped down): the UI already
    /// did it; the session follows and the next plan lists that change as reflected.
    @discardableResult public func back() -> Bool { send(.back) }

    /// The app's UI changed on its own (a tab tapped): the session records `request`.
    @discardableResult public func sync(_ request: String) -> Bool {
        send(.sync(request))
    }

    /// The app's user went back handing a value to the screen under (a picker's choice): the UI
    /// already went back; the session delivers `result` to the screen that shows again.
    @discardableResult public func back(result: [String: AttributeValue]) -> Bool {
        send(.returning(result))
    }

    /// The app closes its top sheet (a Close button, not a swipe: the session plans the
    /// dismissal): what it covered shows as it was.
    @discardableResult public func close() -> Bool {
        send(.close)
    }

    /// The app pushes a screen onto its top stack (a row that opens the same screen again,
    /// docs/dsl.md, "Push"): the plan comes back, with `setStack` listing the instances.
    @discardableResult public func push(_ request: String) -> Bool {
        send(.push(request))
    }

    /// The app asks the session to navigate (a row tapped): the plan comes back.
    @discardableResult public func dispatch(_ request: String) -> Bool {
        send(.dispatch(request))
    }

    /// The user answered a leave guard's question (``Event/asked(question:node:)``) yes: the
    /// session makes the change and its plan comes back.
    @discardableResult public func confirm() -> Bool { send(.confirm) }

    /// The user answered no: nothing changes.
    @discardableResult public func cancel() -> Bool { send(.cancel) }

    /// The app learned something its guards read (`session` checked): sets (nil: clears) the
    /// session's flag; the guards run again, and a gate waiting on it answers.
    @discardableResult public func setFlag(_ name: String, _ value: String?) -> Bool {
        send(.flag(name, value))
    }

    /// Asks what `node`'s leave guard would say now of a change to `request` (the answer comes
    /// as ``Event/leaveAnswer(node:answer:)``): an app disables a swipe it would refuse.
    @discardableResult public func canLeave(_ node: String, to request: String? = nil) -> Bool {
        send(.canLeave(node: node, request: request))
    }

    // MARK: Connection

    /// One connection: hello, then every message in order. Whether it connected at all.
    private func connectOnce() async -> Bool {
        let address: LinkAddress
        switch self.address {
        case .success(let parsed): address = parsed
        case .failure(let error):
            emit(.disconnected(error.message))
            task?.cancel()
            return false
        }
        let connection: LinkConnection
        do {
            connection = try await LinkConnection.open(
                address, group: MultiThreadedEventLoopGroup.singleton, maximumMessageBytes: options.maximumMessageBytes)
        } catch {
            emit(.disconnected((error as? LinkError)?.message ?? "cannot connect to \(address.hostHeader): \(error)"))
            return false
        }
        self.connection = connection
        connection.send(hello(state: state))
        emit(.connected)
        for await message in connection.messages {
            if Task.isCancelled { break }
            receive(message, on: connection)
        }
        if self.connection === connection { self.connection = nil }
        emit(.disconnected(incompatible ?? "the session closed the link"))
        return true
    }

    private func hello(state: String?) -> String {
        var fields = [
            "type": quoted("hello"), "protocol": String(LinkProtocol.version), "idiom": quoted(idiom.rawValue),
            "holds": "[" + presentables.keys.sorted().map(quoted).joined(separator: ",") + "]",
        ]
        if let state { fields["state"] = quoted(state) }
        return object(fields)
    }

    /// Sends a command in its JSON form, as a device's message (`type` names it).
    private func send(_ command: Command) -> Bool {
        guard let connection else {
            emit(.refused("the link is not connected"))
            return false
        }
        connection.send(command.message(key: "type"))
        return true
    }

    private func receive(_ text: String, on connection: LinkConnection) {
        guard let message = try? JSONValue.parse(text, maxDepth: 1024) else {
            return emit(.failed("the session sent a message that is not JSON"))
        }
        switch message["type"]?.string {
        case "plan":
            // A session of another protocol (none said is version 1): its plans would be
            // misread, so the link stops and says which versions met.
            let version = message["protocol"]?.integer ?? 1
            guard version == LinkProtocol.version else {
                return incompatibleSession(
                    "the session speaks the live-link protocol \(version); this app speaks \(LinkProtocol.version): "
                        + "use a luna and a LunaLink of the same release", on: connection)
            }
            do { try apply(message) } catch {
                emit(.failed((error as? LinkError)?.message ?? "\(error)"))
                // Start over from what the app holds: the session unwinds it all and builds again.
                connection.send(hello(state: nil))
            }
        case "confirm":
            emit(.asked(question: message["question"]?.string ?? "", node: message["node"]?.string ?? ""))
        case "reply":
            if let leave = message["leave"] {
                let answer: LeaveAnswer? =
                    switch leave["answer"]?.string {
                    case "go": .go
                    case "stay": .stay
                    case "ask": .ask(leave["question"]?.string ?? "")
                    default: nil
                    }
                return emit(.leaveAnswer(node: leave["node"]?.string ?? "", answer: answer))
            }
            if message["error"]?["kind"]?.string == "unsupportedProtocol" {
                return incompatibleSession(
                    message["error"]?["message"]?.string ?? "the session does not serve this app's protocol",
                    on: connection)
            }
            if message["ok"]?.bool == false {
                emit(.refused(message["error"]?["message"]?.string ?? "the session refused the request"))
            }
        case "error":
            emit(.failed(message["error"]?["message"]?.string ?? "the session failed"))
        default:
            break
        }
    }

    /// Stops the link: the session and the app cannot follow each other.
    private func incompatibleSession(_ why: String, on connection: LinkConnection) {
        incompatible = why
        task?.cancel()
        connection.close()
    }

    private func emit(_ event: Event) { onEvent?(event) }

    // MARK: Applying plans

    /// Applies one plan message: the nodes gone from the tree are set aside, the new tree
    /// taken, the operations applied in order (the UI's own changes reflected before the
    /// unwinds), then the set-aside presentables unwound with the nodes they were made for.
    private func apply(_ message: JSONValue) throws {
        let oldTree = tree
        var setAside: [(P.Presentable, RouteTree.Node)] = []
        for id in strings(message["vanished"]) {
            guard let presentable = presentables.removeValue(forKey: id) else { continue }
            decorations[id] = nil
            if let node = NodeID(existing: id).flatMap({ oldTree?[$0] }) { setAside.append((presentable, node)) }
        }
        if let exported = message["tree"] {
            do { tree = try RouteTree(exported: exported, hooks: RouteHooks(), requiringHooks: false) } catch {
                throw LinkError("the session's tree cannot be read: \(error.message)")
            }
        }
        guard let tree else { throw LinkError("the session sent a plan before its tree") }
        let reflected = list(message["reflected"]).compactMap(PlanOperation.init(json:))
        var lines: [String] = []
        var reflectedYet = reflected.isEmpty
        func reflectAll() {
            reflectedYet = true
            for operation in reflected {
                presenter.reflect(operation) { presentables[$0] }
                lines.append("reflect " + operation.text)
            }
        }
        for operation in list(message["operations"]) {
            guard let name = operation["op"]?.string, let id = operation["id"]?.string else {
                throw LinkError("an operation without op and id")
            }
            if !reflectedYet, name == "unwind" { reflectAll() }
            try apply(name, id, operation, tree: tree)
            lines.append(PlanOperation(json: operation)?.text ?? "\(name) \(id)")
        }
        if !reflectedYet { reflectAll() }
        for (presentable, node) in setAside {
            try presenter.unwind(presentable, node: node)
            lines.append("unwind \(node.id)")
        }
        state = message["state"]?.string
        request = message["request"]?.string
        emit(.applied(request: request, operations: lines))
    }

    private func apply(_ name: String, _ id: String, _ operation: JSONValue, tree: RouteTree) throws {
        func node(_ id: String) throws -> RouteTree.Node {
            guard let node = tree.presented(id) else {
                throw LinkError("no node '\(id)' in the session's tree")
            }
            return node
        }
        func existing(_ id: String) throws -> P.Presentable {
            guard let presentable = presentables[id] else {
                throw LinkError("no presentable for '\(id)' (the plan does not fit what the app holds)")
            }
            return presentable
        }
        switch name {
        case "create":
            let spec = try node(id)
            presentables[id] = try presenter.create(spec, activation: try Self.activation(operation["activation"]))
            decorations[id] = (spec.title, [:])
            try decorate(id, operation)
        case "update":
            guard let activation = try Self.activation(operation["activation"]) else { return }
            try presenter.update(try existing(id), node: try node(id), activation: activation)
        case "setStack":
            try presenter.setStack(
                try existing(id), node: try node(id), items: try strings(operation["items"]).map(existing))
        case "setOptions":
            try presenter.setOptions(
                try existing(id), node: try node(id), options: try strings(operation["options"]).map(existing))
        case "select":
            guard let index = operation["index"]?.integer, let option = operation["option"]?.string else {
                throw LinkError("select without index and option")
            }
            try presenter.select(try existing(id), node: try node(id), index: index, option: try existing(option))
        case "presentModal", "dismissModal":
            guard let modal = operation["modal"]?.string else { throw LinkError("\(name) without modal") }
            if name == "presentModal" {
                try presenter.presentModal(try existing(modal), over: try existing(id), node: try node(modal))
            } else {
                try presenter.dismissModal(try existing(modal), from: try existing(id), node: try node(modal))
            }
        case "unwind":
            try presenter.unwind(try existing(id), node: try node(id))
            presentables[id] = nil
            decorations[id] = nil
        case "deliver":
            guard let result = operation["result"].flatMap(AttributeValue.result(json:)) else {
                throw LinkError("deliver without a result (an object of strings, numbers and booleans)")
            }
            try presenter.deliver(try existing(id), node: try node(id), result: result)
        case "decorate":
            try decorate(id, operation)
        default:
            throw LinkError("unknown operation '\(name)'")
        }
    }

    /// Gives a presentable what the session's hooks set on its view, where it changed.
    private func decorate(_ id: String, _ operation: JSONValue) throws {
        guard let presentable = presentables[id] else { return }
        let old = decorations[id] ?? (title: "", attributes: [:])
        let title = operation["title"]?.string ?? old.title
        var attributes: [String: AttributeValue] = [:]
        if case .object(let members)? = operation["attributes"] {
            for (name, value) in members { attributes[name] = AttributeValue(json: value) }
        }
        decorations[id] = (title, attributes)
        guard let viewable = presentable as? any ScriptViewable else { return }
        if title != old.title { try viewable.setScriptAttribute("title", to: .string(title)) }
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) where old.attributes[name] != value {
            try viewable.setScriptAttribute(name, to: value)
        }
        for name in old.attributes.keys.sorted() where attributes[name] == nil {
            try viewable.setScriptAttribute(name, to: nil)
        }
    }

    // MARK: Reading messages

    private func list(_ value: JSONValue?) -> [JSONValue] {
        guard case .array(let items)? = value else { return [] }
        return items
    }

    private func strings(_ value: JSONValue?) -> [String] { list(value).compactMap(\.string) }

}

private func quoted(_ text: String) -> String { JSONWriter.quoted(text) }
private func object(_ fields: [String: String]) -> String { JSONWriter.object(fields) }

extension LunaLink {
    /// A screen's activation in a plan, or why it cannot be read.
    static func activation(_ value: JSONValue?) throws -> Activation? {
        do { return try Activation(json: value) } catch { throw LinkError("a bad request in a plan: \(error.message)") }
    }
}

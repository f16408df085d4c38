import LunaLive
import NIOCore
import RouteCore
import RouteScript

/// A message from a linked app (`/device`):
///
/// - `{"type":"hello","protocol":1,"idiom":"phone","holds":["stack:books",…],"state":"…"}` —
///   first, and again to start over: the live-link protocol it speaks (``LinkProtocol``; none
///   is version 1), the idiom, the presentables it holds (node ids) and the restoration string
///   of the state it last showed (both empty for a fresh app);
/// - `{"type":"back"}`, `{"type":"sync","request":"books"}` — its user went back (an interactive
///   pop, a sheet swiped down), or its UI changed on its own (a tab tapped): the session
///   follows, and the plan it sends back lists the structural operations the UI already made
///   as `reflected`;
/// - `{"type":"dispatch","request":"books/42"}` — a row tapped: the session navigates;
/// - `{"type":"confirm"}`, `{"type":"cancel"}` — the answer to a leave guard's question (a
///   `{"type":"confirm","question":…,"node":…}` message asked it);
/// - `{"type":"flag","name":"session","value":"valid"}` (`null` clears it) — the app learned
///   something its guards read (its session checked): the guards run again, and a gate
///   waiting on it answers;
/// - `{"type":"canLeave","node":"transfer","request":"accounts"}` — what the node's leave
///   guard would say now (the reply's `leave`: `go`, `stay` or `ask` with its `question`), so
///   the app can disable a swipe ahead.
///
/// Any may carry an `"id"`, which the reply repeats. Nothing else: a device never runs Lua
/// or reads a file.
struct DeviceRequest {
    enum Kind: String, CaseIterable { case hello, back, sync, dispatch, confirm, cancel, canLeave, flag }

    var id: Int?
    var kind: Kind
    var idiom: Device?
    var hello = DeviceLink.Hello()
    var request: String?
    /// The node a `canLeave` asks about.
    var node: String?
    /// A `flag` message's name and value (nil clears it).
    var flag: (name: String, value: String?)?
    /// The live-link protocol of the app's hello.
    var protocolVersion = 1

    /// The most node ids a hello may name (a presentation is a few dozen).
    static let maximumHolds = 4096

    init(parsing text: String) throws(PageRequestError) {
        let value = try PageRequestError.object(text)
        id = value["id"]?.integer
        let kind = try PageRequestError.choice(value, "type", Kind.self) { name, known in
            "unknown type '\(name)' (a device sends \(known))"
        }
        self.kind = kind
        switch kind {
        case .hello:
            switch value["protocol"] {
            case nil: protocolVersion = 1
            case let field?:
                guard let version = field.integer else { throw PageRequestError("hello's \"protocol\" is a number") }
                protocolVersion = version
            }
            guard let text = value["idiom"]?.string, let idiom = Device(rawValue: text) else {
                throw PageRequestError("hello needs an \"idiom\": phone or pad")
            }
            self.idiom = idiom
            if let holds = value["holds"] {
                guard case .array(let items) = holds, items.count <= Self.maximumHolds else {
                    throw PageRequestError("hello's \"holds\" is a list of at most \(Self.maximumHolds) node ids")
                }
                for item in items {
                    guard let id = item.string else {
                        throw PageRequestError("hello's \"holds\" are node ids (strings)")
                    }
                    hello.holds.append(id)
                }
            }
            switch value["state"] {
            case nil, .null?: break
            case .string(let state)?: hello.state = state
            default: throw PageRequestError("hello's \"state\" is a restoration string")
            }
        case .back, .confirm, .cancel: break
        case .flag:
            guard let name = value["name"]?.string, !name.isEmpty else {
                throw PageRequestError("flag needs a string \"name\"")
            }
            switch value["value"] {
            case nil, .null?: flag = (name, nil)
            case .string(let text)?: flag = (name, text.isEmpty ? nil : text)
            default: throw PageRequestError("flag's \"value\" is a string or null")
            }
        case .canLeave:
            guard let node = value["node"]?.string else { throw PageRequestError("canLeave needs a string \"node\"") }
            self.node = node
            self.request = value["request"]?.string
        case .sync, .dispatch:
            guard let request = value["request"]?.string else {
                throw PageRequestError("\(kind.rawValue) needs a string \"request\"")
            }
            self.request = request
        }
    }
}

/// The linked apps connected over WebSocket: their channels, and each one's link once it said
/// hello. Links are attached and read under the session's lock (that orders a device's first
/// plan before every later one).
final class Devices: Sendable {
    private let channels = Locked<[ObjectIdentifier: (channel: any Channel, link: DeviceLink?)]>([:])

    func add(_ channel: any Channel) { channels.withLock { $0[ObjectIdentifier(channel)] = (channel, nil) } }
    func remove(_ channel: any Channel) { channels.withLock { $0[ObjectIdentifier(channel)] = nil } }

    func attach(_ link: DeviceLink, to channel: any Channel) {
        channels.withLock { devices in
            guard devices[ObjectIdentifier(channel)] != nil else { return }
            devices[ObjectIdentifier(channel)] = (channel, link)
        }
    }

    func link(of channel: any Channel) -> DeviceLink? { channels.withLock { $0[ObjectIdentifier(channel)]?.link } }

    /// The devices that said hello.
    var linked: [(channel: any Channel, link: DeviceLink)] {
        channels.withLock { devices in devices.values.compactMap { entry in entry.link.map { (entry.channel, $0) } } }
    }

    var count: Int { channels.withLock { $0.count } }

    func closeAll() {
        for entry in channels.withLock({ Array($0.values) }) { entry.channel.close(promise: nil) }
    }
}

extension Inspector {
    /// Runs a device's message on the session (on the work queue); the reply, or nil when the
    /// message's answer is the plan already sent.
    func perform(_ request: DeviceRequest, device channel: any Channel) -> String? {
        switch request.kind {
        case .hello:
            guard let idiom = request.idiom else { return nil }
            // An app of another protocol is told so, naming both versions, and not served (its
            // plans would be misread).
            guard LinkProtocol.served.contains(request.protocolVersion) else {
                return Messages.failure(
                    id: request.id,
                    Failure(
                        kind: "unsupportedProtocol", message: LinkProtocol.unsupported(app: request.protocolVersion)))
            }
            let link = DeviceLink(idiom: idiom)
            session.link(link, hello: request.hello) { [devices] message in
                // Under the session's lock: no change can reach the device before this plan.
                devices.attach(link, to: channel)
                Clients.send(message, to: channel)
            }
            return nil
        case .back, .sync, .dispatch, .confirm, .cancel, .canLeave, .flag:
            guard let link = devices.link(of: channel) else {
                return Messages.invalidMessage(id: request.id, "say hello first (the device's idiom and what it holds)")
            }
            if request.kind == .canLeave {
                do {
                    let answer = try session.leaveAnswer(for: request.node ?? "", to: request.request)
                    return Messages.leave(id: request.id, node: request.node ?? "", answer)
                } catch {
                    return Messages.failure(id: request.id, error)
                }
            }
            let command: Command =
                switch request.kind {
                case .back: .back
                case .sync: .sync(request.request ?? "")
                case .confirm: .confirm
                case .cancel: .cancel
                case .flag: .flag(request.flag?.name ?? "", request.flag?.value)
                default: .dispatch(request.request ?? "")
                }
            do {
                // Only `back` and `sync` report what the UI already did.
                let view = try session.perform(
                    command, device: link, uiMadeIt: request.kind == .back || request.kind == .sync
                ) { message in Clients.send(message, to: channel) }
                if case .question(let text, let node) = view {
                    Clients.send(Messages.confirm(text: text, node: node), to: channel)
                }
                return Messages.reply(id: request.id, view, script: scriptName)
            } catch {
                return Messages.failure(id: request.id, error)
            }
        }
    }

    /// Every linked device's plan of a change (called under the session's lock).
    func sendToDevices(_ reader: SessionReader) {
        for (channel, link) in devices.linked {
            if let message = reader.linkMessage(for: link) { Clients.send(message, to: channel) }
        }
    }
}

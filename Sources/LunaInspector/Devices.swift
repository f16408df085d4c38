import LunaLive
import NIOCore
import RouteCore
import RouteScript

/// A message from a linked app (`/device`):
///
/// - `{"type":"hello","protocol":2,"idiom":"phone","holds":["stack:books",…],"state":"…"}` —
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
    var id: Int?
    /// A hello's contents; nil for a command.
    var hello: (idiom: Device, holds: DeviceLink.Hello, protocolVersion: Int)?
    /// Any other message: a command in its JSON form (`type` names the operation).
    var command: Command?

    /// The most node ids a hello may name (a presentation is a few dozen).
    static let maximumHolds = 4096

    init(parsing text: String) throws(PageRequestError) {
        let value = try PageRequestError.object(text)
        id = value["id"]?.integer
        guard value["type"]?.string == "hello" else {
            if let type = value["type"]?.string, CommandSpec.named(type)?.surfaces.contains(.device) != true {
                let known = ["hello"] + CommandSpec.all.filter { $0.surfaces.contains(.device) }.map(\.op)
                throw PageRequestError("unknown type '\(type)' (a device sends \(known.joined(separator: ", ")))")
            }
            do { command = try Command(message: value, key: "type", from: .device) } catch {
                throw PageRequestError(error.message)
            }
            return
        }
        var protocolVersion = 1
        if let field = value["protocol"] {
            guard let version = field.integer else { throw PageRequestError("hello's \"protocol\" is a number") }
            protocolVersion = version
        }
        guard let text = value["idiom"]?.string, let idiom = Device(rawValue: text) else {
            throw PageRequestError("hello needs an \"idiom\": phone or pad")
        }
        var holds = DeviceLink.Hello()
        if let list = value["holds"] {
            guard case .array(let items) = list, items.count <= Self.maximumHolds else {
                throw PageRequestError("hello's \"holds\" is a list of at most \(Self.maximumHolds) node ids")
            }
            for item in items {
                guard let id = item.string else { throw PageRequestError("hello's \"holds\" are node ids (strings)") }
                holds.holds.append(id)
            }
        }
        switch value["state"] {
        case nil, .null?: break
        case .string(let state)?: holds.state = state
        default: throw PageRequestError("hello's \"state\" is a restoration string")
        }
        hello = (idiom, holds, protocolVersion)
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
        if let hello = request.hello {
            // An app of another protocol is told so, naming both versions, and not served (its
            // plans would be misread).
            guard LinkProtocol.served.contains(hello.protocolVersion) else {
                return Messages.failure(
                    id: request.id,
                    Failure(
                        kind: "unsupportedProtocol", message: LinkProtocol.unsupported(app: hello.protocolVersion)))
            }
            let link = DeviceLink(idiom: hello.idiom)
            session.link(link, hello: hello.holds) { [devices] message in
                // Under the session's lock: no change can reach the device before this plan.
                devices.attach(link, to: channel)
                Clients.send(message, to: channel)
            }
            return nil
        }
        guard let command = request.command else { return nil }
        guard let link = devices.link(of: channel) else {
            return Messages.invalidMessage(id: request.id, "say hello first (the device's idiom and what it holds)")
        }
        return Messages.answer(id: request.id, script: scriptName, session: session) { () throws(Failure) -> View in
            // Only `back` and `sync` report what the UI already did.
            let uiMadeIt: Bool =
                switch command {
                case .back, .sync, .returning: true
                default: false
                }
            let view = try session.perform(command, device: link, uiMadeIt: uiMadeIt) { message in
                Clients.send(message, to: channel)
            }
            if case .question(let text, let node) = view {
                Clients.send(Messages.confirm(text: text, node: node), to: channel)
            }
            return view
        }
    }

    /// Every linked device's plan of a change (called under the session's lock).
    func sendToDevices(_ reader: SessionReader) {
        for (channel, link) in devices.linked {
            if let message = reader.linkMessage(for: link) { Clients.send(message, to: channel) }
        }
    }
}

import RouteCore
import RouteScript

/// One linked app (a device or simulator following the session, `LunaLink`): what it was
/// last sent — the tree of its idiom, what it shows, each presentable's title and attributes
/// — so that each change reaches it as the plan from there to the session's state.
///
/// Its fields are read and written only under the session's lock (``LiveSession/link(_:hello:)``
/// and the observers' ``SessionReader/linkMessage(for:)``).
// Unchecked: a link is shared by the network side (which keeps it per channel) and the session,
// but every stored property except the immutable `idiom` is read and written only inside
// `LiveSession`'s lock (`link(_:hello:deliver:)`, `perform(_:device:uiMadeIt:)` and observers
// called under it), so no two threads touch them at once. ThreadSanitizer runs the device and
// link tests in `scripts/test` (no report).
package final class DeviceLink: @unchecked Sendable {
    package let idiom: Device
    /// The tree the device was last sent (by identity), and its JSON (resent only when it changes).
    private var tree: RouteTree?
    private var treeText: String?
    /// What the device shows, on `tree`.
    private var presented: Presented?
    /// Set by a reconnect whose presentation was taken over: the next plan does not refresh
    /// kept screens (nothing changed for them), only a reload does.
    private var resuming = false
    /// The title and attributes last sent per node id.
    private var decorations: [String: Decoration] = [:]
    /// Set while a `back` or `sync` of this device runs: its UI already made the structural
    /// change, so the next plan carries those operations as `reflected`.
    package var uiMadeNextChange = false
    /// Set when the device's UI made a change a leave guard then refused or asked about: the
    /// screens the UI took away but still holds (no `unwind` was sent). The next plan puts
    /// them back with structural operations only, no `create`.
    private var heldByUI: Set<String> = []

    package init(idiom: Device) { self.idiom = idiom }

    struct Decoration: Equatable {
        var title: String
        var attributes: [String: AttributeValue]
    }

    /// What a device says when it connects: the presentables it holds (node ids) and the
    /// state it last showed (a restoration string), both empty for a fresh app.
    package struct Hello: Sendable, Equatable {
        package var holds: [String]
        package var state: String?
        package init(holds: [String] = [], state: String? = nil) {
            self.holds = holds
            self.state = state
        }
    }

    /// Starts over from what the device says it holds: its last state's presentation when
    /// that is exactly what it holds (a reconnect: only the difference follows), else nothing
    /// (everything it holds is unwound and the state built up again).
    func start(_ hello: Hello) -> [String] {
        tree = nil
        treeText = nil
        decorations = [:]
        presented = nil
        guard let text = hello.state, let saved = try? RouterState(restoring: text) else { return hello.holds }
        var ids: [String] = []
        saved.presented?.forEach { ids.append($0.node.rawValue) }
        guard Set(ids) == Set(hello.holds), ids.count == hello.holds.count else { return hello.holds }
        presented = saved.presented
        resuming = true
        return []
    }

    /// The message that takes the device from what it was sent to `host`'s state (nil when
    /// nothing changed for it): the tree when it changed, the nodes it must unwind itself
    /// (gone from the tree), the plan with each operation's details, and the state to resume
    /// from.
    func message(host: RouteScriptHost, reset: [String] = [], export: (RouteTree) -> String) -> String? {
        guard let current = host.routeTree else { return nil }
        let state = host.state
        var vanished = reset
        var treeField: String?
        let plan: Plan
        if tree === current {
            plan = Reducer.plan(from: presented, to: state.presented, tree: current)
        } else {
            // Another tree (a reload, the first message): by identity, as a reload reconciles.
            let text = export(current)
            if text != treeText { treeField = text }
            presented?.forEach { item in
                if current[item.node]?.kind != item.kind { vanished.append(item.node.rawValue) }
            }
            plan = Reducer.plan(fromKept: presented, to: state.presented, tree: current, refreshing: !resuming)
            resuming = false
            treeText = text
            tree = current
        }
        var operations: [String] = []
        var reflected: [String] = []
        // Each screen's activation and the nodes in pre-order (a presentation is small).
        var activations: [String: Activation] = [:]
        var order: [NodeID] = []
        state.presented?.forEach { item in
            order.append(item.node)
            if case .screen(let node, let activation?, _) = item { activations[node.rawValue] = activation }
        }
        for operation in plan.operations {
            // A screen the UI took away itself and still holds is put back, not made again.
            if case .create(let id) = operation, heldByUI.contains(id) { continue }
            let node = NodeID(existing: operation.id).flatMap { current[$0] }
            var fields: [String: String] = [:]
            switch operation {
            case .create(let id):
                if let node { fields["kind"] = JSONWriter.quoted(node.kind.rawValue) }
                let decoration = self.decoration(id, host: host, node: node)
                fields["title"] = JSONWriter.quoted(decoration.title)
                fields["attributes"] = Self.json(decoration.attributes)
                decorations[id] = decoration
                if let activation = activations[id] {
                    fields["activation"] = activation.json(route: node?.routeText)
                }
            case .update(let id):
                if let activation = activations[id] {
                    fields["activation"] = activation.json(route: node?.routeText)
                }
            case .unwind(let id):
                decorations[id] = nil
            default: break
            }
            let text = Self.json(operation, fields)
            switch operation {
            case .create, .update, .unwind, .deliver: operations.append(text)
            case .setStack, .setOptions, .select, .presentModal, .dismissModal:
                if uiMadeNextChange { reflected.append(text) } else { operations.append(text) }
            }
        }
        uiMadeNextChange = false
        heldByUI = []
        for id in vanished { decorations[id] = nil }
        // What hooks set on presentables (a title, a badge) since the last message.
        for node in order {
            let id = node.rawValue
            let decoration = self.decoration(id, host: host, node: current[node])
            guard decorations[id] != decoration else { continue }
            decorations[id] = decoration
            operations.append(
                Self.json(
                    "decorate", id,
                    ["title": JSONWriter.quoted(decoration.title), "attributes": Self.json(decoration.attributes)]))
        }
        presented = state.presented
        guard treeField != nil || !vanished.isEmpty || !operations.isEmpty || !reflected.isEmpty else { return nil }
        var fields: [String: String] = [
            "type": JSONWriter.quoted("plan"), "protocol": String(LinkProtocol.version),
            "idiom": JSONWriter.quoted(idiom.rawValue), "operations": "[" + operations.joined(separator: ",") + "]",
            "reflected": "[" + reflected.joined(separator: ",") + "]",
            "vanished": JSONWriter.array(vanished.map(JSONWriter.quoted)),
            "state": JSONWriter.quoted(state.restorationString),
            "request": state.request.map { JSONWriter.quoted($0.original) } ?? "null",
        ]
        if let treeField { fields["tree"] = treeField }
        return JSONWriter.object(fields)
    }

    /// The device's UI made a change the session did not (a leave guard refused it or asked
    /// first): it shows `shown` now, still holding what it took away, so the next message puts
    /// back what the UI removed.
    func uiMoved(to shown: Presented?) {
        var before: Set<String> = []
        presented?.forEach { before.insert($0.node.rawValue) }
        var after: Set<String> = []
        shown?.forEach { after.insert($0.node.rawValue) }
        heldByUI = before.subtracting(after)
        presented = shown
    }

    private func decoration(_ id: String, host: RouteScriptHost, node: RouteTree.Node?) -> Decoration {
        if let presentable = host.presentable(id) {
            return Decoration(title: presentable.title, attributes: presentable.attributes)
        }
        return Decoration(title: node?.title ?? id, attributes: [:])
    }

    static func json(_ operation: PlanOperation, _ extra: [String: String]) -> String {
        guard !extra.isEmpty else { return operation.json }
        // `{"op":…,"id":…` then the operation's own fields and the details.
        let base = operation.json.dropLast()
        return base + ","
            + extra.sorted { $0.key < $1.key }.map { JSONWriter.quoted($0.key) + ":" + $0.value }
            .joined(separator: ",") + "}"
    }

    static func json(_ op: String, _ id: String, _ fields: [String: String]) -> String {
        "{\"op\":\(JSONWriter.quoted(op)),\"id\":\(JSONWriter.quoted(id))"
            + fields.sorted { $0.key < $1.key }.map { "," + JSONWriter.quoted($0.key) + ":" + $0.value }.joined() + "}"
    }

    static func json(_ attributes: [String: AttributeValue]) -> String {
        JSONWriter.object(attributes.mapValues(\.json))
    }
}

extension SessionState {
    /// The host that shows the session's state on `idiom`'s tree: the session's own, or a
    /// twin loaded for that idiom and kept in step with it.
    func host(for idiom: Device) throws -> RouteScriptHost {
        if idiom == host.options.device { return host }
        if let twin = twins[idiom] { return twin }
        let twin = try host.twin(for: idiom)
        twins[idiom] = twin
        try follow(twin, fresh: true)
        return twin
    }

    /// Brings the twins (hosts of other idioms) in step with the session: the same flags,
    /// reloaded when the session's script was, and showing the session's request — dispatched
    /// on their own trees, so each keeps what its idiom's tree remembers (a pad's tab stacks),
    /// as a session of that idiom would. A twin that cannot follow (its idiom's tree refuses
    /// the request) keeps its last state and says why in ``twinErrors``.
    /// A tree's exported JSON, made once per tree for all linked devices of its idiom.
    func exported(_ tree: RouteTree) -> String {
        if let last = exportedTree, last.tree === tree { return last.text }
        let text = tree.exportJSON()
        exportedTree = (tree, text)
        return text
    }

    func keepTwinsInStep(reloaded: Bool) {
        for (idiom, twin) in twins {
            if idiom == host.options.device {
                twins[idiom] = nil
                continue
            }
            do {
                if reloaded { try twin.reload() }
                try follow(twin)
                twinErrors[idiom] = nil
            } catch {
                twinErrors[idiom] = Failure(error).message
            }
        }
    }

    /// A new twin starts from the session's state (restored on its tree); then it follows the
    /// session's request.
    private func follow(_ twin: RouteScriptHost, fresh: Bool = false) throws {
        for (name, value) in host.options.flags where twin.options.flags[name] != value {
            _ = try? twin.setFlag(name, value)
        }
        for name in twin.options.flags.keys where host.options.flags[name] == nil {
            _ = try? twin.setFlag(name, nil)
        }
        if fresh {
            _ = try twin.restore(restoring: host.state.restorationString)
            return
        }
        guard let request = host.state.request?.original else {
            if twin.state.presented != nil { _ = try twin.restore(.initial) }
            return
        }
        // The host accepted the request: its twin follows it.
        if twin.state.request?.original != request { _ = try twin.dispatch(request, reresolving: true) }
    }
}

extension SessionReader {
    /// The message that brings a linked device up to date (nil when nothing changed for it).
    package func linkMessage(for link: DeviceLink) -> String? {
        do {
            let host = try state.host(for: link.idiom)
            // The idiom's tree could not follow the change: the device keeps what it shows, and
            // is told why.
            if let why = state.twinErrors[link.idiom] {
                return LiveSession.linkFailure(
                    Failure(kind: "script", message: "the \(link.idiom.rawValue) tree cannot follow: \(why)"))
            }
            return link.message(host: host, export: state.exported)
        } catch {
            return LiveSession.linkFailure(Failure(error))
        }
    }
}

extension LiveSession {
    /// A device connected (or reconnected): `deliver` gets the message that takes it from what
    /// it holds to the session's state, under the session's lock (so the caller can start
    /// sending it later changes before any can happen).
    package func link(_ link: DeviceLink, hello: DeviceLink.Hello, deliver: (String) -> Void) {
        state.withLock { state in
            let reset = link.start(hello)
            do {
                deliver(
                    link.message(host: try state.host(for: link.idiom), reset: reset, export: state.exported)
                        ?? Self.emptyPlan(link, state: state))
            } catch {
                deliver(Self.linkFailure(Failure(error)))
            }
        }
    }

    /// Runs a linked device's command (those the command table allows a device); with
    /// `uiMadeIt` the device's UI already made the structural change, and its next plan says
    /// so. When a leave guard refuses that change or asks first, `deliver` gets the plan that
    /// puts back what the UI removed (the one case where a `sync` replays structure).
    package func perform(
        _ command: Command, device link: DeviceLink, uiMadeIt: Bool, deliver: (String) -> Void = { _ in }
    ) throws(Failure) -> View {
        do {
            return try state.withLock { state in
                link.uiMadeNextChange = uiMadeIt
                defer { link.uiMadeNextChange = false }
                func putBack() {
                    let change: AskedChange
                    switch command {
                    case .back: change = .back
                    case .returning(let result): change = .returning(result)
                    case .sync(let request): change = .sync(request)
                    default: return
                    }
                    guard let host = try? state.host(for: link.idiom),
                        let shown = try? host.presentation(after: change)
                    else { return }
                    link.uiMadeNextChange = false
                    link.uiMoved(to: shown)
                    if let message = link.message(host: host, export: state.exported) { deliver(message) }
                }
                do {
                    let view = try state.perform(command, origin: .device, forms: .json)
                    if uiMadeIt, case .question = view { putBack() }
                    return view
                } catch let error as RouteError where uiMadeIt && error.kind == .leaveRefused {
                    putBack()
                    throw error
                }
            }
        } catch {
            throw Failure(error)
        }
    }

    private static func emptyPlan(_ link: DeviceLink, state: SessionState) -> String {
        let host = (try? state.host(for: link.idiom)) ?? state.host
        return JSONWriter.object([
            "type": JSONWriter.quoted("plan"), "protocol": String(LinkProtocol.version),
            "idiom": JSONWriter.quoted(link.idiom.rawValue), "operations": "[]",
            "reflected": "[]", "vanished": "[]", "state": JSONWriter.quoted(host.state.restorationString),
            "request": host.state.request.map { JSONWriter.quoted($0.original) } ?? "null",
        ])
    }

    static func linkFailure(_ failure: Failure) -> String {
        JSONWriter.object(["type": JSONWriter.quoted("error"), "error": failure.errorJSON])
    }
}

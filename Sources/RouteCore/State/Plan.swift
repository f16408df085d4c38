/// One presenter operation. Ids are node ids, unique in a tree.
public enum PlanOperation: Equatable, Sendable {
    /// Make the node's presentable. For an activated endpoint the presenter also runs its
    /// first `update`.
    case create(id: String)
    /// An active endpoint got new parameters, query or fragment (or was activated for the
    /// first time after being created as an unselected junction option).
    case update(id: String)
    case setStack(id: String, items: [String])
    case setOptions(id: String, options: [String])
    /// A junction's or switcher's selection; `index` among its declared children.
    case select(id: String, index: Int, option: String)
    case presentModal(id: String, modal: String)
    case dismissModal(id: String, modal: String)
    /// The presentable left the active state and is discarded.
    case unwind(id: String)
    /// A value handed back to the screen that shows again when the one above it closed
    /// (``Router/back(result:)``): delivered once, last in its plan (``Presenter/deliver(_:node:result:)``).
    case deliver(id: String, result: [String: AttributeValue])

    public var name: String {
        switch self {
        case .create: "create"
        case .update: "update"
        case .setStack: "setStack"
        case .setOptions: "setOptions"
        case .select: "select"
        case .presentModal: "presentModal"
        case .dismissModal: "dismissModal"
        case .unwind: "unwind"
        case .deliver: "deliver"
        }
    }

    public var id: String {
        switch self {
        case .create(let id), .update(let id), .setStack(let id, _), .setOptions(let id, _), .select(let id, _, _),
            .presentModal(let id, _), .dismissModal(let id, _), .unwind(let id), .deliver(let id, _):
            id
        }
    }

    /// The operation as a JSON object: `op` and `id` first (as docs/cli.md's JSON output shows them), then the
    /// other fields in sorted order.
    public var json: String {
        var rest: [String: String] = [:]
        switch self {
        case .setStack(_, let items): rest["items"] = JSONWriter.array(items.map(JSONWriter.quoted))
        case .setOptions(_, let options): rest["options"] = JSONWriter.array(options.map(JSONWriter.quoted))
        case .select(_, let index, let option):
            rest["index"] = String(index)
            rest["option"] = JSONWriter.quoted(option)
        case .presentModal(_, let modal), .dismissModal(_, let modal): rest["modal"] = JSONWriter.quoted(modal)
        case .deliver(_, let result): rest["result"] = PlanOperation.json(result)
        default: break
        }
        let fields = rest.sorted { $0.key < $1.key }.map { JSONWriter.quoted($0.key) + ":" + $0.value }
        return "{\"op\":\(JSONWriter.quoted(name)),\"id\":\(JSONWriter.quoted(id))"
            + fields.map { "," + $0 }.joined() + "}"
    }

    /// One line of text: `setStack stack:books [books, books/:id]`.
    public var text: String {
        switch self {
        case .create(let id), .update(let id), .unwind(let id): "\(name) \(id)"
        case .setStack(let id, let items): "\(name) \(id) [\(items.joined(separator: ", "))]"
        case .setOptions(let id, let options): "\(name) \(id) [\(options.joined(separator: ", "))]"
        case .select(let id, let index, let option): "\(name) \(id) \(index) (\(option))"
        case .presentModal(let id, let modal), .dismissModal(let id, let modal): "\(name) \(id) \(modal)"
        case .deliver(let id, let result): "\(name) \(id) \(PlanOperation.text(result))"
        }
    }

    /// A result as JSON, its keys sorted: `{"amount":50,"payee":"ada"}`.
    public static func json(_ result: [String: AttributeValue]) -> String {
        "{"
            + result.sorted { $0.key < $1.key }.map { JSONWriter.quoted($0.key) + ":" + $0.value.json }
            .joined(separator: ",") + "}"
    }

    /// A result as one line of text, its keys sorted: `{amount=50, payee=ada}`.
    public static func text(_ result: [String: AttributeValue]) -> String {
        "{" + result.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + "}"
    }

    /// The most bytes a result may take as JSON.
    public static let maximumResultBytes = 4096
}

/// The ordered operations that take the presentable tree from one state to the next.
public struct Plan: Equatable, Sendable {
    /// The plan of a dispatch that only re-activated one screen (a new parameter, query or
    /// fragment on the screen shown): `update` of that node, held without an array — the
    /// node's identity (nil otherwise).
    @usableFromInline var soleUpdate: NodeID?
    /// The operations, when not ``soleUpdate``.
    @usableFromInline var list: [PlanOperation]

    public var operations: [PlanOperation] {
        get {
            guard let soleUpdate else { return list }
            return [.update(id: soleUpdate.rawValue)]
        }
        set {
            soleUpdate = nil
            list = newValue
        }
    }

    public init(_ operations: [PlanOperation] = []) {
        soleUpdate = nil
        list = operations
    }

    /// `update` of `node`, alone.
    init(updating node: NodeID) {
        soleUpdate = node
        list = []
    }

    public var isEmpty: Bool { soleUpdate == nil && list.isEmpty }

    public var json: String { JSONWriter.array(operations.map(\.json)) }

    public static func == (lhs: Plan, rhs: Plan) -> Bool {
        if let left = lhs.soleUpdate, let right = rhs.soleUpdate { return left == right }
        return lhs.operations == rhs.operations
    }
}

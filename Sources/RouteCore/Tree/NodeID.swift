/// A node's identity: its id (`stack:books`, `books/:id`, or the `id` a script gives). Unlike a
/// node's position in ``RouteTree/nodes``, it means the same node in every tree built from the
/// same declarations, so what is on screen (``Presented``), the presentables and a reload are
/// keyed by it.
///
/// Each distinct id string is stored once, the first time a tree declares it (and kept for the
/// process's life: a few dozen bytes per distinct id); an identity is a pointer to it, so
/// identities compare and hash as pointers and are copied without reference counting — a
/// dispatch looks nodes up by identity without comparing strings. Ids are told apart by their
/// UTF-8 bytes (`Café` precomposed and decomposed are two ids), as a tree's text is.
///
/// An id that arrives from outside — a restoration string, a linked device, a page — is only
/// looked up (``init(existing:)``), never stored: a peer cannot make the process keep ids no
/// tree declares.
public struct NodeID: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// One distinct id string, made once and kept by the process-wide table for good, so an
    /// identity can point at it without owning it.
    @usableFromInline
    final class Interned: Sendable {
        let rawValue: String
        init(_ rawValue: String) { self.rawValue = rawValue }
    }

    /// Copying an identity copies this pointer: no reference counting (the table owns it).
    @usableFromInline let interned: Unmanaged<Interned>

    public var rawValue: String { interned._withUnsafeGuaranteedRef { $0.rawValue } }

    /// The identity of `rawValue`, stored the first time (for ids a tree declares; an id from
    /// outside is looked up with ``init(existing:)``).
    public init(_ rawValue: String) { self = Self.intern(CollectionOfOne(rawValue))[0] }
    public init(stringLiteral value: String) { self.init(value) }

    /// The identity of an id some tree declared, or of a pushed instance of one (`id#N`, N
    /// from 2 to ``maximumInstances``); nil for any other (nothing else is stored: a peer can
    /// make the process keep at most that many instance names per declared id).
    public init?(existing rawValue: String) {
        if let interned = Self.table.withLock({ $0[Key(rawValue)] }) {
            self.init(interned)
            return
        }
        // A declared id never reads as an instance name, so the base is one as it stands.
        guard let (base, number) = Self.instanceParts(rawValue), Self.instanceParts(String(base)) == nil,
            let interned = Self.table.withLock({ $0[Key(String(base))] })
        else { return nil }
        self = NodeID(interned).instance(number)
    }

    // MARK: Pushed instances

    /// How many instances of one screen a presentation may hold (`id`, then `id#2` … `id#64`).
    public static let maximumInstances = 64

    /// The `number`-th instance of this node (`books/:id#2`); the node itself for 1. `number`
    /// is clamped to 1…``maximumInstances``.
    public func instance(_ number: Int) -> NodeID {
        let number = min(max(number, 1), Self.maximumInstances)
        if number == 1 { return self }
        return Self.intern(CollectionOfOne(rawValue + "#" + String(number)))[0]
    }

    /// For a pushed instance's identity (`books/:id#2`): the node's identity and the number
    /// (2 or more); nil for a node's own identity.
    public var instance: (base: NodeID, number: Int)? {
        guard let (base, number) = Self.instanceParts(rawValue),
            let interned = Self.table.withLock({ $0[Key(String(base))] })
        else { return nil }
        return (NodeID(interned), number)
    }

    /// The id of the node an id names: `id` itself, or for a pushed instance's name
    /// (`books/:id#2`) the node's (`books/:id`). Nothing is looked up or stored.
    public static func nodeText(of id: String) -> String {
        instanceParts(id).map { String($0.base) } ?? id
    }

    /// This identity's node: itself, or for a pushed instance the node it shows.
    public var base: NodeID { instance?.base ?? self }

    /// `text` read as an instance name: the text before the last `#` and the number after it
    /// (2 … ``maximumInstances``, no leading zero); nil when it is not one. A declared id may
    /// not read as one (a load error), so the reading is unambiguous.
    static func instanceParts(_ text: String) -> (base: Substring, number: Int)? {
        guard let hash = text.lastIndex(of: "#") else { return nil }
        let digits = text[text.index(after: hash)...]
        guard !digits.isEmpty, digits.count <= 3, digits.first != "0", digits.utf8.allSatisfy(isDigit),
            let number = Int(digits), number >= 2, number <= maximumInstances, hash != text.startIndex
        else { return nil }
        return (text[..<hash], number)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }

    /// Whether a declared id would read as an instance name (`name#2`): ids end otherwise.
    static func readsAsInstance(_ id: String) -> Bool {
        guard let hash = id.lastIndex(of: "#") else { return false }
        let digits = id[id.index(after: hash)...]
        return !digits.isEmpty && digits.utf8.allSatisfy(isDigit)
    }

    /// The identity of an id no tree declares (its text is empty, which no node's id is): what
    /// an unknown id from outside reads as, found in no tree.
    public static let unknown = NodeID("")

    private init(_ interned: Interned) { self.interned = Unmanaged.passUnretained(interned) }

    /// The identities of `ids`, under one acquisition of the table's lock.
    static func intern(_ ids: some Collection<String>) -> [NodeID] {
        table.withLock { table in
            ids.map { id in
                let key = Key(id)
                if let interned = table[key] { return NodeID(interned) }
                let interned = Interned(id)
                table[key] = interned
                return NodeID(interned)
            }
        }
    }

    /// An id as the table keys it: by its bytes.
    private struct Key: Hashable {
        let text: String
        init(_ text: String) { self.text = text }
        static func == (lhs: Key, rhs: Key) -> Bool { Pattern.sameBytes(lhs.text, rhs.text) }
        func hash(into hasher: inout Hasher) { Pattern.hashBytes(0, text, into: &hasher) }
    }

    private static let table = Locked<[Key: Interned]>([:])

    @inlinable public static func == (lhs: NodeID, rhs: NodeID) -> Bool {
        lhs.interned.toOpaque() == rhs.interned.toOpaque()
    }
    @inlinable public func hash(into hasher: inout Hasher) { hasher.combine(interned.toOpaque()) }
    /// The identity as a number, for ordering lookups (not stable between runs).
    @usableFromInline var address: UInt { UInt(bitPattern: interned.toOpaque()) }
    public var description: String { rawValue }
    public static func < (lhs: NodeID, rhs: NodeID) -> Bool { lhs.rawValue < rhs.rawValue }
}

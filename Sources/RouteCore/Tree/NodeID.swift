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

    /// The identity of an id some tree declared; nil for any other (nothing is stored).
    public init?(existing rawValue: String) {
        guard let interned = Self.table.withLock({ $0[Key(rawValue)] }) else { return nil }
        self.init(interned)
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

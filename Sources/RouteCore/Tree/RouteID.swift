/// A route's number in its tree: where its endpoint is in ``RouteTree/endpoints`` and its
/// definition in the tree's ``Matcher``. Valid in that tree only (a reload may number routes
/// anew); a node's lasting identity is its ``NodeID``.
public struct RouteID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let index: Int
    @inlinable public init(_ index: Int) { self.index = index }
    public var description: String { "route \(index)" }
    @inlinable public static func < (lhs: RouteID, rhs: RouteID) -> Bool { lhs.index < rhs.index }
}

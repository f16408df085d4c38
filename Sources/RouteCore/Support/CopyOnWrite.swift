/// A value kept behind one reference, copied only when written while shared: value
/// semantics where a copy is one retain. `Activation`, `Request` and `RouterState` sit on it
/// (they are copied into states, presentations and presentables on every dispatch).
@usableFromInline
struct CopyOnWrite<Value: Sendable>: Sendable {
    /// Written only while uniquely referenced, so sharing it between copies is safe.
    @usableFromInline
    final class Box: @unchecked Sendable {
        /// Unchecked: written only through `_modify` on a unique box, read in place. With
        /// `Router`'s two fields below, the checks cost a dispatch 6 % (`scripts/bench --only
        /// dispatch`, same run, 2026-11-24: 2108 → 2238 ns; 4 % with a Lua hook).
        @exclusivity(unchecked) @usableFromInline var value: Value
        init(_ value: Value) { self.value = value }
    }

    @usableFromInline var box: Box

    init(_ value: Value) { box = Box(value) }

    @usableFromInline
    var value: Value {
        get { box.value }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.value) }
            yield &box.value
        }
    }

    /// Whether both share one box (then they are equal without comparing).
    func isIdentical(to other: CopyOnWrite) -> Bool { box === other.box }
}

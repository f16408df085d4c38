internal import CLua
internal import CLuaShims

/// A table, function, userdata or thread kept alive in a VM's registry for Swift.
///
/// Released deterministically: when the last Swift reference goes away, or at once with
/// ``release()``. Using a released reference throws ``LuaError/Kind/released``.
///
/// ```swift
/// let f = try vm.run("return function(x) return x * 2 end", chunkName: "=f")[0]
/// let result = try vm.call(f, [.integer(21)])   // [.integer(42)]
/// f.reference?.release()
/// ```
public final class LuaReference {
    /// The state it belongs to. A strong reference to a small token, not a weak one to the
    /// VM: a weak reference would move the VM's reference counts to a side table, and every
    /// retain and release of the VM (several per call) would take the slow path.
    let owner: LuaStateToken
    private(set) var ref: Int32
    /// A small number that tells references apart in descriptions.
    public let id: Int32

    init(owner: LuaStateToken, ref: Int32) {
        self.owner = owner
        self.ref = ref
        self.id = ref
    }

    /// Whether ``release()`` was called (or the VM closed).
    public var isReleased: Bool { ref == LUA_NOREF || owner.vm == nil }

    /// Drops the registry entry now; the value can then be collected by Lua.
    public func release() {
        guard ref != LUA_NOREF else { return }
        owner.vm?.unreference(ref)
        ref = LUA_NOREF
    }

    deinit { release() }

    /// The registry index to push, when the reference belongs to the open state `token` names.
    @inline(__always)
    func registryIndex(in token: LuaStateToken, isClosed: Bool) throws -> Int32 {
        // A closed state's references are released.
        guard owner === token else {
            throw LuaError(kind: .released, message: "the Lua reference belongs to another state")
        }
        guard ref != LUA_NOREF, !isClosed else { throw LuaError.releasedReference }
        return ref
    }
}

/// Names a VM while it is open: references hold it strongly and reach their VM through it.
final class LuaStateToken {
    /// The VM, until it closes (``LuaVM/close()`` clears it before the state goes away, and
    /// a VM always closes before it is freed), so the unowned reference is never dangling
    /// when read.
    private unowned(unsafe) var state: LuaVM?

    /// The VM, once its state is open.
    func attach(_ vm: LuaVM) { state = vm }

    var vm: LuaVM? { state }

    func invalidate() { state = nil }
}

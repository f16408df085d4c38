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
    weak var vm: LuaVM?
    private(set) var ref: Int32
    /// A small number that tells references apart in descriptions.
    public let id: Int32

    init(vm: LuaVM, ref: Int32) {
        self.vm = vm
        self.ref = ref
        self.id = ref
    }

    /// Whether ``release()`` was called (or the VM closed).
    public var isReleased: Bool { ref == LUA_NOREF || vm?.isClosed ?? true }

    /// Drops the registry entry now; the value can then be collected by Lua.
    public func release() {
        guard ref != LUA_NOREF else { return }
        vm?.unreference(ref)
        ref = LUA_NOREF
    }

    deinit { release() }
}

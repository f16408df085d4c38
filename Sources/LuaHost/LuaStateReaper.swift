internal import CLuaShims
import Dispatch

/// Frees closed Lua states off the caller's thread (``LuaVM/closeFreeingInBackground(reaper:)``),
/// one at a time on a background queue of its own.
///
/// ```swift
/// oldVM.closeFreeingInBackground()          // returns at once; the state is freed meanwhile
/// LuaStateReaper.shared.waitUntilFreed()    // a test or benchmark measuring memory waits here
/// ```
public final class LuaStateReaper: Sendable {
    /// A closed state and what must live until it is freed: the host functions its closures
    /// point to and the classes of its userdata. Unchecked Sendable, safe: it is made by
    /// ``LuaVM/closeFreeingInBackground(reaper:)`` after the VM is marked closed and its
    /// reference token invalidated (the VM never touches its state again: every operation
    /// checks that first) and has let go of the arrays, so no other thread can reach what it
    /// holds; it is handed to the queue
    /// once, and only the queue touches it (`run`, once), or the closing thread itself when
    /// the reaper is full. (The checked `Sendable` cannot be had: it holds the raw Lua state
    /// pointer and non-Sendable host function boxes, whose ownership moves here whole.)
    final class Teardown: @unchecked Sendable {
        private let state: OpaquePointer
        private var functions: [HostFunctionBox]
        private var classes: [LuaClass]

        init(state: OpaquePointer, functions: [HostFunctionBox], classes: [LuaClass]) {
            self.state = state
            self.functions = functions
            self.classes = classes
        }

        /// Frees the state (`lua_close`, §4.6, [-0, +0, -]: runs the pending finalizers, which
        /// release the host objects, then frees every object), then what it needed.
        func run() {
            clua_close(state)
            functions.removeAll()
            classes.removeAll()
        }
    }

    /// The reaper ``LuaVM/closeFreeingInBackground(reaper:)`` uses unless told another.
    public static let shared = LuaStateReaper()

    private let queue = DispatchQueue(label: "luna.lua-state-reaper", qos: .utility)
    /// States waiting or being freed: bounded, so that states closed faster than they are
    /// freed (a script saved in a loop) do not pile up in memory.
    private let slots: DispatchSemaphore
    private let pending = DispatchGroup()

    /// A reaper that lets `limit` states wait or be freed at once; past that a state is freed
    /// on the thread that closes it.
    public init(limit: Int = 2) { slots = DispatchSemaphore(value: max(0, limit)) }

    func free(_ teardown: Teardown) {
        guard slots.wait(timeout: .now()) == .success else {
            teardown.run()
            return
        }
        let slots = self.slots
        queue.async(group: pending) {
            teardown.run()
            slots.signal()
        }
    }

    /// Waits until every state handed to this reaper so far is freed.
    public func waitUntilFreed() { pending.wait() }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one lock of the package: a value and the mutex that guards it, in one object. The
/// value is reachable only inside ``withLock(_:)``, so no code can read it without the lock,
/// and there is no way to take the lock without getting the value.
///
/// Not re-entrant: calling `withLock` from inside its own body on the same thread is a
/// programming error (it would hand the same value out twice); ``ReentrantGate`` builds the
/// re-entrant case on top of it.
///
/// (`Synchronization.Mutex` would be the standard type, but it needs iOS 18 / macOS 15 and
/// RouteCore supports iOS 16 / macOS 13.)
// Unchecked: `state` is only touched between `pthread_mutex_lock` and `pthread_mutex_unlock`
// of `mutex` (in `withLock` and `withLockIfFree`); that is what makes sharing the object safe.
package final class Locked<State>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var state: State

    package init(_ state: State) {
        self.state = state
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        // An error-checking mutex: a re-entry fails loudly (below) instead of deadlocking.
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    @inline(__always)
    package func withLock<T>(_ body: (inout State) throws -> T) rethrows -> T {
        let status = pthread_mutex_lock(mutex)
        precondition(status == 0, "Locked.withLock re-entered on the thread that holds it")
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }

    /// Runs `body` with the value when no other thread holds the lock; nil (without waiting)
    /// when one does.
    package func withLockIfFree<T>(_ body: (inout State) throws -> T) rethrows -> T? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}

extension Locked where State == Void {
    package convenience init() { self.init(()) }
}

/// Serializes work on a resource that is not thread-safe (one Lua state) while letting the
/// thread that holds it enter again: the host's dispatch holds the gate and the guards it
/// calls take it once more. Built on ``Locked``: one lock held while the work runs, one
/// small lock for who holds it.
package final class ReentrantGate: Sendable {
    private let work = Locked<Void>()
    private let holder = Locked<UInt?>(nil)

    package init() {}

    private static var currentThread: UInt {
        #if canImport(Darwin)
            UInt(bitPattern: pthread_self())
        #else
            UInt(pthread_self())
        #endif
    }

    /// Runs `body` holding the gate; at once when this thread already holds it.
    package func enter<T>(_ body: () throws -> T) rethrows -> T {
        let me = Self.currentThread
        if holder.withLock({ $0 == me }) { return try body() }
        return try work.withLock { _ in try holding(me, body) }
    }

    /// Runs `body` holding the gate when no other thread holds it; nil (without waiting) when
    /// one does.
    package func enterIfFree<T>(_ body: () throws -> T) rethrows -> T? {
        let me = Self.currentThread
        if holder.withLock({ $0 == me }) { return try body() }
        return try work.withLockIfFree { _ in try holding(me, body) }
    }

    /// `body`, with `me` recorded as the holder while it runs (the caller holds `work`).
    private func holding<T>(_ me: UInt, _ body: () throws -> T) rethrows -> T {
        holder.withLock { $0 = me }
        defer { holder.withLock { $0 = nil } }
        return try body()
    }
}

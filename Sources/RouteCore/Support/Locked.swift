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
        // An error-checking mutex: a re-entry fails loudly (below) instead of deadlocking.
        mutex = makeMutex(Int32(PTHREAD_MUTEX_ERRORCHECK))
    }

    deinit { freeMutex(mutex) }

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
/// calls take it once more. It guards no value (``Locked`` is the lock that holds one): it is
/// a recursive mutex, so entering costs one uncontended lock and unlock whether or not this
/// thread already holds it (`scripts/bench`: a dispatch paid about 150 ns more with the holder
/// kept in a second lock beside a plain one).
// Unchecked: the class's only stored property is the mutex's address, set in `init` and never
// changed; the mutex itself is only touched through `pthread_mutex_*` calls, which synchronize
// the threads that use it. The gate guards no Swift state of its own.
package final class ReentrantGate: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init() { mutex = makeMutex(Int32(PTHREAD_MUTEX_RECURSIVE)) }

    deinit { freeMutex(mutex) }

    /// Runs `body` holding the gate; at once when this thread already holds it.
    @inline(__always)
    package func enter<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Runs `body` holding the gate when no other thread holds it; nil (without waiting) when
    /// one does. The thread that holds it enters at once.
    package func enterIfFree<T>(_ body: () throws -> T) rethrows -> T? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A new mutex of `type` (`PTHREAD_MUTEX_ERRORCHECK`, `PTHREAD_MUTEX_RECURSIVE`).
private func makeMutex(_ type: Int32) -> UnsafeMutablePointer<pthread_mutex_t> {
    let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    var attributes = pthread_mutexattr_t()
    pthread_mutexattr_init(&attributes)
    pthread_mutexattr_settype(&attributes, type)
    pthread_mutex_init(mutex, &attributes)
    pthread_mutexattr_destroy(&attributes)
    return mutex
}

private func freeMutex(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
}

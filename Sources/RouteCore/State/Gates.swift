/// A guard's answer "not known yet" (`return pending("splash")` in a script): an `enabled` or
/// `redirect` hook throws it. The request is kept and the named screen shown meanwhile; when
/// a flag changes, the kept request is resolved again (docs/dsl.md, "Gates that wait").
///
/// ```swift
/// hooks.enabled["tabs#enabled"] = { context in
///     guard let session = context.flags["session"] else { throw GuardWait(screen: "splash", timeout: 5) }
///     return session == "valid"
/// }
/// ```
public struct GuardWait: Error, Sendable, Equatable {
    /// The request shown while the answer is not known (a splash screen).
    public var screen: String
    /// Seconds after which the guard's fallback is shown instead (nil: it waits for a flag).
    public var timeout: Double?

    public init(screen: String, timeout: Double? = nil) {
        self.screen = screen
        self.timeout = timeout
    }
}

/// A gate that is waiting: the guard that answered "not known yet", its timeout and its
/// fallback (``Resolution/waiting``, ``Router/waiting``).
public struct GuardWaiting: Sendable, Equatable {
    /// The index of the node whose guard waits.
    public var node: Int
    public var timeout: Double?
    /// Where its timeout leads (nil: the kept request is resolved again).
    public var fallback: String?
}

extension Router {
    /// The gate waiting now, and when its timeout falls due on ``clock`` (nil: no timeout).
    public var waiting: (gate: GuardWaiting, deadline: Double?)? { _waiting }

    /// Moves the router's clock (seconds, as the host keeps time: `luna test` and the REPL's
    /// `wait` move a virtual one, so nothing sleeps) and, when a waiting gate's timeout falls
    /// due, goes to its guard's fallback (or, without one, resolves the kept request again).
    /// Nil when nothing fell due.
    @discardableResult
    public func advanceClock(by seconds: Double) throws -> Result? {
        clock += max(0, seconds)
        guard let (gate, deadline) = _waiting, let deadline, clock >= deadline else { return nil }
        _waiting = nil
        if let fallback = gate.fallback { return try dispatch(fallback) }
        return try recheckGuards()
    }

    /// Keeps what a resolution says of a waiting gate: its deadline runs from when it first
    /// waited for the request kept, so a flag change that leaves it waiting does not restart
    /// it.
    @usableFromInline
    func noteWaiting(_ resolution: Resolution) {
        guard let gate = resolution.waiting else {
            if _waiting != nil { _waiting = nil }
            return
        }
        if let (kept, deadline) = _waiting, kept == gate, _waitingFor == resolution.requested {
            _waiting = (kept, deadline)
            return
        }
        _waiting = (gate, gate.timeout.map { clock + $0 })
        _waitingFor = resolution.requested
    }
}

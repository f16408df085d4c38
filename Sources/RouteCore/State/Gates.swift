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
/// fallback (``Router/waiting``).
public final class GuardWaiting: Sendable, Equatable {
    /// The index of the node whose guard waits.
    public let node: Int
    public let timeout: Double?
    /// Where its timeout leads (nil: the kept request is resolved again).
    public let fallback: String?

    init(node: Int, timeout: Double?, fallback: String?) {
        self.node = node
        self.timeout = timeout
        self.fallback = fallback
    }

    public static func == (a: GuardWaiting, b: GuardWaiting) -> Bool {
        a === b || (a.node == b.node && a.timeout == b.timeout && a.fallback == b.fallback)
    }
}

extension Router {
    /// The gate waiting now, and when its timeout falls due on ``clock`` (nil: no timeout). It
    /// holds while the state shows the gate's screen for the request kept: a later change that
    /// shows something else ends it (no dispatch pays for clearing it).
    public var waiting: (gate: GuardWaiting, deadline: Double?)? {
        guard let waiting = _waiting, let kept = _waitingFor, state.requested == kept,
            state.request?.original != kept
        else { return nil }
        return waiting
    }

    /// Moves the router's clock (seconds, as the host keeps time: `luna test` and the REPL's
    /// `wait` move a virtual one, so nothing sleeps) and, when a waiting gate's timeout falls
    /// due, goes to its guard's fallback (or, without one, resolves the kept request again).
    /// Nil when nothing fell due.
    @discardableResult
    public func advanceClock(by seconds: Double) throws -> Result? {
        clock += max(0, seconds)
        guard let (gate, deadline) = waiting, let deadline, clock >= deadline else { return nil }
        _waiting = nil
        if let fallback = gate.fallback { return try dispatch(fallback) }
        return try recheckGuards()
    }

    /// Keeps what a resolution says of a waiting gate: its deadline runs from when it first
    /// waited for the request kept, so a flag change that leaves it waiting does not restart
    /// it.
    func noteWaiting(_ gate: GuardWaiting?, requested: String) {
        guard let gate else {
            _waiting = nil
            return
        }
        if let (kept, _) = waiting, kept == gate, _waitingFor == requested { return }
        startWaiting(gate, requested: requested)
    }

    /// A dispatch waits at a gate: its timeout runs from now.
    @usableFromInline
    func startWaiting(_ gate: GuardWaiting, requested: String) {
        _waiting = (gate, gate.timeout.map { clock + $0 })
        _waitingFor = requested
    }
}

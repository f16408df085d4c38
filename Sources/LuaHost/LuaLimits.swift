/// How much one load or one call from the host may use before it is stopped.
///
/// ```swift
/// var options = LuaVM.Options()
/// options.callLimits = LuaLimits(instructions: 1_000_000, deadline: .milliseconds(20))
/// ```
public struct LuaLimits: Equatable, Sendable {
    /// Lua VM instructions (counted in steps of 1,000); `0` means no budget.
    public var instructions: Int
    /// Wall-clock time; `nil` means no deadline.
    public var deadline: Duration? { didSet { deadlineNanoseconds = Self.nanoseconds(deadline) } }
    /// `deadline` in nanoseconds (0: none), computed once: it is read on every call.
    private(set) var deadlineNanoseconds: Int64

    public init(instructions: Int, deadline: Duration?) {
        self.instructions = instructions
        self.deadline = deadline
        self.deadlineNanoseconds = Self.nanoseconds(deadline)
    }

    /// The default per load: 10 million instructions, 500 ms.
    public static let load = LuaLimits(instructions: 10_000_000, deadline: .milliseconds(500))
    /// The default per callback: 10 million instructions, 100 ms.
    public static let call = LuaLimits(instructions: 10_000_000, deadline: .milliseconds(100))

    private static func nanoseconds(_ deadline: Duration?) -> Int64 {
        guard let deadline else { return 0 }
        let (seconds, attoseconds) = deadline.components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if nanoseconds.overflow { return Int64.max }
        return max(1, nanoseconds.partialValue + attoseconds / 1_000_000_000)
    }
}

/// Which standard libraries a script gets (docs/design-choices.md, "The Lua sandbox").
public enum LuaSandbox: Sendable, Equatable {
    /// base (no dofile, loadfile, collectgarbage; text-only load; no `__gc`), string (no
    /// dump; pattern functions that count their steps), table, math, utf8, coroutine (no
    /// close; guarded), os.time/clock/date. No io, debug, package or C modules.
    case standard
    /// The full standard library (`--unsafe`). The limits still apply: no `debug.sethook`, no
    /// `__gc`, text-only `load`/`loadfile`/`dofile`, bounded nested `coroutine.close`; blocking
    /// system calls (`io.read`) are not limited.
    case unsafe
}

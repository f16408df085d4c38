import LuaHost
import RouteCore

/// How a route script is loaded and run.
///
/// ```swift
/// var options = RouteScriptOptions()
/// options.device = .pad
/// options.flags["newCheckout"] = "on"
/// options.callLimits = LuaLimits(instructions: 1_000_000, deadline: .milliseconds(50))
/// ```
public struct RouteScriptOptions: Sendable {
    public var device: Device = .phone
    /// App flags: `flags.NAME` in scripts and `ctx.flags.NAME` in callbacks.
    public var flags: [String: String] = [:]
    /// `.standard` (the sandbox docs/design-choices.md describes) or `.unsafe` (the full standard library).
    public var sandbox: LuaSandbox = .standard
    public var loadLimits: LuaLimits = .load
    public var callLimits: LuaLimits = .call
    /// Bytes per Lua state; 0: no cap.
    public var memoryLimit = 64 * 1024 * 1024
    /// Where `print` writes (default: standard output).
    public var output: (@Sendable (String) -> Void)?
    /// Told when a guard or a presenter hook runs (route coverage in `luna test`).
    package var probe: ScriptProbe?
    /// Whether a presenter the host did not register (`presenter = "Sheet"`, which the app
    /// supplies) is shown headless instead of failing the load: the `luna` tool opens the
    /// script the app runs. The names stay (an export keeps them); ``RouteScriptHost``'s
    /// `headlessHostPresenters` lists them.
    public var unknownHostPresentersAreHeadless = false
    /// Whether the lint's errors (two routes of one pattern) fail a load and a reload alike
    /// (the default: a reload equals a fresh load of the saved file). `luna check` turns it
    /// off to report every finding.
    public var lintErrorsFailTheLoad = true
    /// Whether a reload reuses what did not change in the tree before (its nodes, routes and
    /// compiled matcher, node identities and lint findings) — the default — or builds it all
    /// anew from the saved file. Both give the same tree; turning reuse off (`--full-reload`,
    /// or `LUNA_FULL_RELOAD=1` in the environment of the `luna` command) bisects a report that
    /// might be reuse's.
    public var reusesUnchangedParts = true

    public init() {}
}

/// What the script's code did, for route coverage (`luna test`): each guard with its outcome
/// and each Lua presenter hook, by node index in the compiled tree. Hooks may run on any
/// thread (the tree is `Sendable`), so the probe only records; its owner reads the record with
/// ``drain()`` on its own thread.
package final class ScriptProbe: Sendable {
    package enum Event: Sendable, Equatable {
        /// `kind` is `enabled` or `redirect`; `outcome` is `allowed`/`refused` or `redirected`/`stayed`.
        case guardRan(node: Int, kind: String, outcome: String)
        case hookRan(node: Int, hook: String)
    }

    private let events = Locked<[Event]>([])

    package init() {}

    func guardRan(_ node: Int, _ kind: String, _ outcome: String) {
        events.withLock { $0.append(.guardRan(node: node, kind: kind, outcome: outcome)) }
    }

    func hookRan(_ node: Int, _ hook: String) { events.withLock { $0.append(.hookRan(node: node, hook: hook)) } }

    /// What ran since the last call, in order.
    package func drain() -> [Event] {
        events.withLock { events in
            defer { events.removeAll(keepingCapacity: true) }
            return events
        }
    }
}

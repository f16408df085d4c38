import LuaHost
import RouteCore

/// The device a script declares its tree for (`device.idiom` in scripts).
public enum Device: String, Sendable, Equatable, CaseIterable {
    case phone, pad
}

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
    /// `.standard` (the sandbox the README describes) or `.unsafe` (the full standard library).
    public var sandbox: LuaSandbox = .standard
    public var loadLimits: LuaLimits = .load
    public var callLimits: LuaLimits = .call
    /// Bytes per Lua state; 0: no cap.
    public var memoryLimit = 64 * 1024 * 1024
    /// Where `print` writes (default: standard output).
    public var output: (@Sendable (String) -> Void)?
    /// Told when a guard or a presenter hook runs (route coverage in `luna test`).
    public var probe: ScriptProbe?
    /// Whether a presenter the host did not register (`presenter = "Sheet"`, which the app
    /// supplies) is shown headless instead of failing the load: the `luna` tool opens the
    /// script the app runs. The names stay (an export keeps them); ``RouteScriptHost``'s
    /// `headlessHostPresenters` lists them.
    public var unknownHostPresentersAreHeadless = false

    public init() {}
}

/// Callbacks a host can set to see the script's code run: each guard with its outcome and
/// each Lua presenter hook, by node index in the compiled tree.
public final class ScriptProbe: @unchecked Sendable {
    /// `kind` is `enabled` or `redirect`; `outcome` is `allowed`/`refused` or `redirected`/`stayed`.
    public var guardRan: ((_ node: Int, _ kind: String, _ outcome: String) -> Void)?
    public var hookRan: ((_ node: Int, _ hook: String) -> Void)?
    public init() {}
}

import LuaHost
import LunaLive
import RouteCore
import RouteScript

/// One `luna.open(...)` of a test: a session of its own over a fresh script host (its own Lua
/// state), what it was opened with (for `reset`), and the last request, plan and error. Its
/// actions are session commands, as the REPL's and the page's are; the test runner is its one
/// thread, so it reads the host's tree directly for coverage and `expect_tree`.
final class TestApp {
    let path: String
    let options: RouteScriptOptions
    private(set) var host: RouteScriptHost
    private(set) var session: LiveSession
    var lastRequest: String?
    var lastPlan: Plan?
    var lastError: (kind: String, message: String)?
    let coverage: Coverage?
    let templates: Templates?

    init(path: String, options: RouteScriptOptions, coverage: Coverage?, templates: Templates? = nil) throws {
        self.path = path
        var options = options
        let probe = ScriptProbe()
        options.probe = probe
        self.options = options
        self.coverage = coverage
        self.templates = templates
        self.probe = probe
        let host = try Self.load(path, options, coverage, templates)
        self.host = host
        self.session = LiveSession(host: host)
        // An app starts where its script says (`initial`), as it does at launch.
        let start = try session.startAtInitial()
        if let outcome = start?.change?.outcome { coverage?.reached(outcome, host: host) }
        coverage?.shown(host)
    }

    private let probe: ScriptProbe

    /// Hands what the guards and hooks did to the coverage, by node of this app's current tree.
    private func reportProbe() {
        for event in probe.drain() {
            switch event {
            case .guardRan(let node, let kind, let outcome):
                coverage?.guardRan(host, node: node, kind: kind, outcome: outcome)
            case .hookRan(let node, let hook): coverage?.hookRan(host, node: node, hook: hook)
            }
        }
    }

    private static func load(
        _ path: String, _ options: RouteScriptOptions, _ coverage: Coverage?, _ templates: Templates? = nil
    ) throws -> RouteScriptHost {
        let key = Templates.key(path, options)
        if let sibling = templates?.hosts[key]?.freshSibling() { return sibling }
        let host = RouteScriptHost(options: options)
        try host.load(contentsOf: path)
        coverage?.declare(host)
        // A script whose tree runs no Lua is loaded once per run; each case gets a sibling.
        if let templates, host.freshSibling() != nil { templates.hosts[key] = host }
        return host
    }

    /// Runs a command of the Lua test API (`op` and the method's values, as the command
    /// table reads them); returns nil or the error's kind and message (also kept in `lastError`).
    func act(_ op: String, _ values: [JSONValue]) -> (kind: String, message: String)? {
        defer { reportProbe() }
        // `app:reset()`: the app as `luna.open` made it, in a fresh Lua state (no global a
        // case set survives).
        if op == "reset" { return reset() }
        let command: Command
        do throws(CommandError) {
            guard let spec = CommandSpec.named(op), spec.surfaces.contains(.test) else {
                throw CommandError("unknown action '\(op)'")
            }
            command = try Command(op: op, fields: try spec.fields(positional: values))
        } catch {
            return failed("usage", error.message)
        }
        switch command {
        case .dispatch(let request, _), .sync(let request), .push(let request): lastRequest = request
        default: break
        }
        do {
            // The test reads the tree itself (`expect_tree`): the view renders none.
            let view = try session.perform(command, forms: [])
            switch view {
            case .reloaded(let reload):
                lastPlan = reload.summary.plan
                coverage?.declare(host)
            default:
                lastPlan = view.change?.outcome.plan ?? Plan([])
                if let outcome = view.change?.outcome { coverage?.reached(outcome, host: host) }
            }
            coverage?.shown(host)
            lastError = nil
            return nil
        } catch {
            return failed(error.kind, error.message)
        }
    }

    private func reset() -> (kind: String, message: String)? {
        do {
            host = try Self.load(path, options, coverage, templates)
            session = LiveSession(host: host)
            let start = try session.startAtInitial()
            if let outcome = start?.change?.outcome { coverage?.reached(outcome, host: host) }
            coverage?.shown(host)
        } catch {
            let failure = Failure(error)
            return failed(failure.kind, failure.message)
        }
        lastRequest = nil
        lastPlan = nil
        lastError = nil
        return nil
    }

    private func failed(_ kind: String, _ message: String) -> (kind: String, message: String) {
        lastError = (kind, message)
        return (kind, message)
    }

    /// Where the app stands (nil before anything matched).
    var state: StateView? { StateView(host) }

    /// The explain of a request, as indented lines (the REPL's `explain`, in plain text).
    func explain(_ request: String) -> String {
        defer { reportProbe() }
        guard case .explain(let view)? = try? session.perform(.explain(request)) else {
            return "    (the request does not parse)"
        }
        return view.lines(.plain).map { "    " + $0 }.joined(separator: "\n")
    }

    /// The plan of the last action, one operation a line.
    var planText: String { (lastPlan?.operations ?? []).map(\.text).joined(separator: "\n") }
}

/// Loaded scripts that run no Lua, by path and options, shared by the cases of one run (each
/// case gets a ``RouteScriptHost/freshSibling()``: its own state and presentables).
final class Templates {
    var hosts: [String: RouteScriptHost] = [:]

    static func key(_ path: String, _ options: RouteScriptOptions) -> String {
        path + "|" + options.device.rawValue + "|"
            + options.flags.sorted { $0.key < $1.key }.map { $0.key + "=" + $0.value }.joined(separator: ",")
    }
}

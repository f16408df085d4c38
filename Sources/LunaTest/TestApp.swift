import LuaHost
import LunaLive
import RouteCore
import RouteScript

/// One `luna.open(...)` of a test: a script host of its own (a fresh Lua state), what it was
/// opened with (for `reset`), and the last request, plan and error.
final class TestApp {
    let path: String
    let options: RouteScriptOptions
    private(set) var host: RouteScriptHost
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
        self.host = try Self.load(path, options, coverage, templates)
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

    /// Runs an action; returns nil or the error's kind and message (also kept in `lastError`).
    func act(_ action: String, _ arguments: [LuaValue]) -> (kind: String, message: String)? {
        func string(_ index: Int) -> String? {
            if index < arguments.count, case .string(let text) = arguments[index] { return text }
            return nil
        }
        defer { reportProbe() }
        do {
            switch action {
            case "go":
                guard let request = string(0) else { return failed("usage", "go needs a request (a string)") }
                lastRequest = request
                let keep = arguments.count > 1 && arguments[1] == .boolean(true)
                record(try host.dispatch(request, keepStack: keep))
            case "sync":
                guard let request = string(0) else { return failed("usage", "sync needs a request (a string)") }
                lastRequest = request
                record(try host.sync(request))
            case "back":
                record(try host.back())
            case "flag":
                guard let name = string(0) else { return failed("usage", "flag needs a name") }
                let value: String? =
                    switch arguments.count > 1 ? arguments[1] : .nil {
                    case .string(let text): text.isEmpty ? nil : text
                    case .integer(let n): String(n)
                    case .boolean(let b): b ? "true" : nil
                    default: nil
                    }
                if let outcome = try host.setFlag(name, value) { record(outcome) } else { lastPlan = Plan([]) }
            case "device":
                guard let name = string(0), let device = Device(rawValue: name) else {
                    return failed("usage", "device is phone or pad")
                }
                lastPlan = try host.setDevice(device).plan
                coverage?.declare(host)
            case "reload":
                lastPlan = try host.reload().plan
                coverage?.declare(host)
            case "reset":
                host = try Self.load(path, options, coverage, templates)
                lastRequest = nil
                lastPlan = nil
            default:
                return failed("usage", "unknown action '\(action)'")
            }
            lastError = nil
            return nil
        } catch {
            let (kind, message) = ErrorReport.describe(error)
            return failed(kind, message)
        }
    }

    private func failed(_ kind: String, _ message: String) -> (kind: String, message: String) {
        lastError = (kind, message)
        return (kind, message)
    }

    private func record(_ outcome: RouteScriptHost.Outcome) {
        lastPlan = outcome.plan
        coverage?.reached(outcome, host: host)
    }

    /// The explain of a request, as indented lines.
    func explain(_ request: String) -> String {
        defer { reportProbe() }
        guard let tree = host.routeTree, let explanation = try? host.explain(request) else {
            return "    (the request does not parse)"
        }
        // Routes whose first segment already differs say little one by one.
        let near = explanation.attempts.filter {
            if case .constantMismatch(0, _, _) = $0.outcome { return false }
            return true
        }
        var lines = near.map { "    \($0.outcome == .matched ? "✓" : "✗") \(Lint.show($0.pattern))  — \($0.reason)" }
        let elsewhere = explanation.attempts.count - near.count
        if elsewhere > 0 { lines.append("    ✗ \(elsewhere) more whose first segment differs") }
        if let winner = explanation.winner {
            lines.append("    wins: " + Lint.show(tree.endpoints[winner].definition.displayText))
        } else {
            lines.append("    no route wins")
        }
        lines += explanation.guards.map { "    guard: " + $0.text }
        return lines.joined(separator: "\n")
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

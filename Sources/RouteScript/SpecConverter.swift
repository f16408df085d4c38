import LuaHost
import RouteCore

/// Turns decoded ``ScriptNode``s into RouteCore ``NodeSpec``s, with validators and guards
/// that call the script's Lua functions.
struct SpecConverter {
    let callbacks: ScriptCallbacks
    let hostPresenters: Set<String>
    /// Unknown host presenters are shown headless instead of failing (the `luna` tool).
    var headlessUnknown = false
    /// The unknown host presenters met, in order (once each).
    private(set) var headless: [String] = []
    /// Presenter choices by node index in the compiled tree (nodes are numbered depth-first,
    /// children before modals, as RouteTree numbers them).
    private(set) var choices: [(Int, PresenterChoice)] = []
    /// Declared attributes (`attributes = {…}`) by node index.
    private(set) var attributes: [(Int, [(String, AttributeValue)])] = []
    /// Declared rows (`rows = {…}`) by node index.
    private(set) var rows: [(Int, [(label: String, go: String)])] = []
    /// Declared actions (`actions = {…}`) by node index.
    private(set) var actions: [(Int, [ScreenAction])] = []
    /// Declared sample parameter values (`sample = {…}`) by node index, with where.
    private(set) var samples: [(Int, [(name: String, values: [String])], SourceLocation?)] = []
    private var counter = 0

    init(callbacks: ScriptCallbacks, hostPresenters: Set<String>) {
        self.callbacks = callbacks
        self.hostPresenters = hostPresenters
    }

    mutating func spec(_ node: ScriptNode) throws -> NodeSpec {
        let index = counter
        counter += 1
        if case .host(let name) = node.presenter, !hostPresenters.contains(name), headlessUnknown {
            if !headless.contains(name) { headless.append(name) }
        } else if case .host(let name) = node.presenter, !hostPresenters.contains(name) {
            let known = hostPresenters.sorted()
            let hint =
                DSLSchema.suggestion(for: name, among: known).map { " (did you mean '\($0)'?)" }
                ?? (known.isEmpty ? " (the host registered none)" : " (registered: \(known.joined(separator: ", ")))")
            throw RouteScriptError(
                .load, prefix(node) + "unknown presenter '\(name)'\(hint)", location: node.location)
        }
        choices.append((index, node.presenter))
        if !node.attributes.isEmpty { attributes.append((index, node.attributes)) }
        if !node.rows.isEmpty { rows.append((index, node.rows)) }
        if !node.actions.isEmpty { actions.append((index, node.actions)) }
        if !node.samples.isEmpty { samples.append((index, node.samples, node.location)) }
        var spec = NodeSpec(kind: node.kind, id: node.id, title: node.title, location: node.location)
        spec.initial = node.initial
        if let links = node.links {
            do { spec.links = try LinkDomains(schemes: links.schemes, hosts: links.hosts) } catch {
                throw RouteScriptError(.load, prefix(node) + error.message, location: node.location)
            }
        }
        if node.kind == .endpoint {
            var endpoint = EndpointSpec(pattern: node.pattern, regex: node.regex, name: node.name)
            for (parameter, value) in node.validators {
                endpoint.validators[parameter] = try validator(value, parameter: parameter, node: node)
            }
            let guardSpec = guards(node, index: index)
            endpoint.enabled = guardSpec.enabled
            endpoint.fallback = guardSpec.fallback
            endpoint.redirect = guardSpec.redirect
            endpoint.linkable = node.linkable
            spec.endpoint = endpoint
        } else {
            spec.guardSpec = guards(node, index: index)
        }
        spec.children.reserveCapacity(node.children.count)
        for child in node.children { spec.children.append(try self.spec(child)) }
        spec.modals.reserveCapacity(node.modals.count)
        for modal in node.modals { spec.modals.append(try self.spec(modal)) }
        return spec
    }

    /// `enabled`, `fallback` and `redirect` of any node, calling the script's functions.
    private func guards(_ node: ScriptNode, index: Int) -> GuardSpec {
        var result = GuardSpec(fallback: node.fallback)
        let callbacks = self.callbacks
        if let enabled = node.enabled {
            let hook = ScriptHook(enabled, callbacks: callbacks)
            result.enabled = { context in
                try hook.call(context: context) { probe, value in
                    let allowed = value.isTruthy
                    probe?.guardRan(index, "enabled", allowed ? "allowed" : "refused")
                    return allowed
                }
            }
        }
        if let redirect = node.redirect {
            let location = prefix(node)
            let hook = ScriptHook(redirect, callbacks: callbacks)
            result.redirect = { context in
                try hook.redirect(context: context) { probe, value throws(RouteError) in
                    switch value {
                    case .nil:
                        probe?.guardRan(index, "redirect", "stayed")
                        return nil
                    case .string(let path):
                        probe?.guardRan(index, "redirect", "redirected")
                        return path
                    default:
                        throw RouteError(
                            .script, location + "redirect must return a path or nil, not \(value.typeName)")
                    }
                }
            }
        }
        return result
    }

    private func prefix(_ node: ScriptNode) -> String {
        (node.location.map { "\($0): " } ?? "") + node.builder + ": "
    }

    private func validator(_ value: LuaValue, parameter: String, node: ScriptNode) throws -> Validator {
        switch value {
        case .string(let regex):
            do { return try Validator(regex: regex) } catch {
                throw RouteScriptError(
                    .load, prefix(node) + "where.\(parameter): \(error.message)", location: node.location)
            }
        default:
            let hook = ScriptHook(value, callbacks: callbacks)
            return Validator(description: "function") { text in try hook.validate(text) }
        }
    }
}

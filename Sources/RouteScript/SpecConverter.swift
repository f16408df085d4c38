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
        var specs: [NodeSpec] = []
        try append(node, to: &specs)
        return specs.removeLast()
    }

    /// Appends `node`'s spec to `list`, made in place: a spec returned by value was copied
    /// twice on its way into its parent's list.
    private mutating func append(_ node: ScriptNode, to list: inout [NodeSpec]) throws {
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
        var links: LinkDomains?
        if let declared = node.links {
            do { links = try LinkDomains(schemes: declared.schemes, hosts: declared.hosts) } catch {
                throw RouteScriptError(.load, prefix(node) + error.message, location: node.location)
            }
        }
        // The parts of the spec first (errors in declaration order, children before their
        // parent's spec); the spec itself is made small in its list and completed there, field
        // by field: made whole and appended, it was copied on its way (each copy retains every
        // field), 2.5 M instructions in a reload of 10k routes.
        var validators: [String: Validator] = [:]
        for (parameter, value) in node.validators {
            validators[parameter] = try validator(value, parameter: parameter, node: node)
        }
        let guardSpec =
            node.enabled != nil || node.redirect != nil || node.fallback != nil ? guards(node, index: index) : nil
        var children: [NodeSpec] = []
        if !node.children.isEmpty {
            children.reserveCapacity(node.children.count)
            for child in node.children { try append(child, to: &children) }
        }
        var modals: [NodeSpec] = []
        if !node.modals.isEmpty {
            modals.reserveCapacity(node.modals.count)
            for modal in node.modals { try append(modal, to: &modals) }
        }
        list.append(NodeSpec(kind: node.kind, id: node.id, title: node.title, location: node.location))
        let last = list.count - 1
        if !children.isEmpty { list[last].children = children }
        if !modals.isEmpty { list[last].modals = modals }
        if node.kind == .endpoint {
            list[last].endpoint = EndpointSpec(pattern: node.pattern, regex: node.regex, name: node.name)
            if !validators.isEmpty { list[last].endpoint?.validators = validators }
            if let guardSpec {
                list[last].endpoint?.enabled = guardSpec.enabled
                list[last].endpoint?.fallback = guardSpec.fallback
                list[last].endpoint?.redirect = guardSpec.redirect
            }
            if !node.linkable { list[last].endpoint?.linkable = false }
        } else if guardSpec != nil {
            list[last].guardSpec = guardSpec
        }
        if node.initial != nil { list[last].initial = node.initial }
        if links != nil { list[last].links = links }
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

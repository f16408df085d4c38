import LuaHost
import RouteCore

/// Prepares decoded ``ScriptNode``s for the tree builder, which reads them in place: checks
/// their presenters, compiles their links, validators and guards (which call the script's Lua
/// functions) into their ``Declaration`` fields, and collects what the route tree does not
/// hold (presenter choices, attributes, rows, actions, samples) by node index.
struct ScriptNodePreparer {
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
    /// The root's declared flag values (`flags = { … }`), for `luna verify`.
    private(set) var flagValues: [(name: String, values: [String])] = []
    /// `verify = { … }` reasons and `reach = "app"`, by node index.
    private(set) var verifyReasons: [(Int, [(check: String, reason: String)])] = []
    private(set) var appOnly: [Int] = []
    /// `on_result` functions by node index.
    private(set) var resultHooks: [(Int, LuaValue)] = []
    /// Declared rows (`rows = {…}`) by node index.
    private(set) var rows: [(Int, [ScreenRow])] = []
    /// Declared actions (`actions = {…}`) by node index.
    private(set) var actions: [(Int, [ScreenAction])] = []
    /// Declared sample parameter values (`sample = {…}`) by node index, with where.
    private(set) var samples: [(Int, [(name: String, values: [String])], SourceLocation?)] = []
    private var counter = 0
    /// The declarations given hooks (guards, redirects, function validators): closures that
    /// call the state, on declarations its nodes hold. ``detachHooks()`` takes them off.
    private var hooked: [Declaration] = []

    init(callbacks: ScriptCallbacks, hostPresenters: Set<String>) {
        self.callbacks = callbacks
        self.hostPresenters = hostPresenters
    }

    /// Prepares `node` and everything below it, in declaration order: the first mistake met
    /// (a node's own before its children's) is the one reported. Returns the declaration the
    /// tree reads in this place: the node's own the first time it is met, a copy of it after
    /// (each place is a node of its own, whose guards and function validators are hooks of
    /// their own reporting their own node index; one shared hook replaced would release the
    /// Lua function the other place still calls).
    @discardableResult
    mutating func prepare(_ node: ScriptNode) throws -> Declaration {
        let index = counter
        counter += 1
        let declaration = node.isPrepared ? node.declaration.copy() : node.declaration
        node.isPrepared = true
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
        if let onResult = node.onResult { resultHooks.append((index, onResult)) }
        if !node.flagValues.isEmpty {
            guard index == 0 else {
                throw RouteScriptError(
                    .load, prefix(node) + "'flags' (the flag values luna verify tries) is declared on the root node",
                    location: node.location)
            }
            flagValues = node.flagValues
        }
        if !node.verifyReasons.isEmpty { verifyReasons.append((index, node.verifyReasons)) }
        if node.reachedByApp { appOnly.append(index) }
        if !node.actions.isEmpty { actions.append((index, node.actions)) }
        if !node.samples.isEmpty { samples.append((index, node.samples, node.location)) }
        if let declared = node.declaredLinks {
            do {
                declaration.links = try LinkDomains(
                    schemes: declared.schemes, hosts: declared.hosts, acceptsHTTP: declared.http)
            } catch {
                throw RouteScriptError(.load, prefix(node) + error.message, location: node.location)
            }
        }
        if !node.declaredValidators.isEmpty {
            var validators: [String: Validator] = [:]
            for (parameter, value) in node.declaredValidators {
                validators[parameter] = try validator(value, parameter: parameter, node: node)
            }
            declaration.validators = validators
        }
        if let declared = node.declaredQuery {
            var fields: [QueryField] = []
            do {
                for field in declared {
                    let validator = try field.validator.map {
                        try self.validator($0, parameter: field.name, node: node, in: "query")
                    }
                    fields.append(
                        try QueryField(
                            field.name, field.kind, optional: field.optional, list: field.list,
                            default: field.defaultValue, where: validator))
                }
                declaration.querySchema = try QuerySchema(fields)
            } catch let error as RouteDefinitionError {
                throw RouteScriptError(.load, prefix(node) + error.message, location: node.location)
            }
        }
        if node.enabled != nil || node.redirect != nil || node.fallback != nil || node.leave != nil {
            declaration.guards = guards(node, index: index)
        }
        let functionValidator =
            node.declaredValidators.values.contains { if case .string = $0 { false } else { true } }
            || (node.declaredQuery ?? []).contains { if case .function? = $0.validator { true } else { false } }
        if node.enabled != nil || node.redirect != nil || node.leave != nil || functionValidator {
            hooked.append(declaration)
        }
        // The declaration's children are the ones this walk places (a copy where a node is met
        // again), in the script node's order.
        if !node.children.isEmpty {
            var children: [Declaration] = []
            children.reserveCapacity(node.children.count)
            for child in node.children { children.append(try prepare(child)) }
            declaration.children = children
        }
        if !node.modals.isEmpty {
            var modals: [Declaration] = []
            modals.reserveCapacity(node.modals.count)
            for modal in node.modals { modals.append(try prepare(modal)) }
            declaration.modals = modals
        }
        return declaration
    }

    /// Takes the hooks off the declarations once the tree is built from them (or failed to
    /// be): the tree keeps its own, and the declarations belong to nodes the Lua state holds,
    /// so hooks left there (each keeps the state alive) made a cycle through the state, and a
    /// script with a guard, a redirect or a function validator was never freed.
    mutating func detachHooks() {
        for declaration in hooked {
            declaration.guards = nil
            declaration.validators = [:]
            declaration.querySchema = nil
        }
        hooked = []
    }

    /// `enabled`, `fallback` and `redirect` of any node, calling the script's functions.
    private func guards(_ node: ScriptNode, index: Int) -> GuardSpec {
        var result = GuardSpec(fallback: node.fallback)
        let callbacks = self.callbacks
        if let enabled = node.enabled {
            let hook = ScriptHook(enabled, callbacks: callbacks)
            result.enabled = { context in
                // `return pending("splash")`: not known yet (thrown once the hook is done).
                var wait: GuardWait?
                let allowed = try hook.call(context: context) { probe, value in
                    if let waiting = hook.waiting(value) {
                        probe?.guardRan(index, "enabled", "waited")
                        wait = waiting
                        return false
                    }
                    let allowed = value.isTruthy
                    probe?.guardRan(index, "enabled", allowed ? "allowed" : "refused")
                    return allowed
                }
                if let wait { throw wait }
                return allowed
            }
        }
        if let redirect = node.redirect {
            let location = prefix(node)
            let hook = ScriptHook(redirect, callbacks: callbacks)
            result.redirect = { context in
                var wait: GuardWait?
                let target = try hook.redirect(context: context) { probe, value throws(RouteError) in
                    switch value {
                    case .nil:
                        probe?.guardRan(index, "redirect", "stayed")
                        return nil
                    case .string(let path):
                        probe?.guardRan(index, "redirect", "redirected")
                        return path
                    default:
                        // `return pending("splash")`: not known yet (thrown once the hook is done).
                        if let waiting = hook.waiting(value) {
                            probe?.guardRan(index, "redirect", "waited")
                            wait = waiting
                            return nil
                        }
                        throw RouteError(
                            .script, location + "redirect must return a path, nil or pending(…), not \(value.typeName)")
                    }
                }
                if let wait { throw wait }
                return target
            }
        }
        if let leave = node.leave {
            let location = prefix(node)
            let hook = ScriptHook(leave, callbacks: callbacks)
            result.leave = { context, to in
                try hook.leave(context: context, to: to) { probe, value throws(RouteError) in
                    switch value {
                    case .boolean(true), .nil:
                        probe?.guardRan(index, "leave", "went")
                        return .go
                    case .boolean(false):
                        probe?.guardRan(index, "leave", "stayed")
                        return .stay
                    case .string(let question):
                        probe?.guardRan(index, "leave", "asked")
                        return .ask(question)
                    default:
                        throw RouteError(
                            .script,
                            location + "leave must return true (go), false (stay) or a question, not \(value.typeName)")
                    }
                }
            }
        }
        return result
    }

    private func prefix(_ node: ScriptNode) -> String {
        (node.location.map { "\($0): " } ?? "") + node.builder + ": "
    }

    /// `in`: where the validator was declared (`where.id`, `query.page.where`).
    private func validator(
        _ value: LuaValue, parameter: String, node: ScriptNode, in place: String = "where"
    ) throws -> Validator {
        switch value {
        case .string(let regex):
            let name = place == "where" ? "where.\(parameter)" : "query.\(parameter).where"
            do { return try Validator(regex: regex) } catch {
                throw RouteScriptError(.load, prefix(node) + "\(name): \(error.message)", location: node.location)
            }
        default:
            let hook = ScriptHook(value, callbacks: callbacks)
            return Validator(description: "function") { text in try hook.validate(text) }
        }
    }
}

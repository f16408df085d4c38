import LuaHost
import RouteCore

/// What Lua callbacks need from the host: the VM, the shared `flags` and `device` tables,
/// a per-dispatch `ctx` cache and one `view` userdata per presentable.
final class ScriptCallbacks {
    let vm: LuaVM
    let flagsTable: LuaValue
    let deviceTable: LuaValue
    let viewClass: LuaClass
    /// The registry entry every `ctx` is kept in (one for the life of the state), and the
    /// context it holds in the current dispatch (reused while the context is the same).
    private var contextSlot: LuaValue?
    private var slotHolds: SlotContent?
    private var views: [ObjectIdentifier: LuaValue] = [:]
    let probe: ScriptProbe?
    /// Held by every hook call (``ScriptHook``) and, when the tree has such hooks, by every
    /// host operation on this state: Lua never runs on two threads at once.
    let gate = ReentrantGate()
    /// Whether the route tree holds Lua hooks (guards, redirects, validators): only then can
    /// Lua be called from another thread (through the `Sendable` tree), and only then do the
    /// host's operations need the gate. Set while the script loads, before the tree is out.
    private(set) var treeHasHooks = false

    /// A ``ScriptHook`` of the tree was made.
    func hookMade() { treeHasHooks = true }
    /// Where `view` writes go besides the headless model: the app's presentables.
    private let sink = ViewSink()
    /// The host's presenters and app presentables (set when a presenter is made for it).
    var registry: PresenterRegistry? {
        get { sink.registry }
        set { sink.registry = newValue }
    }

    init(vm: LuaVM, options: RouteScriptOptions) {
        self.vm = vm
        let flags = vm.newTable(fieldCapacity: options.flags.count)
        for (name, value) in options.flags { try? vm.rawSet(flags, key: .string(name), value: .string(value)) }
        self.flagsTable = flags
        let device = vm.newTable(fieldCapacity: 2)
        try? vm.rawSet(device, key: "idiom", value: .string(options.device.rawValue))
        self.deviceTable = device
        let sink = self.sink
        self.viewClass = ViewHandles.register(in: vm) { view, name, value in
            try sink.registry?.mirror?.decorate(view, name, value)
        }
        self.probe = options.probe
    }

    /// Forgets the cached `ctx` (at the start of each dispatch).
    func beginDispatch() {
        slotHolds = nil
    }

    /// What the slot's `ctx` was made from: a guard's context, or a screen (its node and
    /// activation) for its presenter hooks. Not the tree: a script's callbacks only ever see
    /// that script's one tree, and holding it here would make a cycle (the tree's guards and
    /// validators hold these callbacks), so a host's old Lua state would never be freed.
    private enum SlotContent {
        case context(RouteContext)
        case screen(node: Int, activation: Activation?)
    }

    /// Calls a callback with `first` (when given) and the `ctx` table of `context` as its
    /// last argument. `ctx` is built in place as the argument, and kept in one registry entry
    /// for the life of the state, so a later callback of the same dispatch with the same
    /// context gets the same table without building it again.
    func call(
        _ function: LuaValue, _ first: LuaValue? = nil, context: RouteContext
    ) throws(RouteError)
        -> [LuaValue]
    {
        if let slot = contextSlot, case .context(let cached)? = slotHolds, cached == context {
            return try call(function, first, slot)
        }
        let result = try call(function, first) { ctx in
            write(
                &ctx, path: context.path, parameterCount: context.params.count,
                parameters: { body in for (name, value) in context.params { body(name, value) } },
                query: context.query, typedQuery: context.typedQuery, fragment: context.fragment, route: context.route,
                name: context.name, id: context.endpointID, from: context.from)
        }
        slotHolds = .context(context)
        return result
    }

    /// Calls a presenter hook (`create`, `update`) of `node` with `first` (when given) and the
    /// screen's `ctx` as its last argument: the fields a guard's `ctx` has, written from the
    /// node and the activation directly (no ``RouteContext`` and no parameter dictionary
    /// between them), and reused by the screen's next hook in the same dispatch (`create`,
    /// then `update`).
    func call(
        _ function: LuaValue, _ first: LuaValue? = nil, screen node: RouteTree.Node, activation: Activation?,
        in tree: RouteTree
    ) throws(RouteError) -> [LuaValue] {
        if let slot = contextSlot, case .screen(node.index, let cached)? = slotHolds, cached == activation {
            return try call(function, first, slot)
        }
        let result = try call(function, first) { ctx in write(&ctx, screen: node, activation: activation, in: tree) }
        slotHolds = .screen(node: node.index, activation: activation)
        return result
    }

    /// Calls a screen's hook with `first`, the screen's `ctx` and `last` (`on_result(view, ctx,
    /// value)`): `ctx` made for this call.
    func call(
        _ function: LuaValue, _ first: LuaValue, screen node: RouteTree.Node, activation: Activation?,
        in tree: RouteTree, then last: LuaValue
    ) throws(RouteError) -> [LuaValue] {
        let ctx = vm.makeTable(fieldCapacity: 10) { ctx in write(&ctx, screen: node, activation: activation, in: tree) }
        do { return try vm.call(function, [first, ctx, last]) } catch { throw Self.scriptError(error) }
    }

    /// Calls `function` with `first` (when given) and the reused `ctx` table.
    private func call(_ function: LuaValue, _ first: LuaValue?, _ slot: LuaValue) throws(RouteError) -> [LuaValue] {
        if let first { return try call(function, first, slot) }
        return try call(function, slot)
    }

    /// Calls `function` with `first` (when given) and a new `ctx` that `write` fills, kept in
    /// the slot. The slot is known to hold a context only once the call got that far (the
    /// caller records which): a failed call builds it again next time.
    private func call(
        _ function: LuaValue, _ first: LuaValue?, writing write: (inout LuaTableWriter) -> Void
    ) throws(RouteError) -> [LuaValue] {
        if contextSlot == nil { contextSlot = vm.newTable(fieldCapacity: 10) }
        slotHolds = nil
        do {
            return try vm.call(function, first, buildingTable: 10, keepingIn: contextSlot, write)
        } catch {
            throw Self.scriptError(error)
        }
    }

    /// The fields of a screen's `ctx`, written from the node and the activation directly.
    private func write(
        _ ctx: inout LuaTableWriter, screen node: RouteTree.Node, activation: Activation?, in tree: RouteTree
    ) {
        let endpoint = node.route.map { tree[$0] }
        let path =
            activation?.request?.path
            ?? (try? tree.request(for: node.nodeID, params: activation?.params ?? [:]))?.path ?? ""
        let query = activation?.query ?? [:]
        let typed = node.route.map { tree.typedQuery(of: $0, query, request: activation?.request) } ?? [:]
        write(
            &ctx, path: path, parameterCount: activation?.parameterCount ?? 0,
            parameters: { body in activation?.forEachParameter(body) }, query: query, typedQuery: typed,
            fragment: activation?.fragment, route: endpoint?.definition.displayText ?? "", name: endpoint?.name,
            id: node.id, from: activation?.from, result: activation?.result)
    }

    /// The fields of `ctx` (docs/dsl.md, "The context (`ctx`)").
    private func write(
        _ ctx: inout LuaTableWriter, path: String, parameterCount: Int,
        parameters: ((String, String) -> Void) -> Void, query: [String: String], typedQuery: [String: QueryValue],
        fragment: String?, route: String, name: String?, id: String, from: String?,
        result: [String: AttributeValue]? = nil
    ) {
        ctx.set("path", path)
        ctx.set("params", fieldCapacity: parameterCount) { table in parameters { table.set(LuaKey($0), $1) } }
        if typedQuery.isEmpty {
            ctx.set("query", strings: query)
        } else {
            // The schema's keys typed (a list as a sequence), the others as strings.
            ctx.set("query", fieldCapacity: query.count + typedQuery.count) { table in
                for (key, text) in query where typedQuery[key] == nil { table.set(LuaKey(key), text) }
                for (key, value) in typedQuery {
                    if case .list(let items) = value {
                        table.set(LuaKey(key), fieldCapacity: 0) { list in
                            for item in items { list.append(Self.luaValue(item)) }
                        }
                    } else {
                        table.set(LuaKey(key), Self.luaValue(value))
                    }
                }
            }
        }
        ctx.set("fragment", fragment)
        // One spelling of the root route everywhere: "/" (as the JSON and the tables).
        ctx.set("route", Lint.show(route))
        ctx.set("name", name)
        ctx.set("id", id)
        ctx.set("flags", flagsTable)
        ctx.set("device", deviceTable)
        ctx.set("from", from)
        // A value handed back to the screen (docs/dsl.md, "Results"): its hooks see it again
        // after a restoration or a reload.
        if let result {
            ctx.set("result", fieldCapacity: result.count) { table in
                for (key, value) in result { table.set(LuaKey(key), ViewHandles.luaValue(value)) }
            }
        }
    }

    /// A typed query value as Lua sees it (a list's items are appended by the caller).
    static func luaValue(_ value: QueryValue) -> LuaValue {
        switch value {
        case .string(let text): .string(text)
        case .int(let number): .integer(Int64(number))
        case .number(let number): .number(number)
        case .bool(let flag): .boolean(flag)
        case .list: .nil
        }
    }

    /// The `view` userdata of a presentable (one per presentable).
    func view(_ presentable: HeadlessPresentable) -> LuaValue {
        let key = ObjectIdentifier(presentable)
        if let view = views[key] { return view }
        let view = vm.wrap(presentable, as: viewClass)
        views[key] = view
        return view
    }

    /// Forgets a discarded presentable's view.
    func forgetView(_ presentable: HeadlessPresentable) { views[ObjectIdentifier(presentable)] = nil }

    /// Sets (or clears) a flag in the shared `flags` table.
    func setFlag(_ name: String, _ value: String?) {
        try? vm.rawSet(flagsTable, key: .string(name), value: value.map(LuaValue.string) ?? .nil)
    }

    /// Calls a Lua callback; a Lua error becomes a `script` error with its traceback.
    func call(_ function: LuaValue, _ argument: LuaValue) throws(RouteError) -> [LuaValue] {
        do { return try vm.call(function, argument) } catch { throw Self.scriptError(error) }
    }

    /// Calls a leave guard: `function(ctx, to)`, `ctx` built from `context`; its first result.
    func callLeave(_ function: LuaValue, context: RouteContext, to: String?) throws(RouteError) -> LuaValue {
        let ctx = vm.makeTable(fieldCapacity: 10) { ctx in
            write(
                &ctx, path: context.path, parameterCount: context.params.count,
                parameters: { body in for (name, value) in context.params { body(name, value) } },
                query: context.query, typedQuery: context.typedQuery, fragment: context.fragment, route: context.route,
                name: context.name, id: context.endpointID, from: context.from)
        }
        return try call(function, ctx, to.map(LuaValue.string) ?? .nil).first ?? .nil
    }

    /// The same with two arguments (no argument array: one allocation less per hook).
    func call(_ function: LuaValue, _ first: LuaValue, _ second: LuaValue) throws(RouteError) -> [LuaValue] {
        do { return try vm.call(function, first, second) } catch { throw Self.scriptError(error) }
    }

    private static func scriptError(_ error: any Error) -> RouteError {
        guard let error = error as? LuaError else { return RouteError(.script, "\(error)") }
        return RouteError(.script, error.fullDescription, location: error.location.map(SourceLocation.init))
    }
}

/// The registry a script's `view` handles forward their writes to. A strong reference (the
/// registry never points back at the script): a weak one would move the registry's reference
/// counts to a side table, and the script's presenter retains it on every operation.
final class ViewSink {
    var registry: PresenterRegistry?
}

/// A script function that the route tree's guards, redirects and validators call.
///
/// A ``RouteTree`` is `Sendable`, so its hooks may be called from any thread, but a Lua state
/// is not thread-safe. Every call goes through the state's gate (``ScriptCallbacks/gate``),
/// which every operation of the host on that state holds as well: Lua never runs on two
/// threads at once, and a hook called from another thread waits until the host's operation
/// is over. On the host's own thread (its dispatch calling its guards) the gate is already
/// held and the call goes straight through.
final class ScriptHook: @unchecked Sendable {
    // Unchecked: `callbacks` and `function` are only used inside `callbacks.gate` (the
    // function's registry entry too: it is released there, below).
    private let callbacks: ScriptCallbacks
    private let function: LuaValue

    init(_ function: LuaValue, callbacks: ScriptCallbacks) {
        self.function = function
        self.callbacks = callbacks
        callbacks.hookMade()
    }

    /// Calls the function with the route's `ctx` (a guard or a redirect).
    func call(
        context: RouteContext, _ body: (ScriptProbe?, LuaValue) throws(RouteError) -> Bool
    )
        throws(RouteError) -> Bool
    {
        try enter { () throws(RouteError) in
            try body(callbacks.probe, try callbacks.call(function, context: context).first ?? .nil)
        }
    }

    /// The wait a guard's result asks for (`return pending("splash")`), if it is one.
    func waiting(_ value: LuaValue) -> GuardWait? {
        guard case .table = value,
            case .string(let screen)? = try? callbacks.vm.rawGet(value, key: .string(ScriptEnvironment.pendingKey))
        else { return nil }
        var timeout: Double?
        switch try? callbacks.vm.rawGet(value, key: "timeout") {
        case .number(let seconds)?: timeout = seconds
        case .integer(let seconds)?: timeout = Double(seconds)
        default: break
        }
        return GuardWait(screen: screen, timeout: timeout)
    }

    /// Calls a leave guard with the node's `ctx` and the request the change goes to.
    func leave(
        context: RouteContext, to: String?, _ body: (ScriptProbe?, LuaValue) throws(RouteError) -> LeaveAnswer
    )
        throws(RouteError) -> LeaveAnswer
    {
        try enter { () throws(RouteError) in
            try body(callbacks.probe, try callbacks.callLeave(function, context: context, to: to))
        }
    }

    /// Calls a redirect: the path it returned, or nil.
    func redirect(
        context: RouteContext, _ body: (ScriptProbe?, LuaValue) throws(RouteError) -> String?
    )
        throws(RouteError) -> String?
    {
        try enter { () throws(RouteError) in
            try body(callbacks.probe, try callbacks.call(function, context: context).first ?? .nil)
        }
    }

    /// Calls a validator with a parameter's value.
    func validate(_ text: String) throws(RouteError) -> Bool {
        try enter { () throws(RouteError) in try callbacks.call(function, .string(text)).first?.isTruthy ?? false }
    }

    private func enter<T>(_ body: () throws(RouteError) -> T) throws(RouteError) -> T {
        let result: Result<T, RouteError> = callbacks.gate.enter {
            do throws(RouteError) { return .success(try body()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    deinit {
        let (callbacks, function) = (self.callbacks, self.function)
        callbacks.gate.enter { function.reference?.release() }
    }
}

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
    /// Unchecked exclusivity, like every field here: a script's callbacks run on one thread.
    @exclusivity(unchecked) private var contextSlot: LuaValue?
    @exclusivity(unchecked) private var slotContext: RouteContext?
    @exclusivity(unchecked) private var views: [ObjectIdentifier: LuaValue] = [:]
    let probe: ScriptProbe?
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
    func beginDispatch() { slotContext = nil }

    /// Calls a callback with `first` (when given) and the `ctx` table of `context` as its
    /// last argument. `ctx` is built in place as the argument, and kept in one registry entry
    /// for the life of the state, so a later callback of the same dispatch with the same
    /// context gets the same table without building it again.
    func call(
        _ function: LuaValue, _ first: LuaValue? = nil, context: RouteContext
    ) throws(RouteError)
        -> [LuaValue]
    {
        if let slot = contextSlot, let cached = slotContext, cached == context {
            if let first { return try call(function, first, slot) }
            return try call(function, slot)
        }
        if contextSlot == nil { contextSlot = vm.newTable(fieldCapacity: 10) }
        // Known to hold `context` only once the call got that far (a failed one rebuilds).
        slotContext = nil
        do {
            let result = try vm.call(function, first, buildingTable: 10, keepingIn: contextSlot) { ctx in
                ctx.set("path", context.path)
                ctx.set("params", strings: context.params)
                ctx.set("query", strings: context.query)
                ctx.set("fragment", context.fragment)
                // One spelling of the root route everywhere: "/" (as the JSON and the tables).
                ctx.set("route", Lint.show(context.route))
                ctx.set("name", context.name)
                ctx.set("id", context.endpointID)
                ctx.set("flags", flagsTable)
                ctx.set("device", deviceTable)
                ctx.set("from", context.from)
            }
            slotContext = context
            return result
        } catch {
            throw Self.scriptError(error)
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

    /// The same with two arguments (no argument array: one allocation less per hook).
    func call(_ function: LuaValue, _ first: LuaValue, _ second: LuaValue) throws(RouteError) -> [LuaValue] {
        do { return try vm.call(function, first, second) } catch { throw Self.scriptError(error) }
    }

    private static func scriptError(_ error: any Error) -> RouteError {
        RouteError(.script, (error as? LuaError)?.fullDescription ?? "\(error)")
    }
}

/// The registry a script's `view` handles forward their writes to. A strong reference (the
/// registry never points back at the script): a weak one would move the registry's reference
/// counts to a side table, and the script's presenter retains it on every operation.
final class ViewSink {
    var registry: PresenterRegistry?
}

import LuaHost
import RouteCore

/// A script loaded into its own Lua state: the compiled tree, the presenters of its nodes
/// and the files it read.
final class LoadedScript {
    let callbacks: ScriptCallbacks
    let tree: RouteTree
    /// Presenter choices by node id.
    /// The presenter of each node, by node index (nil: headless).
    let presenters: [PresenterChoice?]
    /// Host presenters the script names that the host did not register, shown headless
    /// (``RouteScriptOptions/unknownHostPresentersAreHeadless``).
    let headlessHostPresenters: [String]
    /// Attributes declared on nodes (`attributes = {…}`), by node index.
    let declaredAttributes: [Int: [(String, AttributeValue)]]
    /// `on_result` functions, by node index.
    let resultHooks: [Int: LuaValue]
    /// The root's `flags = { … }`: the values `luna verify` tries, by flag name.
    let flagValues: [(name: String, values: [String])]
    /// `verify = { check = "reason" }` and `reach = "app"`, by node index.
    let verifyReasons: [Int: [(check: String, reason: String)]]
    let appOnly: Set<Int>
    /// Rows declared on screens (`rows = {…}`), by node index.
    let declaredRows: [Int: [ScreenRow]]
    /// Actions declared on screens (`actions = {…}`), by node index.
    let declaredActions: [Int: [ScreenAction]]
    /// `sample = { id = { "42", "7" } }` by node index: values for the endpoint's parameters.
    let declaredSamples: [Int: [(name: String, values: [String])]]
    /// Every file the script loaded (the script first), for watching.
    let files: [String]
    let path: String
    /// Kept for `require` calls made later, from callbacks.
    let environment: ScriptEnvironment
    var vm: LuaVM { callbacks.vm }

    /// Loads `path` with `options`; `hostPresenters` are the names a script may use.
    ///
    /// - Throws: ``RouteScriptError`` of kind `load` with the file and line.
    convenience init(
        path: String, options: RouteScriptOptions, hostPresenters: Set<String>, reusing previous: RouteTree? = nil
    ) throws(RouteScriptError) {
        try self.init(
            source: try Self.read(path), name: ScriptFile.name(of: path), folder: ScriptFile.folder(of: path),
            path: path, options: options, hostPresenters: hostPresenters, reusing: previous)
    }

    /// The text of the script at `path`.
    static func read(_ path: String) throws(RouteScriptError) -> String {
        do { return try ScriptFile.read(path) } catch { throw RouteScriptError(.load, "\(error)") }
    }

    /// Loads script text. `name` is the chunk name errors show (`books.lua`); `folder` is
    /// where `require` looks; `previous`, the tree it replaces (its matcher is kept when the
    /// routes are the same).
    init(
        source: String, name: String, folder: String, path: String, options: RouteScriptOptions,
        hostPresenters: Set<String>, reusing previous: RouteTree? = nil
    ) throws(RouteScriptError) {
        self.path = path
        var vmOptions = LuaVM.Options()
        vmOptions.sandbox = options.sandbox
        vmOptions.loadLimits = options.loadLimits
        vmOptions.callLimits = options.callLimits
        vmOptions.memoryLimit = options.memoryLimit
        vmOptions.output = options.output
        let vm: LuaVM
        do { vm = try LuaVM(options: vmOptions) } catch { throw RouteScriptError(.load, "\(error)") }
        let callbacks = ScriptCallbacks(vm: vm, options: options)
        self.callbacks = callbacks
        let builders = Builders(vm: vm)
        let environment = ScriptEnvironment(
            vm: vm, folder: folder, builders: builders, callbacks: callbacks)
        self.environment = environment
        let root: ScriptNode
        do {
            environment.install()
            let results = try vm.run(source, chunkName: "@" + name)
            guard let value = results.first, let node = builders.node(in: value) else {
                let got = results.first?.typeName ?? "nothing"
                throw RouteScriptError(
                    .load,
                    "\(name): the script must return the root node (a switcher, junction, stack or endpoint), not \(got)"
                )
            }
            root = node
        } catch let error as RouteScriptError {
            throw error
        } catch let error as LuaError {
            // A DSL mistake reported by a builder or require is complete with its file:line;
            // a traceback would only say "in function 'endpoint'".
            let fromBuilder =
                DSLSchema.builders.map(\.name).contains { name in
                    error.traceback?.hasPrefix("stack traceback:\n\t[C]: in function '\(name)'") == true
                } || error.traceback?.hasPrefix("stack traceback:\n\t[C]: in function 'require'") == true
            throw RouteScriptError(
                .load, Self.hinted(error.message), traceback: fromBuilder ? nil : error.traceback,
                location: error.location.map(SourceLocation.init))
        } catch {
            throw RouteScriptError(.load, "\(error)")
        }
        self.files = (path.isEmpty ? [] : [path]) + environment.requiredFiles
        var preparer = ScriptNodePreparer(callbacks: callbacks, hostPresenters: hostPresenters)
        preparer.headlessUnknown = options.unknownHostPresentersAreHeadless
        // Built or not, the tree is done with the declarations: their hooks go (see there).
        defer { preparer.detachHooks() }
        let declaration: Declaration
        do {
            declaration = try preparer.prepare(root)
            let tree = try RouteTree(declaration: declaration, reusing: previous)
            self.tree = tree
            self.headlessHostPresenters = preparer.headless
            environment.tree = tree
        } catch let error as RouteDefinitionError {
            throw RouteScriptError(.load, error.message, location: error.location)
        } catch let error as RouteScriptError {
            throw error
        } catch {
            throw RouteScriptError(.load, "\(error)")
        }
        var presenters = [PresenterChoice?](repeating: nil, count: tree.nodes.count)
        for (index, choice) in preparer.choices where index < tree.nodes.count { presenters[index] = choice }
        self.presenters = presenters
        self.declaredAttributes = Dictionary(preparer.attributes, uniquingKeysWith: { $1 })
        self.resultHooks = Dictionary(preparer.resultHooks, uniquingKeysWith: { $1 })
        self.flagValues = preparer.flagValues
        self.verifyReasons = Dictionary(preparer.verifyReasons, uniquingKeysWith: { $1 })
        self.appOnly = Set(preparer.appOnly)
        self.declaredRows = Dictionary(preparer.rows, uniquingKeysWith: { $1 })
        self.declaredActions = Dictionary(preparer.actions, uniquingKeysWith: { $1 })
        self.declaredSamples = try Self.samples(preparer.samples, in: tree)
    }

    /// Closes the Lua state of a script that failed to become the host's (freed in the
    /// background).
    func discard() {
        vm.closeFreeingInBackground()
    }

    /// Declared samples by node index, in each pattern's parameter order; every sampled name
    /// must be a parameter of the endpoint's own pattern.
    private static func samples(
        _ declared: [(Int, [(name: String, values: [String])], SourceLocation?)], in tree: RouteTree
    ) throws(RouteScriptError) -> [Int: [(name: String, values: [String])]] {
        var samples: [Int: [(name: String, values: [String])]] = [:]
        for (index, declared, location) in declared where index < tree.nodes.count {
            // Every sampled name is a parameter of the endpoint's own pattern.
            let endpoint = tree.endpoints.first { $0.node == index }
            let parameters = endpoint?.definition.pattern?.parameterNames ?? []
            for sample in declared where !parameters.contains(sample.name) {
                let pattern = endpoint?.definition.displayText ?? tree.nodes[index].id
                let known = parameters.isEmpty ? "it has none" : "its parameters: \(parameters.joined(separator: ", "))"
                throw RouteScriptError(
                    .load, "sample names '\(sample.name)', which is not a parameter of '\(pattern)' (\(known))",
                    location: location)
            }
            // In the pattern's order: the first parameter varies slowest in the combinations.
            samples[index] = declared.sorted {
                (parameters.firstIndex(of: $0.name) ?? 0) < (parameters.firstIndex(of: $1.name) ?? 0)
            }
        }
        return samples
    }

    /// A call of an unknown global that looks like a misspelt builder gets a suggestion:
    /// `attempt to call a nil value (global 'endpont') (did you mean 'endpoint'?)`.
    static func hinted(_ message: String) -> String {
        let marker = "attempt to call a nil value (global '"
        guard let start = message.utf8.firstRange(of: marker.utf8), message.hasSuffix("')") else { return message }
        let name = String(message[start.upperBound..<message.index(message.endIndex, offsetBy: -2)])
        guard let builder = DSLSchema.suggestion(for: name, among: DSLSchema.builders.map(\.name)) else {
            return message
        }
        return message + " (did you mean '\(builder)'?)"
    }

    /// True when nothing in the tree runs Lua: no presenter hooks, guards (leave guards
    /// included) or function validators (a query key's too). Such a script's Lua state is never
    /// used after the load.
    var runsNoLua: Bool { Self.runsNoLua(presenters: presenters, tree: tree) }

    private static func runsNoLua(presenters: [PresenterChoice?], tree: RouteTree) -> Bool {
        !presenters.contains { if case .hooks? = $0 { true } else { false } } && tree.leaveGuards.isEmpty
            && tree.endpoints.allSatisfy { endpoint in
                endpoint.guards.isEmpty && !endpoint.definition.validators.values.contains(where: \.isPredicate)
                    && !(endpoint.definition.querySchema?.fields.contains { $0.validator?.isPredicate == true } ?? false)
            }
    }
}

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
    /// Rows declared on screens (`rows = {…}`), by node index.
    let declaredRows: [Int: [(label: String, go: String)]]
    /// Actions declared on screens (`actions = {…}`), by node index.
    let declaredActions: [Int: [ScreenAction]]
    /// `sample = { id = { "42", "7" } }` by node index: values for the endpoint's parameters.
    let declaredSamples: [Int: [(name: String, values: [String])]]
    /// The samples as declared, with where (checked against the patterns again when patched).
    private let sampleDeclarations: [(Int, [(name: String, values: [String])], SourceLocation?)]
    /// Every file the script loaded (the script first), for watching.
    let files: [String]
    let path: String
    /// Kept for `require` calls made later, from callbacks.
    let environment: ScriptEnvironment
    /// The text, root declaration and load conditions of a script that runs no Lua after its
    /// load (nil for any other): what a later save's ``DeclarationEdit`` is applied to.
    var declarations: Declarations?
    /// False for a script patched from another (``init(patching:edit:source:)``): the Lua
    /// state is the other's, and a failed reload gives the declarations their strings back
    /// instead of closing it.
    let ownsState: Bool
    /// The declarations' strings before an edit, to put back if the reload fails.
    private var replaced: [(Declaration, ReferenceWritableKeyPath<Declaration, String?>, String)]
    /// The tree of the script this one was patched from, which its environment gets back then
    /// (until the reload succeeded: held longer, it would keep a second tree alive).
    private var previousTree: RouteTree?

    struct Declarations {
        let source: String
        /// The declaration at each node index (the root first), and the line of its builder call.
        let placed: [Declaration]
        let lines: [Int32]
        let conditions: LoadConditions
        /// The Lua state's ``LuaHost/LuaVM/callCount`` once the declarations were made: a call
        /// since (Lua typed into the REPL) may have left state a run of the script would not.
        var calls: Int
    }

    /// What a load's result depends on besides the text, for a script that reads no globals.
    struct LoadConditions: Equatable {
        var hostPresenters: Set<String>
        var headlessUnknown: Bool
        var sandbox: LuaSandbox
        var loadLimits: LuaLimits
        var memoryLimit: Int

        init(options: RouteScriptOptions, hostPresenters: Set<String>) {
            self.hostPresenters = hostPresenters
            headlessUnknown = options.unknownHostPresentersAreHeadless
            sandbox = options.sandbox
            loadLimits = options.loadLimits
            memoryLimit = options.memoryLimit
        }
    }

    var vm: LuaVM { callbacks.vm }

    /// Loads `path` with `options`; `hostPresenters` are the names a script may use.
    ///
    /// - Throws: ``RouteScriptError`` of kind `load` with the file and line.
    convenience init(
        path: String, options: RouteScriptOptions, hostPresenters: Set<String>, reusing previous: RouteTree? = nil
    ) throws(RouteScriptError) {
        try self.init(
            path: path, text: try Self.read(path), options: options, hostPresenters: hostPresenters,
            reusing: previous)
    }

    /// Loads `text`, read from `path` (``read(_:)``).
    convenience init(
        path: String, text: String, options: RouteScriptOptions, hostPresenters: Set<String>,
        reusing previous: RouteTree? = nil
    ) throws(RouteScriptError) {
        try self.init(
            source: text, name: ScriptFile.name(of: path), folder: ScriptFile.folder(of: path), path: path,
            options: options, hostPresenters: hostPresenters, reusing: previous)
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
        self.declaredRows = Dictionary(preparer.rows, uniquingKeysWith: { $1 })
        self.declaredActions = Dictionary(preparer.actions, uniquingKeysWith: { $1 })
        self.sampleDeclarations = preparer.samples
        self.declaredSamples = try Self.samples(preparer.samples, in: tree)
        self.ownsState = true
        self.replaced = []
        self.previousTree = nil
        self.declarations =
            Self.runsNoLua(presenters: presenters, tree: tree)
            ? Declarations(
                source: source, placed: preparer.placed, lines: preparer.lines,
                conditions: LoadConditions(options: options, hostPresenters: hostPresenters), calls: vm.callCount)
            : nil
    }

    /// The script `previous` with `edit` applied to its declarations, its tree built again,
    /// sharing its Lua state: nil when the declarations do not hold the edit's old string at
    /// its line (then the script must run). `source` is the edited text.
    ///
    /// - Throws: what loading `source` would throw once it ran: ``RouteScriptError`` of kind
    ///   `load` for a pattern the tree refuses or a sample naming no parameter.
    init?(patching previous: LoadedScript, edit: DeclarationEdit, source: String) throws(RouteScriptError) {
        guard let declarations = previous.declarations, let root = declarations.placed.first,
            previous.vm.callCount == declarations.calls, let keyPath = edit.field.keyPath
        else { return nil }
        let old = Self.string(edit.oldLiteral, in: previous.vm)
        let new = Self.string(edit.newLiteral, in: previous.vm)
        // Those two reads ran in the state and left nothing there: not calls that make it differ
        // from a fresh one.
        previous.declarations?.calls = previous.vm.callCount
        guard let old, let new else { return nil }
        // The nodes the builder call made (a node placed twice has a copy), with the
        // declarations above them.
        var found: [RouteTree.ChangedDeclaration] = []
        guard declarations.placed.count == previous.tree.nodes.count else { return nil }
        for (index, line) in declarations.lines.enumerated() where line == edit.line {
            let declaration = declarations.placed[index]
            guard declaration.kind == edit.kind else { continue }
            let above = previous.tree.chain(to: index).dropLast().map { declarations.placed[$0] }
            found.append(.init(index: index, declaration: declaration, ancestors: above))
        }
        guard !found.isEmpty,
            found.allSatisfy({ $0.declaration[keyPath: keyPath]?.utf8.elementsEqual(old.utf8) == true })
        else { return nil }
        // What the builder would refuse is left to the builder: the script runs and says so.
        if edit.field == .named("id"), new.isEmpty { return nil }
        for change in found { change.declaration[keyPath: keyPath] = new }
        let replaced = found.map { ($0.declaration, keyPath, old) }
        do {
            // Only what the change reaches is made again; else (or to say what is wrong) the
            // whole tree is built from the declarations.
            let tree =
                try RouteTree.patching(previous.tree, changes: found)
                ?? RouteTree(declaration: root, reusing: previous.tree)
            self.tree = tree
            self.declaredSamples = try Self.samples(previous.sampleDeclarations, in: tree)
        } catch let error as RouteDefinitionError {
            Self.revert(replaced)
            throw RouteScriptError(.load, error.message, location: error.location)
        } catch {
            Self.revert(replaced)
            throw error as? RouteScriptError ?? RouteScriptError(.load, "\(error)")
        }
        callbacks = previous.callbacks
        environment = previous.environment
        environment.tree = tree
        presenters = previous.presenters
        headlessHostPresenters = previous.headlessHostPresenters
        declaredAttributes = previous.declaredAttributes
        declaredRows = previous.declaredRows
        declaredActions = previous.declaredActions
        sampleDeclarations = previous.sampleDeclarations
        files = previous.files
        path = previous.path
        self.declarations = Declarations(
            source: source, placed: declarations.placed, lines: declarations.lines,
            conditions: declarations.conditions, calls: previous.vm.callCount)
        ownsState = false
        self.replaced = replaced
        previousTree = previous.tree
    }

    /// The reload that made this script succeeded: what a failure would have put back goes.
    func kept() {
        replaced = []
        previousTree = nil
    }

    /// Puts the declarations' strings back after a failed reload (a patched script), or
    /// closes the Lua state (a script of its own).
    func discard() {
        if ownsState {
            vm.closeFreeingInBackground()
        } else {
            Self.revert(replaced)
            environment.tree = previousTree
        }
    }

    private static func revert(_ replaced: [(Declaration, ReferenceWritableKeyPath<Declaration, String?>, String)]) {
        for (declaration, keyPath, old) in replaced { declaration[keyPath: keyPath] = old }
    }

    /// A string literal's value, as Lua reads it (escapes and long brackets included).
    private static func string(_ literal: String, in vm: LuaVM) -> String? {
        guard case .string(let text)? = try? vm.run("return " + literal, chunkName: "=literal").first else {
            return nil
        }
        return text
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

    /// True when nothing in the tree runs Lua: no presenter hooks, guards or function
    /// validators. Such a script's Lua state is never used after the load.
    var runsNoLua: Bool { Self.runsNoLua(presenters: presenters, tree: tree) }

    private static func runsNoLua(presenters: [PresenterChoice?], tree: RouteTree) -> Bool {
        !presenters.contains { if case .hooks? = $0 { true } else { false } }
            && tree.endpoints.allSatisfy { endpoint in
                endpoint.guards.isEmpty && !endpoint.definition.validators.values.contains(where: \.isPredicate)
            }
    }
}

import LuaHost
import RouteCore

/// The globals a route script sees on top of the sandbox: the builders (also as the module
/// `luna`), `device`, `flags`, and a `require` limited to the script's own folder.
final class ScriptEnvironment {
    /// Unowned: `require` lives in the VM; the loaded script owns both.
    unowned let vm: LuaVM
    let folder: String
    let builders: Builders
    let callbacks: ScriptCallbacks
    /// Files loaded through `require`, in order.
    private(set) var requiredFiles: [String] = []
    private var modules: [String: LuaValue] = [:]
    private var loading: Set<String> = []
    /// The compiled tree, once the script has returned it (for `luna.path`).
    var tree: RouteTree?

    init(vm: LuaVM, folder: String, builders: Builders, callbacks: ScriptCallbacks) {
        self.vm = vm
        self.folder = folder
        self.builders = builders
        self.callbacks = callbacks
    }

    func install() {
        let globals = vm.globals
        let luna = vm.newTable(fieldCapacity: 8)
        for (name, function) in builders.functions() {
            try? vm.rawSet(globals, key: .string(name), value: function)
            try? vm.rawSet(luna, key: .string(name), value: function)
        }
        try? vm.rawSet(luna, key: "device", value: callbacks.deviceTable)
        try? vm.rawSet(luna, key: "flags", value: callbacks.flagsTable)
        try? vm.rawSet(
            luna, key: "path",
            value: vm.function(named: "luna.path") { [unowned self] args in [.string(try self.path(args))] })
        // `pending("splash", { timeout = 5 })`: a guard's answer "not known yet".
        let pending = vm.function(named: "pending") { [unowned self] args in [try self.pending(args)] }
        try? vm.rawSet(luna, key: "pending", value: pending)
        try? vm.rawSet(globals, key: "pending", value: pending)
        modules["luna"] = luna
        try? vm.rawSet(globals, key: "luna", value: luna)
        try? vm.rawSet(globals, key: "device", value: callbacks.deviceTable)
        try? vm.rawSet(globals, key: "flags", value: callbacks.flagsTable)
        try? vm.rawSet(
            globals, key: "require",
            value: vm.function(named: "require") { [unowned self] args in
                [try self.require(try args.string(1))]
            })
    }

    /// `luna.path(name, values [, query])`: a named route's path; values that are its parameters
    /// fill the pattern, the others (and `query`) become the query
    /// (`luna.path("book", { id = 42, title = "Dune" })` → `books/42?title=Dune`).
    private func path(_ args: LuaArguments) throws -> String {
        let name = try args.string(1)
        guard let tree else {
            throw LuaArgumentError(
                message:
                    "luna.path: the route tree is not built yet (call it from a hook or a guard, not while the script loads)"
            )
        }
        // A value that is a table is a list (`tags = { "a", "b" }`: one query item per value).
        var lists: [String: [String]] = [:]
        func strings(_ value: LuaValue) throws -> [String: String] {
            guard case .table = value else { return [:] }
            var result: [String: String] = [:]
            for (key, item) in try vm.entries(value) {
                guard case .string(let field) = key else { continue }
                if case .table = item {
                    let count = try vm.rawLength(item)
                    lists[field] = try (0..<count).map { try vm.toString(try vm.rawGet(item, index: $0 + 1)) }
                    continue
                }
                result[field] = try vm.toString(item)
            }
            return result
        }
        // luna.path(name, values [, query]): an explicit query table adds to the query.
        let values = try strings(args[2])
        let query = try strings(args[3])
        do {
            let path = try tree.path(forRouteNamed: name, values: values, lists: lists)
            guard !query.isEmpty else { return path }
            return path + (path.contains("?") ? "&" : "?")
                + Request.format(segments: [], query: query, fragment: nil).dropFirst()
        } catch {
            throw LuaArgumentError(message: "luna.path: " + error.message)
        }
    }

    /// The key of the table `pending(…)` returns: a guard returning it waits.
    static let pendingKey = "__luna_pending"

    /// `pending(screen [, { timeout = seconds }])`: what an `enabled` or `redirect` guard
    /// returns when it cannot answer yet (docs/dsl.md, "Gates that wait").
    private func pending(_ args: LuaArguments) throws -> LuaValue {
        let screen = try args.string(1)
        var timeout: Double?
        if case .table = args[2] {
            switch try vm.rawGet(args[2], key: "timeout") {
            case .nil: break
            case .integer(let seconds) where seconds >= 0: timeout = Double(seconds)
            case .number(let seconds) where seconds.isFinite && seconds >= 0: timeout = seconds
            default: throw LuaArgumentError(message: "pending: timeout is a number of seconds (0 or more)")
            }
        } else if !args[2].isNil {
            throw LuaArgumentError(message: "pending: the options are a table ({ timeout = 5 })")
        }
        let marker = vm.newTable(fieldCapacity: 2)
        try vm.rawSet(marker, key: .string(Self.pendingKey), value: .string(screen))
        if let timeout { try vm.rawSet(marker, key: "timeout", value: .number(timeout)) }
        return marker
    }

    /// `require "tabs.books"` loads `tabs/books.lua` from the script's folder, once.
    private func require(_ name: String) throws -> LuaValue {
        if let module = modules[name] { return module }
        let valid =
            !name.isEmpty && !name.hasPrefix(".") && !name.hasSuffix(".") && !name.contains("..")
            && name.unicodeScalars.allSatisfy {
                $0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-.".unicodeScalars.contains($0)
            }
        guard valid else {
            throw LuaArgumentError(
                message: "require: '\(name)' is not a module name (write require \"tabs.books\" for tabs/books.lua)")
        }
        let relative = name.split(separator: ".").joined(separator: "/") + ".lua"
        let path = folder + "/" + relative
        guard ScriptFile.canonical(path) != nil else {
            throw LuaArgumentError(
                message: "require: module '\(name)' not found (no file '\(relative)' beside the script)")
        }
        if case .failure(let failure) = ScriptFile.contained(relative, in: folder) {
            throw LuaArgumentError(message: "require: module '\(name)': \(failure.description)")
        }
        guard !loading.contains(name) else {
            throw LuaArgumentError(message: "require: module '\(name)' requires itself (a cycle)")
        }
        loading.insert(name)
        defer { loading.remove(name) }
        let source = try ScriptFile.read(path)
        requiredFiles.append(path)
        let results = try vm.call(try vm.load(source, chunkName: "@" + relative), [.string(name)])
        let module = results.first.flatMap { $0.isNil ? nil : $0 } ?? .boolean(true)
        modules[name] = module
        return module
    }
}

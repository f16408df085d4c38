import LuaHost
import LunaLive
import RouteCore
import RouteScript

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One run of a test file: a sandboxed Lua state with the test API, and the apps its code
/// opened. A case runs in a world of its own.
final class TestWorld {
    let vm: LuaVM
    let file: String
    let folder: String
    private let runner: TestRunner
    private let api: LuaValue
    private var apps: [TestApp] = []

    init(file: String, runner: TestRunner) throws {
        self.file = file
        self.folder = file.contains("/") ? String(file[..<(file.lastIndex(of: "/") ?? file.endIndex)]) : "."
        self.runner = runner
        var options = LuaVM.Options()
        options.sandbox = .standard
        options.memoryLimit = runner.options.memoryLimit
        options.loadLimits = runner.options.limits
        options.callLimits = runner.options.limits
        options.output = { writeLine($0) }
        vm = try LuaVM(options: options)
        api = vm.newTable()
        install()
        // The prelude is compiled once per run and loaded as bytecode into every world.
        let prelude: LuaValue
        if let bytecode = runner.preludeBytecode {
            prelude = try vm.load(bytecode: bytecode, chunkName: "=luna-test")
        } else {
            prelude = try vm.load(Prelude.source, chunkName: "=luna-test")
            runner.preludeBytecode = try vm.bytecode(of: prelude)
        }
        _ = try vm.call(prelude, [api])
    }

    deinit { vm.close() }

    /// Runs the test file's chunk; returns its cases (name, `file:line`).
    /// Runs the test file from its text (returning its bytecode too, for the cases' worlds) or
    /// from that bytecode (no parsing again per case).
    func load(_ source: String, collecting: Bool = false) throws -> [(name: String, line: String?)] {
        try run(try vm.load(source, chunkName: "@" + ScriptPaths.display(file)), collecting: collecting)
    }

    /// Runs the precompiled file for case `only` (1-based): the other cases are not kept.
    func load(bytecode: [UInt8], only: Int) throws {
        try vm.rawSet(api, key: "only", value: .integer(Int64(only)))
        _ = try run(try vm.load(bytecode: bytecode, chunkName: "@" + ScriptPaths.display(file)), collecting: false)
    }

    /// The bytecode of the test file's chunk (compiled in this world).
    func bytecode(_ source: String) throws -> [UInt8]? {
        try vm.bytecode(of: try vm.load(source, chunkName: "@" + ScriptPaths.display(file)))
    }

    private func run(_ chunk: LuaValue, collecting: Bool) throws -> [(name: String, line: String?)] {
        try vm.rawSet(api, key: "collecting", value: .boolean(collecting))
        _ = try vm.call(chunk, [], limits: runner.options.limits)
        guard collecting else { return [] }
        let cases = try vm.call(try vm.rawGet(api, key: "cases"))[0]
        var result: [(String, String?)] = []
        for index in 0..<(try vm.rawLength(cases)) {
            let entry = try vm.rawGet(cases, index: index + 1)
            guard case .string(let name) = try vm.rawGet(entry, key: "name") else { continue }
            let line: String? = if case .string(let text) = try vm.rawGet(entry, key: "line") { text } else { nil }
            result.append((name, line))
        }
        return result
    }

    /// Runs case `index` (1-based); nil when it passed.
    func runCase(_ index: Int) throws -> (message: String, location: String?)? {
        let run = try vm.load(
            """
            local cases, i = ...
            local ok, err = pcall(cases[i].body)
            if ok then return true end
            if type(err) == "table" and err.luna_failure then return false, err.message, err.where end
            if type(err) == "table" and err.kind then return false, err.kind .. ": " .. tostring(err.message), err.where end
            return false, tostring(err)
            """, chunkName: "=luna-test")
        let cases = try vm.call(try vm.rawGet(api, key: "cases"))[0]
        let results = try vm.call(run, [cases, .integer(Int64(index))], limits: runner.options.limits)
        guard results.first == .boolean(false) else { return nil }
        let text: String = if results.count > 1, case .string(let text) = results[1] { text } else { "failed" }
        let message = Self.stopped(text)
        let location: String? = if results.count > 2, case .string(let text) = results[2] { text } else { nil }
        return (message, location)
    }

    /// A limit raised again in the runner after the case's own pcall has no useful position;
    /// a memory error says which limit.
    static func stopped(_ message: String) -> String {
        if message.hasPrefix("luna-test:"), let colon = message.dropFirst(10).firstIndex(of: ":") {
            return "the case stopped: " + message[message.index(after: colon)...].trimmingPrefix(" ")
        }
        if message == "not enough memory" { return "the case stopped: memory limit exceeded (not enough memory)" }
        return message
    }

    // MARK: Host functions

    private func install() {
        func add(_ name: String, _ body: @escaping LuaHostFunction) {
            try? vm.rawSet(api, key: .string(name), value: vm.function(named: name, body))
        }
        try? vm.rawSet(api, key: "commands", value: commandList())
        add("line") { args in
            let level = Int((try? args.integer(1)) ?? 1)
            return [args.location(level: level).map { .string("\($0.file):\($0.line)") } ?? .nil]
        }
        add("open") { [unowned self] args in [.integer(Int64(try self.open(args)))] }
        add("act") { [unowned self] args in
            let app = try self.app(args)
            let action = try args.string(2)
            let rest = try (3..<max(3, args.count + 1)).map { try self.json(args[$0]) }
            guard let failure = app.act(action, rest) else { return [.boolean(true)] }
            return [.boolean(false), .string(failure.kind), .string(failure.message)]
        }
        add("get") { [unowned self] args in [try self.observe(try self.app(args), try args.string(2))] }
        add("node") { [unowned self] args in
            let app = try self.app(args)
            let what = try args.string(2)
            let id: String? = if case .string(let text) = args[3] { text } else { nil }
            return [try self.node(app, what, id)]
        }
        add("explain") { [unowned self] args in [.string(try self.app(args).explain(try args.string(2)))] }
        add("last") { [unowned self] args in [try self.app(args).lastRequest.map { .string($0) } ?? .nil] }
        add("snapshot") { [unowned self] args in
            let app = try self.app(args)
            let outcome = try Snapshots.check(
                kind: try args.string(2), name: try args.string(3),
                actual: try self.snapshotText(app, try args.string(2)),
                testFile: self.file, update: self.runner.options.update)
            return outcome.map { [.boolean(false), .string($0)] } ?? [.boolean(true)]
        }
    }

    /// A Lua value as a command's field: scalars as they are, a table as an object (string
    /// keys) or a list (keys 1…n), two levels deep at most.
    private func json(_ value: LuaValue, depth: Int = 0) throws -> JSONValue {
        switch value {
        case .nil: return .null
        case .boolean(let b): return .bool(b)
        case .integer(let n): return .number(String(n))
        case .number(let n): return .number(Command.number(n))
        case .string(let text): return .string(text)
        case .table where depth < 2:
            let entries = try vm.entries(value)
            let indices = entries.compactMap { entry -> Int? in
                if case .integer(let n) = entry.key { return Int(n) }
                return nil
            }
            if !entries.isEmpty, indices.count == entries.count, Set(indices) == Set(1...entries.count) {
                return .array(
                    try entries.sorted { (Int($0.key.integerValue ?? 0)) < Int($1.key.integerValue ?? 0) }
                        .map { try json($0.value, depth: depth + 1) })
            }
            var members: [(String, JSONValue)] = []
            for entry in entries {
                guard case .string(let key) = entry.key else {
                    throw LuaArgumentError(message: "an action's table has string keys (or is a list)")
                }
                members.append((key, try json(entry.value, depth: depth + 1)))
            }
            return .object(members.sorted { $0.0 < $1.0 })
        default:
            throw LuaArgumentError(
                message: "an action takes strings, numbers, booleans and tables, not a \(value.typeName)")
        }
    }

    /// The Lua test API's methods, from the command table: `{ { lua = "go", op = "dispatch" }, … }`.
    private func commandList() throws -> LuaValue {
        let list = vm.newTable()
        var index: Int64 = 1
        for spec in CommandSpec.all where spec.surfaces.contains(.test) {
            guard let method = spec.lua else { continue }
            let entry = vm.newTable()
            try vm.rawSet(entry, key: .string("lua"), value: .string(method))
            try vm.rawSet(entry, key: .string("op"), value: .string(spec.op))
            try vm.rawSet(list, key: .integer(index), value: entry)
            index += 1
        }
        return list
    }

    private func app(_ args: LuaArguments) throws -> TestApp {
        let handle = Int(try args.integer(1))
        guard apps.indices.contains(handle) else { throw LuaArgumentError(message: "not an app") }
        return apps[handle]
    }

    /// `luna.open(path, { device =, flags = })`: a script beside the test file (relative paths
    /// only, `.lua` files only: a test reads no other file).
    private func open(_ args: LuaArguments) throws -> Int {
        let relative = try args.string(1)
        guard relative.hasSuffix(".lua"), !relative.hasPrefix("/"), !relative.contains("\0") else {
            throw LuaArgumentError(message: "luna.open: '\(relative)' is not a relative path to a .lua script")
        }
        var options = runner.options.scriptOptions
        let table = args[2]
        if case .table = table {
            if case .string(let device) = try vm.rawGet(table, key: "device") {
                guard let kind = Device(rawValue: device) else {
                    throw LuaArgumentError(message: "luna.open: device is phone or pad, not '\(device)'")
                }
                options.device = kind
            }
            let flags = try vm.rawGet(table, key: "flags")
            if case .table = flags {
                for (key, value) in try vm.entries(flags) {
                    guard case .string(let name) = key else { continue }
                    options.flags[name] = try vm.toString(value)
                }
            }
        }
        // One rule with require: inside the test's folder once links are resolved, a regular file.
        let path: String
        do { path = try ScriptFiles.contained(relative, in: folder) } catch {
            throw LuaArgumentError(message: "luna.open: \(error)")
        }
        do {
            apps.append(
                try TestApp(path: path, options: options, coverage: runner.coverage, templates: runner.templates))
        } catch {
            throw LuaArgumentError(message: "luna.open: " + TestRunner.describe(error))
        }
        return apps.count - 1
    }

    // MARK: Observations

    private func observe(_ app: TestApp, _ key: String) throws -> LuaValue {
        let state = app.state
        switch key {
        case "route": return state.map { .string($0.route) } ?? .nil
        case "name": return state?.name.map { .string($0) } ?? .nil
        case "path": return state.map { .string($0.path) } ?? .nil
        case "request": return app.lastRequest.map { .string($0) } ?? .nil
        case "params": return strings(state?.params ?? [:])
        case "query": return strings(state?.query ?? [:])
        case "fragment": return state?.fragment.map { .string($0) } ?? .nil
        case "question": return app.host.pendingQuestion.map { .string($0.text) } ?? .nil
        case "waiting": return app.host.waitingGate.map { .string($0.request) } ?? .nil
        case "plan":
            let operations = app.lastPlan?.operations ?? []
            let list = vm.newTable(arrayCapacity: operations.count)
            for (offset, operation) in operations.enumerated() {
                try vm.rawSet(list, key: .integer(Int64(offset + 1)), value: planTable(operation))
            }
            return list
        case "plan_text":
            let lines = (app.lastPlan?.operations ?? []).map(\.text)
            return try array(lines.map { .string($0) })
        case "last_result":
            // The value the last action handed to a screen (`back` with a result), nil otherwise.
            for operation in app.lastPlan?.operations ?? [] {
                guard case .deliver(_, let result) = operation else { continue }
                return try resultTable(result)
            }
            return .nil
        case "tree": return app.host.tree.map { .string($0.rendered()) } ?? .nil
        case "tree_table": return try app.host.tree.map(treeTable) ?? .nil
        case "error":
            guard let error = app.lastError else { return .nil }
            return vm.makeTable(["kind": .string(error.kind), "message": .string(error.message)])
        default:
            throw LuaArgumentError(message: "an app has no field '\(key)'")
        }
    }

    private func node(_ app: TestApp, _ what: String, _ id: String?) throws -> LuaValue {
        guard let root = app.host.tree else { return .nil }
        if what == "modal" {
            var deepest: HeadlessPresentable?
            func walk(_ presentable: HeadlessPresentable) {
                if let modal = presentable.modal { deepest = modal }
                presentable.children.forEach(walk)
                presentable.modal.map(walk)
            }
            walk(root)
            return deepest.map { .string($0.id) } ?? .nil
        }
        guard let id else { throw LuaArgumentError(message: "\(what) needs a node id") }
        guard let found = Self.find(id, in: root) else { return .nil }
        switch what {
        case "stack": return try array(found.children.map { .string($0.id) })
        case "selected":
            // A switcher holds only its active section: that is the one selected.
            if found.kind == .switcher { return found.children.first.map { .string($0.id) } ?? .nil }
            guard let index = found.selected, found.children.indices.contains(index) else { return .nil }
            return .string(found.children[index].id)
        default: return .nil
        }
    }

    static func find(_ id: String, in presentable: HeadlessPresentable) -> HeadlessPresentable? {
        if presentable.id == id { return presentable }
        for child in presentable.children { if let found = find(id, in: child) { return found } }
        return presentable.modal.flatMap { find(id, in: $0) }
    }

    private func snapshotText(_ app: TestApp, _ kind: String) throws -> String {
        kind == "plan" ? app.planText : app.host.tree?.rendered() ?? "(nothing shown)"
    }

    private func strings(_ values: [String: String]) -> LuaValue {
        vm.makeTable(values.sorted { $0.key < $1.key }.map { ($0.key, LuaValue.string($0.value)) })
    }

    private func array(_ values: [LuaValue]) throws -> LuaValue {
        let table = vm.newTable(arrayCapacity: values.count)
        for (offset, value) in values.enumerated() {
            try vm.rawSet(table, key: .integer(Int64(offset + 1)), value: value)
        }
        return table
    }

    private func planTable(_ operation: PlanOperation) throws -> LuaValue {
        var fields: [(String, LuaValue)] = [("op", .string(operation.name)), ("id", .string(operation.id))]
        switch operation {
        case .setStack(_, let items): fields.append(("items", try array(items.map { .string($0) })))
        case .setOptions(_, let options): fields.append(("options", try array(options.map { .string($0) })))
        case .select(_, let index, let option):
            fields.append(("index", .integer(Int64(index))))
            fields.append(("option", .string(option)))
        case .presentModal(_, let modal), .dismissModal(_, let modal): fields.append(("modal", .string(modal)))
        case .deliver(_, let result): fields.append(("result", try resultTable(result)))
        default: break
        }
        return vm.makeTable(fields)
    }

    /// A result as a Lua table (strings, integers, numbers, booleans).
    private func resultTable(_ result: [String: AttributeValue]) throws -> LuaValue {
        let table = vm.newTable(fieldCapacity: result.count)
        for (key, value) in result {
            let lua: LuaValue =
                switch value {
                case .string(let text): .string(text)
                case .integer(let number): .integer(number)
                case .number(let number): .number(number)
                case .boolean(let flag): .boolean(flag)
                }
            try vm.rawSet(table, key: .string(key), value: lua)
        }
        return table
    }

    private func treeTable(_ presentable: HeadlessPresentable) throws -> LuaValue {
        var fields: [(String, LuaValue)] = [
            ("kind", .string(presentable.kind.rawValue)), ("id", .string(presentable.id)),
            ("title", .string(presentable.title)),
        ]
        if let route = presentable.route { fields.append(("route", .string(route))) }
        if let activation = presentable.activation {
            fields.append(("params", strings(activation.params)))
            fields.append(("query", strings(activation.query)))
        }
        var attributes: [(String, LuaValue)] = []
        for (key, value) in presentable.attributes.sorted(by: { $0.key < $1.key }) {
            switch value {
            case .string(let s): attributes.append((key, .string(s)))
            case .integer(let i): attributes.append((key, .integer(i)))
            case .number(let d): attributes.append((key, .number(d)))
            case .boolean(let b): attributes.append((key, .boolean(b)))
            }
        }
        fields.append(("attributes", vm.makeTable(attributes)))
        // `selected` indexes `children` (1-based in Lua); a switcher's declared section is `section`.
        if presentable.kind == .switcher {
            if !presentable.children.isEmpty { fields.append(("selected", .integer(1))) }
            if let section = presentable.selected { fields.append(("section", .integer(Int64(section + 1)))) }
        } else if let selected = presentable.selected {
            fields.append(("selected", .integer(Int64(selected + 1))))
        }
        if presentable.kind != .screen {
            fields.append(("children", try array(try presentable.children.map(treeTable))))
        }
        if let modal = presentable.modal { fields.append(("modal", try treeTable(modal))) }
        return vm.makeTable(fields)
    }
}

/// Standard output, unbuffered (a test's `print`).
func writeLine(_ text: String) {
    let line = text + "\n"
    _ = line.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
}

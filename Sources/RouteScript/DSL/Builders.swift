import LuaHost
import RouteCore

/// The builder functions (`endpoint`, `stack`, `junction`/`fork`, `switcher`): each decodes
/// its table with raw access into a ``ScriptNode`` and returns it as userdata.
struct Builders {
    /// Unowned: the builder closures live in the VM, so holding it strongly would be a cycle.
    unowned let vm: LuaVM
    let nodeClass: LuaClass

    init(vm: LuaVM) {
        self.vm = vm
        self.nodeClass = vm.registerClass(
            LuaClassDefinition(
                name: "luna.node",
                toString: { object in
                    guard let node = object as? ScriptNode else { return "node" }
                    let declared = node.declaration
                    return "\(node.builder) \(declared.id ?? declared.pattern ?? declared.regex ?? "")"
                }))
    }

    /// The builder functions by name.
    func functions() -> [(String, LuaValue)] {
        DSLSchema.builders.map { name, kind in
            (name, vm.constructor(named: name, class: nodeClass) { args in try build(kind, builder: name, args) })
        }
    }

    /// The node inside a builder's result, or nil.
    func node(in value: LuaValue) -> ScriptNode? { vm.object(in: value, of: nodeClass) as? ScriptNode }

    /// Decodes a builder's table, read in place (no registry references for its strings and
    /// nodes), into a new node.
    private func build(_ kind: NodeKind, builder: String, _ args: LuaArguments) throws -> ScriptNode {
        guard args.isTable(1) else {
            if kind == .endpoint, case .string = args[1] {
                throw LuaArgumentError(
                    message: "\(builder): write endpoint { \"pattern\", … } with braces, not parentheses")
            }
            throw args.typeError(1, expected: "table")
        }
        let node = ScriptNode(kind: kind, builder: builder, location: args.callerLocation)
        let fields = DSLSchema.fields(of: kind)
        var arrayItems: [(Int64, LuaField)] = []
        // An endpoint's [1] (its pattern) apart: most tables have no other item.
        var patternItem: LuaField?
        try args.forEachField(1, objects: nodeClass) { key, value in
            switch key {
            case .integer(1) where kind == .endpoint: patternItem = value
            case .integer(let index): arrayItems.append((index, value))
            case .string(let name):
                guard let type = fields[name] else {
                    let hint =
                        DSLSchema.suggestion(for: name, among: fields.keys).map { " (did you mean '\($0)'?)" } ?? ""
                    throw failure(builder, "unknown field '\(name)'\(hint)")
                }
                guard case .value(let value) = value else {
                    throw type == .nodes
                        ? oneNode(builder, name)
                        : failure(builder, "field '\(name)' must be a \(type.rawValue) (got userdata)")
                }
                try decode(name, type, value, into: node)
            default:
                throw failure(builder, "unexpected key of type \(key.typeName) (fields are names, nodes are listed)")
            }
        }
        if arrayItems.count > 1 { arrayItems.sort { $0.0 < $1.0 } }
        if kind == .endpoint {
            // In key order: an item before [1], then [1] itself, then one after it.
            func unexpected(_ index: Int64) -> LuaArgumentError {
                failure(builder, "unexpected value at [\(index)] (an endpoint lists only its pattern)")
            }
            if let first = arrayItems.first, first.0 < 1 { throw unexpected(first.0) }
            if let patternItem {
                guard case .value(.string(let pattern)) = patternItem else {
                    throw failure(builder, "the pattern ([1]) must be a string (got \(patternItem.typeName))")
                }
                node.declaration.pattern = pattern
            }
            if let first = arrayItems.first { throw unexpected(first.0) }
            if node.declaration.pattern == nil && node.declaration.regex == nil {
                throw failure(
                    builder, "missing pattern: write endpoint { \"books/:id\", … } or endpoint { regex = \"…\" }")
            }
            if node.declaration.pattern != nil && node.declaration.regex != nil {
                throw failure(builder, "give a pattern or a regex, not both")
            }
        } else {
            for (position, item) in arrayItems.enumerated() {
                guard item.0 == Int64(position + 1) else {
                    throw failure(builder, "the node list has a hole at [\(position + 1)]")
                }
                guard case .object(let object) = item.1, let child = object as? ScriptNode else {
                    throw failure(builder, "[\(item.0)] must be a node (got \(item.1.typeName))")
                }
                node.children.append(child)
            }
            if node.children.isEmpty { throw failure(builder, "a \(kind.rawValue) needs at least one node") }
        }
        return node
    }

    /// The items of a Lua list (a table with keys 1…n and nothing else), in order; `notAList`
    /// (with "(it has other keys or holes)") otherwise.
    private func items(_ table: LuaValue, _ builder: String, _ notAList: String) throws -> [LuaValue] {
        let count = try vm.rawLength(table)
        if try vm.entries(table).count != count { throw failure(builder, notAList + " (it has other keys or holes)") }
        return try (0..<count).map { try vm.rawGet(table, index: $0 + 1) }
    }

    /// A result table (`result = { payee = "ada", amount = 50 }`): names to strings, numbers and
    /// booleans, at most ``PlanOperation/maximumResultBytes`` as JSON.
    private func result(_ table: LuaValue, _ builder: String, _ what: String) throws -> [String: AttributeValue] {
        var result: [String: AttributeValue] = [:]
        for (key, value) in try vm.entries(table) {
            guard case .string(let name) = key, let attribute = ViewHandles.attribute(value) else {
                throw failure(builder, "\(what) maps names to strings, numbers and booleans")
            }
            result[name] = attribute
        }
        let bytes = PlanOperation.json(result).utf8.count
        if bytes > PlanOperation.maximumResultBytes {
            throw failure(builder, "\(what) is \(bytes) bytes as JSON (at most \(PlanOperation.maximumResultBytes))")
        }
        return result
    }

    private func failure(_ builder: String, _ message: String) -> LuaArgumentError {
        LuaArgumentError(message: "\(builder): \(message)")
    }

    /// One node given where a list of nodes goes (`children = endpoint { … }`).
    private func oneNode(_ builder: String, _ field: String) -> LuaArgumentError {
        failure(builder, "field '\(field)' must be a list of nodes, not one node (wrap it in { })")
    }

    private func decode(_ name: String, _ type: DSLSchema.FieldType, _ value: LuaValue, into node: ScriptNode) throws {
        let builder = node.builder
        func typeError() -> LuaArgumentError {
            failure(builder, "field '\(name)' must be a \(type.rawValue) (got \(value.typeName))")
        }
        switch type {
        case .string:
            guard case .string(let text) = value else { throw typeError() }
            switch name {
            case "title": node.declaration.title = text
            case "id":
                guard !text.isEmpty else { throw failure(builder, "field 'id' must not be empty") }
                node.declaration.id = text
            case "name": node.declaration.name = text
            case "fallback": node.fallback = text
            case "regex": node.declaration.regex = text
            case "initial": node.declaration.initial = text
            case "reach":
                guard text == "app" else {
                    throw failure(builder, "reach is \"app\" (a screen only the app opens), not '\(text)'")
                }
                node.reachedByApp = true
            default: break
            }
        case .function:
            guard case .function = value else { throw typeError() }
            switch name {
            case "enabled": node.enabled = value
            case "leave": node.leave = value
            case "on_result": node.onResult = value
            default: node.redirect = value
            }
        case .table: break
        case .nodes:
            if self.node(in: value) != nil { throw oneNode(builder, name) }
            guard case .table = value else { throw typeError() }
            var nodes: [ScriptNode] = []
            let count = try vm.rawLength(value)
            for index in 1...max(count, 1) where index <= count {
                guard let child = self.node(in: try vm.rawGet(value, index: index)) else {
                    throw failure(
                        builder,
                        "field '\(name)'[\(index)] must be a node (got \(try vm.rawGet(value, index: index).typeName))")
                }
                nodes.append(child)
            }
            if try vm.entries(value).count != count {
                throw failure(builder, "field '\(name)' must be a list of nodes (it has other keys or holes)")
            }
            if name == "children" { node.children = nodes } else { node.modals = nodes }
        case .presenter:
            node.presenter = try presenterChoice(value, node: node)
        case .attributes:
            guard case .table = value else { throw typeError() }
            for (key, item) in try vm.entries(value) {
                guard case .string(let attribute) = key else {
                    throw failure(builder, "field 'attributes' has a key that is not a name (\(key.typeName))")
                }
                guard let converted = ViewHandles.attribute(item) else {
                    throw failure(
                        builder,
                        "attribute '\(attribute)' must be a string, number or boolean (got \(item.typeName))")
                }
                node.attributes.append((attribute, converted))
            }
            node.attributes.sort { $0.0 < $1.0 }
        case .strings:
            guard case .table = value else { throw typeError() }
            var texts: [String] = []
            for (offset, item) in try items(value, builder, "field '\(name)' must be a list of strings").enumerated() {
                guard case .string(let text) = item else {
                    throw failure(builder, "field '\(name)'[\(offset + 1)] must be a string (got \(item.typeName))")
                }
                texts.append(text)
            }
            node.declaration.pushes = texts
        case .boolean:
            guard case .boolean(let flag) = value else { throw typeError() }
            node.declaration.linkable = flag
        case .rows:
            guard case .table = value else { throw typeError() }
            let list = try items(value, builder, "field 'rows' must be a list of rows")
            for (offset, row) in list.enumerated() {
                let index = offset + 1
                guard case .table = row, case .string(let label) = try vm.rawGet(row, index: 1) else {
                    throw failure(builder, "rows[\(index)] must be { \"Label\", go = \"request\" }")
                }
                var go: String?
                var push: String?
                var result: [String: AttributeValue]?
                for (key, field) in try vm.entries(row) {
                    switch (key, field) {
                    case (.integer(1), _): continue
                    case (.string("go"), .string(let request)): go = request
                    case (.string("push"), .string(let request)): push = request
                    case (.string("result"), .table): result = try self.result(field, builder, "rows[\(index)].result")
                    default:
                        throw failure(
                            builder,
                            "rows[\(index)] has '\(key.stringValue ?? key.typeName)' (a row is a label and go, push or result)"
                        )
                    }
                }
                if [go != nil, push != nil, result != nil].filter({ $0 }).count > 1 {
                    throw failure(builder, "rows[\(index)] has more than one of go, push and result: a row does one")
                }
                guard let request = go ?? push ?? (result != nil ? "" : nil) else {
                    throw failure(
                        builder, "rows[\(index)] needs go = \"request\" (or push = \"request\", or result = { … })")
                }
                node.rows.append(ScreenRow(label: label, go: request, push: push != nil, result: result))
            }
        case .actions:
            guard case .table = value else { throw typeError() }
            let list = try items(value, builder, "field 'actions' must be a list of actions")
            for (offset, item) in list.enumerated() {
                let index = offset + 1
                let shape =
                    "actions[\(index)] must be { \"Label\", flag = { name = \"value\" }, go = \"request\" (or push = \"request\"), continue = true }"
                guard case .table = item, case .string(let label) = try vm.rawGet(item, index: 1) else {
                    throw failure(builder, shape)
                }
                var action = ScreenAction(label: label, flags: [], go: nil)
                for (key, field) in try vm.entries(item) {
                    switch (key, field) {
                    case (.integer(1), _): continue
                    case (.string("go"), .string(let request)):
                        if action.push { throw failure(builder, "actions[\(index)] has go and push: it does one") }
                        action.go = request
                    case (.string("push"), .string(let request)):
                        if action.go != nil { throw failure(builder, "actions[\(index)] has go and push: it does one") }
                        action.go = request
                        action.push = true
                    case (.string("continue"), .boolean(let continues)): action.continues = continues
                    case (.string("result"), .table):
                        action.result = try result(field, builder, "actions[\(index)].result")
                    case (.string("flag"), .table):
                        for (name, flagValue) in try vm.entries(field) {
                            guard case .string(let flag) = name, case .string(let text) = flagValue else {
                                throw failure(builder, "actions[\(index)].flag maps flag names to strings")
                            }
                            action.flags.append((flag, text))
                        }
                    default: throw failure(builder, shape)
                    }
                }
                action.flags.sort { $0.name < $1.name }
                if action.result != nil, action.go != nil {
                    throw failure(builder, "actions[\(index)] has go (or push) and result: it does one")
                }
                guard action.go != nil || !action.flags.isEmpty || action.result != nil else {
                    throw failure(builder, "actions[\(index)] does nothing: give it flag = {…} or go = \"request\"")
                }
                node.actions.append(action)
            }
        case .samples:
            // `sample = { id = { "42", "7" } }`, or the root's `flags = { signedIn = { "yes", "no" } }`.
            guard case .table = value else { throw typeError() }
            let shape =
                name == "flags"
                ? "flags maps flag names to lists of values (flags = { signedIn = { \"yes\", \"no\" } })"
                : "sample maps parameter names to lists of values (sample = { id = { \"42\" } })"
            var lists: [(name: String, values: [String])] = []
            for (key, list) in try vm.entries(value) {
                guard case .string(let parameter) = key, case .table = list else { throw failure(builder, shape) }
                var values: [String] = []
                for (offset, item) in try items(list, builder, "\(name).\(parameter) must be a list of strings")
                    .enumerated()
                {
                    switch item {
                    case .string(let text): values.append(text)
                    case .integer(let number): values.append(String(number))
                    default: throw failure(builder, "\(name).\(parameter)[\(offset + 1)] must be a string")
                    }
                }
                guard !values.isEmpty else { throw failure(builder, "\(name).\(parameter) has no values") }
                lists.append((parameter, values))
            }
            lists.sort { $0.name < $1.name }
            if name == "flags" { node.flagValues = lists } else { node.samples = lists }
        case .reasons:
            // `verify = { dead_end = "a kiosk screen" }`: a check switched off, with the reason.
            guard case .table = value else { throw typeError() }
            for (key, item) in try vm.entries(value) {
                guard case .string(let check) = key, case .string(let reason) = item, !reason.isEmpty else {
                    throw failure(builder, "verify maps check names to reasons (verify = { dead_end = \"why\" })")
                }
                guard VerifyCheck(rawValue: check) != nil else {
                    let known = VerifyCheck.allCases.map(\.rawValue).joined(separator: ", ")
                    throw failure(builder, "verify names no check '\(check)' (checks: \(known))")
                }
                node.verifyReasons.append((check, reason))
            }
            node.verifyReasons.sort { $0.check < $1.check }
        case .links:
            guard case .table = value else { throw typeError() }
            var links: (schemes: [String], hosts: [String], http: Bool) = ([], [], false)
            for (key, list) in try vm.entries(value) {
                guard case .string(let field) = key, field == "schemes" || field == "hosts" || field == "http" else {
                    throw failure(
                        builder, "field 'links' has schemes, hosts and http (got \(key.stringValue ?? key.typeName))")
                }
                if field == "http" {
                    guard case .boolean(let accepts) = list else {
                        throw failure(builder, "links.http must be a boolean (got \(list.typeName))")
                    }
                    links.http = accepts
                    continue
                }
                guard case .table = list else {
                    throw failure(builder, "links.\(field) must be a list of strings (got \(list.typeName))")
                }
                var names: [String] = []
                for (offset, item) in try items(list, builder, "links.\(field) must be a list of strings").enumerated()
                {
                    guard case .string(let name) = item else {
                        throw failure(builder, "links.\(field)[\(offset + 1)] must be a string")
                    }
                    names.append(name)
                }
                if field == "schemes" { links.schemes = names } else { links.hosts = names }
            }
            node.declaredLinks = links
        case .query:
            guard case .table = value else { throw typeError() }
            var fields: [DeclaredQueryField] = []
            for (key, spec) in try vm.entries(value) {
                guard case .string(let name) = key else {
                    throw failure(builder, "field 'query' must map query keys to their types (got \(key.typeName))")
                }
                fields.append(try queryField(name, spec, builder))
            }
            node.declaredQuery = fields.sorted { $0.name < $1.name }
        case .validators:
            guard case .table = value else { throw typeError() }
            for (key, validator) in try vm.entries(value) {
                guard case .string(let parameter) = key else {
                    throw failure(builder, "field 'where' must map parameter names to validators")
                }
                switch validator {
                case .string, .function: node.declaredValidators[parameter] = validator
                default:
                    throw failure(
                        builder, "where.\(parameter) must be a regex string or a function (got \(validator.typeName))")
                }
            }
        }
    }

    /// One key of `query = { … }`: `"int"`, `"string?"`, or a table with the type (or the
    /// enumeration's values) in its list part and `default`, `optional`, `list`, `where`.
    private func queryField(_ name: String, _ spec: LuaValue, _ builder: String) throws -> DeclaredQueryField {
        let what = "query.\(name)"
        let types = DSLSchema.queryTypes.keys.sorted().joined(separator: ", ")
        func typeNamed(_ text: String) throws -> (QueryField.Kind, optional: Bool) {
            let optional = text.hasSuffix("?")
            let bare = optional ? String(text.dropLast()) : text
            guard let kind = DSLSchema.queryTypes[bare] else {
                throw failure(
                    builder,
                    "\(what): '\(text)' is not a type (\(types), with ? when optional; an enumeration is a list: { \"new\", \"top\" })"
                )
            }
            return (kind, optional)
        }
        switch spec {
        case .string(let text):
            let (kind, optional) = try typeNamed(text)
            return DeclaredQueryField(name: name, kind: kind, optional: optional)
        case .table:
            var listed: [String] = []
            let count = try vm.rawLength(spec)
            for offset in 0..<count {
                let item = try vm.rawGet(spec, index: offset + 1)
                guard case .string(let text) = item else {
                    throw failure(builder, "\(what)[\(offset + 1)] must be a string (got \(item.typeName))")
                }
                listed.append(text)
            }
            var field = DeclaredQueryField(name: name, kind: .string)
            if listed.count == 1, let type = try? typeNamed(listed[0]) {
                (field.kind, field.optional) = type
            } else if listed.isEmpty {
                throw failure(builder, "\(what) needs its type ({ \"int\" }) or its values ({ \"new\", \"top\" })")
            } else {
                field.kind = .oneOf(listed)
            }
            for (key, option) in try vm.entries(spec) {
                if case .integer(let index) = key, index >= 1, index <= listed.count { continue }
                let optionName = key.stringValue ?? key.typeName
                switch (optionName, option) {
                case ("default", .string(let text)): field.defaultValue = text
                case ("default", .integer(let number)): field.defaultValue = String(number)
                case ("default", .number(let number)): field.defaultValue = String(number)
                case ("default", .boolean(let flag)): field.defaultValue = flag ? "true" : "false"
                case ("optional", .boolean(let flag)): field.optional = field.optional || flag
                case ("list", .boolean(let flag)): field.list = flag
                case ("where", .string), ("where", .function): field.validator = option
                case ("default", _), ("optional", _), ("list", _), ("where", _):
                    let expected =
                        optionName == "default"
                        ? "a string, number or boolean"
                        : optionName == "where" ? "a regex string or a function" : "a boolean"
                    throw failure(builder, "\(what).\(optionName) must be \(expected) (got \(option.typeName))")
                default:
                    let hint =
                        DSLSchema.suggestion(for: optionName, among: DSLSchema.queryOptions).map {
                            " (did you mean '\($0)'?)"
                        } ?? ""
                    throw failure(
                        builder,
                        "\(what) has '\(optionName)'\(hint) (a query key takes its type or values, default, optional, list and where)"
                    )
                }
            }
            return field
        default:
            throw failure(builder, "\(what) must be a type (\(types)) or a table (got \(spec.typeName))")
        }
    }

    private func presenterChoice(_ value: LuaValue, node: ScriptNode) throws -> PresenterChoice {
        let builder = node.builder
        switch value {
        case .string(let name): return .host(name)
        case .function: return .hooks(["create": value])
        case .table:
            var hooks: [String: LuaValue] = [:]
            for (key, hook) in try vm.entries(value) {
                guard case .string(let name) = key, let kinds = DSLSchema.hooks[name] else {
                    let text = key.stringValue ?? key.description
                    let hint =
                        DSLSchema.suggestion(for: text, among: DSLSchema.hooks.keys).map { " (did you mean '\($0)'?)" }
                        ?? ""
                    throw failure(builder, "unknown presenter hook '\(text)'\(hint)")
                }
                guard kinds.contains(node.kind) else {
                    throw failure(
                        builder,
                        "presenter hook '\(name)' does not apply to \(node.kind == .endpoint ? "an" : "a") \(node.kind.rawValue)"
                    )
                }
                guard case .function = hook else {
                    throw failure(builder, "presenter hook '\(name)' must be a function (got \(hook.typeName))")
                }
                hooks[name] = hook
            }
            return .hooks(hooks)
        default:
            throw failure(builder, "field 'presenter' must be a string, function or table (got \(value.typeName))")
        }
    }
}

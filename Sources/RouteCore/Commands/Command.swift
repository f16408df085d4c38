/// One operation on a live session, as data. Every way in speaks it: the REPL's lines, the
/// page's and the device's messages, `luna go`, the Lua test API, the exported prototype's
/// steps and the history's entries. It has one JSON form (``json``, `{"op":"dispatch",
/// "request":"books/42","keep":true}`), read back by ``init(op:fields:)``, and one table of
/// what each operation takes (``CommandSpec``), from which the REPL's parsing, `help` and
/// completion and the Lua test API's methods are derived — so an argument's rules are the
/// same wherever it comes from.
package enum Command: Sendable, Equatable {
    /// Dispatch a request (`keepStack`: a tab tap that keeps the tab's stack).
    case dispatch(String, keepStack: Bool = false)
    /// Push the screen a request matches onto the top stack shown (docs/dsl.md, "Push").
    case push(String)
    /// Record a change the UI already made.
    case sync(String)
    /// Open the endpoint with node id `node`, its pattern filled with `params` (a row, a
    /// tab never visited, a parameter form).
    case open(node: String, params: [String: String], keepStack: Bool = false)
    /// The user went back: pop the top stack or dismiss the top modal.
    case back
    /// Close the top sheet: what it covered shows as it was.
    case close
    /// Back, handing a result to the screen that shows again (`{"op":"back","result":{…}}`).
    case returning([String: AttributeValue])
    /// Make the change a leave guard asked about (its question answered yes).
    case confirm
    /// Drop a leave guard's question: nothing changes.
    case cancel
    /// Press a button the shown screen declares (`actions`), by its label: its flags, then its
    /// request (or, with `continue = true`, the request a guard kept).
    case tap(String)
    /// Move the session's clock (seconds, virtual): a waiting gate's timeout may fall due.
    case wait(Double)
    case undo
    case redo
    /// Go to the state of history entry N.
    case travel(Int)
    /// Back to where the app starts: nothing shown, then the script's `initial`.
    case reset
    /// Show the state a restoration string describes (a page's address with `state=`).
    case restore(String)
    /// Set (nil: clear) an app flag; the current request is resolved again.
    case flag(String, String?)
    /// Re-evaluate the script for another device, keeping the state.
    case device(Device)
    case reload
    case explain(String)
    case state
    case tree
    case routes
    /// The flow map: screens, tab bars and sections, and the ways between them.
    case flow
    case flags
    /// The history; with `before`, the page of entries before that index (newest last).
    case history(before: Int? = nil)
    /// The path of a named route: its parameters fill the pattern, the rest the query (a key
    /// in `lists` once per value).
    case path(String, [String: String], lists: [String: [String]] = [:])
    /// The actions since the start or the last reset as a test file (`save-test NAME`;
    /// `force`: the REPL may replace a file that exists).
    case recording(String, force: Bool = false)
    /// Evaluate a Lua chunk in the script's environment; with `allowIncomplete`, an
    /// unfinished chunk answers that instead of failing.
    case evaluate(String, allowIncomplete: Bool = false)
    /// What a page draws (`routes`: with the history, route table and entries).
    case snapshot(routes: Bool)
    /// What a node's leave guard would say now to a change to `request` (a linked app asks
    /// before it lets a swipe start).
    case canLeave(node: String, request: String?)
    /// The state as JSON, to paste into a report or a test: the request, the restoration
    /// string, the flags and the device.
    case copyState
    /// `luna verify` on the session's script (a fresh walk, the session's state untouched).
    case verify

    /// The operation's name in its JSON form (the table's ``CommandSpec/op``).
    package var op: String {
        switch self {
        case .dispatch: "dispatch"
        case .push: "push"
        case .sync: "sync"
        case .open: "open"
        case .back, .returning: "back"
        case .close: "close"
        case .confirm: "confirm"
        case .cancel: "cancel"
        case .tap: "tap"
        case .wait: "wait"
        case .undo: "undo"
        case .redo: "redo"
        case .travel: "travel"
        case .reset: "reset"
        case .restore: "restore"
        case .flag: "flag"
        case .device: "device"
        case .reload: "reload"
        case .explain: "explain"
        case .state: "state"
        case .tree: "tree"
        case .routes: "routes"
        case .flow: "flow"
        case .flags: "flags"
        case .history: "history"
        case .path: "path"
        case .recording: "save-test"
        case .evaluate: "lua"
        case .snapshot: "snapshot"
        case .canLeave: "canLeave"
        case .copyState: "copy-state"
        case .verify: "verify"
        }
    }

    /// The fields of the JSON form besides `op`, in the table's order; a default (no `keep`,
    /// no parameters) is left out.
    package var fields: [(String, JSONValue)] {
        func pairs(_ map: [String: String]) -> JSONValue {
            .object(map.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })
        }
        switch self {
        case .dispatch(let request, let keep):
            return [("request", .string(request))] + (keep ? [("keep", .bool(true))] : [])
        case .sync(let request), .explain(let request), .push(let request): return [("request", .string(request))]
        case .open(let node, let params, let keep):
            return [("node", .string(node))] + (params.isEmpty ? [] : [("params", pairs(params))])
                + (keep ? [("keep", .bool(true))] : [])
        case .tap(let label): return [("label", .string(label))]
        case .restore(let text): return [("state", .string(text))]
        case .returning(let result):
            let members = result.sorted { $0.key < $1.key }.map {
                ($0.key, (try? JSONValue.parse($0.value.json)) ?? .null)
            }
            return [("result", .object(members))]
        case .wait(let seconds): return [("seconds", .number(Self.number(seconds)))]
        case .travel(let index): return [("index", .number(String(index)))]
        case .flag(let name, let value):
            return [("name", .string(name)), ("value", value.map(JSONValue.string) ?? .null)]
        case .device(let device): return [("device", .string(device.rawValue))]
        case .history(let before): return before.map { [("before", .number(String($0)))] } ?? []
        case .path(let name, let values, let lists):
            // A list's key stands for its last value too (``init(op:fields:)``): written once.
            var params = values.filter { lists[$0.key] == nil }.map { ($0.key, JSONValue.string($0.value)) }
            params += lists.map { ($0.key, JSONValue.array($0.value.map(JSONValue.string))) }
            params.sort { $0.0 < $1.0 }
            return [("name", .string(name))] + (params.isEmpty ? [] : [("params", .object(params))])
        case .recording(let name, let force): return [("name", .string(name))] + (force ? [("force", .bool(true))] : [])
        case .evaluate(let chunk, _): return [("chunk", .string(chunk))]
        case .snapshot: return []
        case .canLeave(let node, let request):
            return [("node", .string(node))] + (request.map { [("request", .string($0))] } ?? [])
        case .back, .close, .confirm, .cancel, .undo, .redo, .reset, .reload, .state, .tree, .routes, .flow, .flags,
            .copyState, .verify:
            return []
        }
    }

    /// The JSON form: `{"op":"dispatch","request":"books/42","keep":true}`.
    package var json: String { message() }

    /// The JSON form as a message: the operation under `key` (a device's messages say
    /// `type`), with an `id` the reply repeats when given.
    package func message(key: String = "op", id: Int? = nil) -> String {
        JSONValue.object((id.map { [("id", JSONValue.number(String($0)))] } ?? []) + [(key, .string(op))] + fields)
            .jsonText
    }

    /// A number as JSON writes it: `2` for a whole number, `0.5` otherwise.
    package static func number(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }

    /// Reads a command from its JSON form: `op` names it (``CommandSpec/op``) and `fields` is
    /// the message's object (other keys, such as a message's `id`, are ignored). Each field is
    /// checked as the table declares it; a refusal names the field.
    package init(op: String, fields: JSONValue) throws(CommandError) {
        guard let spec = CommandSpec.named(op) else {
            throw CommandError(
                "unknown op '\(op)' (known: \(CommandSpec.all.filter { !$0.console }.map(\.op).joined(separator: ", ")))"
            )
        }
        let reader = FieldReader(spec: spec, fields: fields)
        switch spec.op {
        case "dispatch": self = .dispatch(try reader.text("request"), keepStack: try reader.option("keep"))
        case "push": self = .push(try reader.text("request"))
        case "sync": self = .sync(try reader.text("request"))
        case "open":
            self = .open(
                node: try reader.text("node"), params: try reader.pairs("params").values,
                keepStack: try reader.option("keep"))
        case "back":
            if let result = try reader.values("result") {
                self = .returning(result)
            } else {
                self = .back
            }
        case "close": self = .close
        case "confirm": self = .confirm
        case "cancel": self = .cancel
        case "tap": self = .tap(try reader.text("label"))
        case "wait": self = .wait(try reader.seconds("seconds"))
        case "undo": self = .undo
        case "redo": self = .redo
        case "travel": self = .travel(try reader.integer("index"))
        case "reset": self = .reset
        case "restore": self = .restore(try reader.text("state"))
        case "flag":
            let name = try reader.text("name")
            guard !name.contains("="), !name.contains(where: \.isWhitespace) else {
                throw CommandError("flag: a flag name is a word (no '=' or spaces), not '\(name)'")
            }
            self = .flag(name, try reader.optionalText("value").flatMap { $0.isEmpty ? nil : $0 })
        case "device":
            guard let device = Device(rawValue: try reader.text("device")) else {
                throw CommandError("device is phone or pad")
            }
            self = .device(device)
        case "reload": self = .reload
        case "explain": self = .explain(try reader.text("request"))
        case "state": self = .state
        case "tree": self = .tree
        case "routes": self = .routes
        case "flow": self = .flow
        case "flags": self = .flags
        case "history": self = .history(before: try reader.optionalInteger("before"))
        case "path":
            var (values, lists) = try reader.pairs("params")
            // A repeated key is a query list; its last value also stands alone, as before lists.
            for (key, list) in lists { values[key] = list.last }
            self = .path(try reader.text("name"), values, lists: lists)
        case "save-test":
            let name = try reader.text("name")
            let valid = name.unicodeScalars.allSatisfy {
                $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-"
            }
            guard valid else { throw CommandError("save-test: a test's NAME is letters, digits, _ and -") }
            self = .recording(name, force: try reader.option("force"))
        case "lua": self = .evaluate(try reader.text("chunk"))
        case "=": self = .evaluate("return " + (try reader.text("expression")))
        case "snapshot": self = .snapshot(routes: true)
        case "canLeave": self = .canLeave(node: try reader.text("node"), request: try reader.optionalText("request"))
        case "copy-state": self = .copyState
        case "verify": self = .verify
        default: throw CommandError("'\(spec.word)' is one of the REPL's own commands, not a session operation")
        }
    }

    /// Reads a whole message (`{"op":…,…}`, or `{"type":…,…}` with `key` "type") from
    /// `surface`: an operation the table does not allow there is refused as unknown, naming
    /// the ones it allows.
    package init(message: JSONValue, key: String = "op", from surface: CommandSpec.Surfaces) throws(CommandError) {
        guard let op = message[key]?.string else { throw CommandError("the message has no \"\(key)\"") }
        guard let spec = CommandSpec.named(op), !spec.surfaces.isDisjoint(with: surface) else {
            let known = CommandSpec.all.filter { $0.surfaces.contains(surface) }.map(\.op)
            throw CommandError("unknown \(key) '\(op)' (known: \(known.joined(separator: ", ")))")
        }
        try self.init(op: op, fields: message)
    }
}

/// Why a command's words or fields were refused (a usage error, with the field's name).
package struct CommandError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

/// Reads a command's fields as its table entry declares them.
private struct FieldReader {
    var spec: CommandSpec
    var fields: JSONValue

    func text(_ key: String) throws(CommandError) -> String {
        guard let value = fields[key]?.string else { throw CommandError("\(spec.op) needs a string \"\(key)\"") }
        return value
    }

    func optionalText(_ key: String) throws(CommandError) -> String? {
        switch fields[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw CommandError("\(spec.op)'s \"\(key)\" is a string or null")
        }
    }

    func option(_ key: String) throws(CommandError) -> Bool {
        switch fields[key] {
        case nil, .null?: return false
        case .bool(let value)?: return value
        default: throw CommandError("\(spec.op)'s \"\(key)\" is true or false")
        }
    }

    func integer(_ key: String) throws(CommandError) -> Int {
        guard let value = fields[key]?.integer else { throw CommandError("\(spec.op) needs an integer \"\(key)\"") }
        return value
    }

    func optionalInteger(_ key: String) throws(CommandError) -> Int? {
        if fields[key] == nil || fields[key] == .null { return nil }
        return try integer(key)
    }

    func seconds(_ key: String) throws(CommandError) -> Double {
        guard case .number(let text)? = fields[key], let value = Double(text), value.isFinite, value >= 0 else {
            throw CommandError("\(spec.op) needs a number of seconds \"\(key)\" (0 or more)")
        }
        return value
    }

    /// A result: an object of strings, numbers and booleans (nil when absent).
    func values(_ key: String) throws(CommandError) -> [String: AttributeValue]? {
        switch fields[key] {
        case nil, .null?: return nil
        case .object(let members)?:
            var result: [String: AttributeValue] = [:]
            for (name, value) in members {
                guard let attribute = AttributeValue(json: value) else {
                    throw CommandError(
                        "\(spec.op)'s \"\(key)\" values are strings, numbers and booleans ('\(name)' is not)")
                }
                guard result.updateValue(attribute, forKey: name) == nil else {
                    throw CommandError("\(spec.op)'s \"\(key)\" gives '\(name)' twice")
                }
            }
            return result
        default: throw CommandError("\(spec.op)'s \"\(key)\" is an object of strings, numbers and booleans")
        }
    }

    /// An object of strings (a key's list of strings, where the table allows it).
    func pairs(_ key: String) throws(CommandError) -> (values: [String: String], lists: [String: [String]]) {
        var values: [String: String] = [:]
        var lists: [String: [String]] = [:]
        switch fields[key] {
        case nil, .null?: break
        case .object(let members)?:
            for (name, value) in members {
                switch value {
                case .string(let text): values[name] = text
                case .array(let items) where spec.arguments.contains(where: { $0.key == key && $0.lists }):
                    var texts: [String] = []
                    for item in items {
                        guard let text = item.string else { throw CommandError("\(spec.op)'s \"\(key)\" are strings") }
                        texts.append(text)
                    }
                    lists[name] = texts
                default: throw CommandError("\(spec.op)'s \"\(key)\" are strings")
                }
            }
        default: throw CommandError("\(spec.op)'s \"\(key)\" is an object of strings")
        }
        return (values, lists)
    }
}

import LunaLive
import RouteCore
import RouteScript

/// A request from a page: `{"id":7,"op":"dispatch","request":"books/42","keep":false}`.
/// The ops are the session operations a page may use — never Lua, never a file.
struct PageRequest {
    enum Op: String, CaseIterable {
        case dispatch, open, back, sync, confirm, cancel, explain, travel, undo, redo, flag, device, reload, snapshot
        case history, flow
    }

    var id: Int?
    var op: Op
    var fields: JSONValue

    init(parsing text: String) throws(PageRequestError) {
        let value = try PageRequestError.object(text)
        id = value["id"]?.integer
        op = try PageRequestError.choice(value, "op", Op.self) { name, known in "unknown op '\(name)' (known: \(known))"
        }
        self.fields = value
    }

    func string(_ key: String) throws(PageRequestError) -> String {
        guard let value = fields[key]?.string else {
            throw PageRequestError("\(op.rawValue) needs a string \"\(key)\"")
        }
        return value
    }
}

struct PageRequestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }

    /// A message's JSON object (a page's or a device's), or why it is not one.
    static func object(_ text: String) throws(PageRequestError) -> JSONValue {
        let value: JSONValue
        do { value = try JSONValue.parse(text) } catch {
            throw PageRequestError("the message is not JSON: \(error.message)")
        }
        guard case .object = value else { throw PageRequestError("the message must be a JSON object") }
        return value
    }

    /// The case of `Choice` a message's `key` names; `unknown` words the refusal of another
    /// name, given it and the known ones.
    static func choice<Choice: RawRepresentable & CaseIterable>(
        _ value: JSONValue, _ key: String, _: Choice.Type, unknown: (String, String) -> String
    ) throws(PageRequestError) -> Choice where Choice.RawValue == String {
        guard let name = value[key]?.string else { throw PageRequestError("the message has no \"\(key)\"") }
        guard let choice = Choice(rawValue: name) else {
            throw PageRequestError(unknown(name, Choice.allCases.map(\.rawValue).joined(separator: ", ")))
        }
        return choice
    }
}

extension PageRequest {
    /// The session command the page asks for.
    /// The session command the page asks for.
    func command() throws(PageRequestError) -> Command {
        switch op {
        // The flow map: asked for when the page shows it, never pushed with every change (at
        // 10,000 routes it is a megabyte).
        case .flow: return .flow
        case .dispatch: return .dispatch(try string("request"), keepStack: fields["keep"]?.bool ?? false)
        case .sync: return .sync(try string("request"))
        case .open:
            var params: [String: String] = [:]
            if case .object(let members)? = fields["params"] {
                for (key, value) in members {
                    guard let text = value.string else { throw PageRequestError("open's params are strings") }
                    params[key] = text
                }
            }
            return .open(node: try string("node"), params: params, keepStack: fields["keep"]?.bool ?? false)
        case .back: return .back
        case .confirm: return .confirm
        case .cancel: return .cancel
        case .explain: return .explain(try string("request"))
        case .travel:
            guard let index = fields["index"]?.integer else {
                throw PageRequestError("travel needs an integer \"index\"")
            }
            return .travel(index)
        case .undo: return .undo
        case .redo: return .redo
        case .flag:
            let name = try string("name")
            guard !name.isEmpty, !name.contains("=") else { throw PageRequestError("a flag name is a word") }
            return .flag(name, fields["value"]?.string.flatMap { $0.isEmpty ? nil : $0 })
        case .device:
            guard let device = Device(rawValue: try string("device")) else {
                throw PageRequestError("device is phone or pad")
            }
            return .device(device)
        case .reload: return .reload
        case .snapshot: return .snapshot(routes: true)
        case .history:
            // An older page of the history: the entries before `before`, newest last.
            guard let before = fields["before"]?.integer else {
                throw PageRequestError("history needs an integer \"before\"")
            }
            return .history(before: before)
        }
    }
}

extension Inspector {
    /// Runs a page's request on the session and returns the reply (events go to every page
    /// through the observer, before this reply).
    func perform(_ request: PageRequest) -> String {
        let command: Command
        do { command = try request.command() } catch {
            return Messages.invalidMessage(id: request.id, error.description)
        }
        do {
            // A reply names the route; the tree reaches the page in the event's snapshot.
            return Messages.reply(
                id: request.id, try session.perform(command, from: .page, forms: []), script: scriptName)
        } catch {
            // A request that failed comes with its explanation: why no route took it.
            var explain: String?
            if case .dispatch(let path, _) = command, case .explain(let view)? = try? session.perform(.explain(path)) {
                explain = view.json
            }
            return Messages.failure(id: request.id, error, explain: explain)
        }
    }
}

/// The JSON the inspector sends.
enum Messages {
    /// A successful reply: what the page needs of the view.
    static func reply(id: Int?, _ view: View, script: String) -> String {
        var fields = ["type": JSONWriter.quoted("reply"), "id": id.map(String.init) ?? "null", "ok": "true"]
        switch view {
        case .changed(let change):
            fields["route"] = JSONWriter.quoted(change.outcome.route)
            // The request dispatched: for `open`, the path the form filled in.
            fields["request"] = JSONWriter.quoted(change.outcome.request)
        case .question(let text, let node):
            fields["question"] = JSONWriter.object(["text": JSONWriter.quoted(text), "node": JSONWriter.quoted(node)])
        case .cancelled(let was): fields["cancelled"] = was ? "true" : "false"
        case .explain(let explain): fields["explain"] = explain.json
        case .snapshot(let snapshot): fields["snapshot"] = snapshot.json(script: script)
        case .history(let history): fields["history"] = JSONWriter.array(history.entries.map(\.json))
        case .flow(let map): fields["flow"] = map.json
        default: break
        }
        return JSONWriter.object(fields)
    }

    /// A leave guard's question to a linked app: show it, answer `confirm` or `cancel`.
    static func confirm(text: String, node: String) -> String {
        JSONWriter.object([
            "type": JSONWriter.quoted("confirm"), "question": JSONWriter.quoted(text), "node": JSONWriter.quoted(node),
        ])
    }

    /// The reply to a linked app's `canLeave`: `{"leave":{"node":…,"answer":"go"|"stay"|"ask","question":…}}`
    /// (`answer` null: the node has no leave guard or is not shown).
    static func leave(id: Int?, node: String, _ answer: LeaveAnswer?) -> String {
        var fields = ["node": JSONWriter.quoted(node), "answer": "null", "question": "null"]
        switch answer {
        case .go?: fields["answer"] = JSONWriter.quoted("go")
        case .stay?: fields["answer"] = JSONWriter.quoted("stay")
        case .ask(let question)?:
            fields["answer"] = JSONWriter.quoted("ask")
            fields["question"] = JSONWriter.quoted(question)
        case nil: break
        }
        return JSONWriter.object([
            "type": JSONWriter.quoted("reply"), "id": id.map(String.init) ?? "null", "ok": "true",
            "leave": JSONWriter.object(fields),
        ])
    }

    /// A reply to a message the protocol does not accept (too large, not UTF-8, not JSON, …).
    static func invalidMessage(id: Int?, _ message: String) -> String {
        failure(id: id, Failure(kind: "invalidMessage", message: message))
    }

    static func failure(id: Int?, _ failure: Failure, explain: String? = nil) -> String {
        JSONWriter.object([
            "type": JSONWriter.quoted("reply"), "id": id.map(String.init) ?? "null", "ok": "false",
            "error": failure.errorJSON, "explain": explain ?? "null",
        ])
    }

    /// An event: what happened, the entry it added, the plan, and the state after it.
    static func event(_ event: LiveEvent, snapshot: String, routePatch: String? = nil) -> String {
        let origin: String =
            switch event.origin {
            case .repl: "repl"
            case .page: "page"
            case .watcher: "watcher"
            case .device: "device"
            }
        let plan = event.outcome?.plan ?? event.summary?.plan
        return JSONWriter.object([
            "type": JSONWriter.quoted("event"), "event": JSONWriter.quoted(event.kind.rawValue),
            "origin": JSONWriter.quoted(origin), "entry": event.entry?.json ?? "null",
            "request": (event.request ?? event.outcome?.request).map(JSONWriter.quoted) ?? "null",
            "plan": plan?.json ?? "null",
            "summary": event.summary.map { ReloadView(summary: $0, tree: .empty, script: nil).eventJSON }
                ?? "null",
            "error": event.error.map { Failure($0).errorJSON } ?? "null", "snapshot": snapshot,
            "routePatch": routePatch ?? "null",
        ])
    }
}

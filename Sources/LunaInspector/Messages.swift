import LunaLive
import RouteCore
import RouteScript

/// A request from a page: a command in its JSON form with an id the reply repeats
/// (`{"id":7,"op":"dispatch","request":"books/42","keep":false}`, docs/inspector.md). The
/// command table says which operations a page may use — never Lua, never a file.
struct PageRequest {
    var id: Int?
    var command: Command

    init(parsing text: String) throws(PageRequestError) {
        let value = try PageRequestError.object(text)
        id = value["id"]?.integer
        do { command = try Command(message: value, from: .page) } catch { throw PageRequestError(error.message) }
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

extension Inspector {
    /// Runs a page's request on the session and returns the reply (events go to every page
    /// through the observer, before this reply).
    func perform(_ request: PageRequest) -> String {
        Messages.answer(id: request.id, script: scriptName, session: session) { () throws(Failure) -> View in
            // A reply names the route; the tree reaches the page in the event's snapshot.
            try session.perform(request.command, from: .page, forms: [])
        }
    }
}

/// The JSON the inspector sends.
enum Messages {
    /// The reply to one command, from a page or a device: its view, or its failure with (for a
    /// request that failed) the explanation of why no route took it.
    static func answer(id: Int?, script: String, session: LiveSession, _ body: () throws(Failure) -> View) -> String {
        do { return reply(id: id, try body(), script: script) } catch {
            var explain: String?
            if let request = error.request, error.kind != "usage",
                case .explain(let view)? = try? session.perform(.explain(request))
            {
                explain = view.json
            }
            return failure(id: id, error, explain: explain)
        }
    }

    /// A successful reply: the view's JSON members (``View/members(script:)``, the same the
    /// REPL's `--json` prints) beside `type`, `id` and `ok`.
    static func reply(id: Int?, _ view: View, script: String) -> String {
        JSONWriter.ordered(
            [("type", JSONWriter.quoted("reply")), ("id", id.map(String.init) ?? "null"), ("ok", "true")]
                + view.members(script: script))
    }

    /// A leave guard's question to a linked app: show it, answer `confirm` or `cancel`.
    static func confirm(text: String, node: String) -> String {
        JSONWriter.object([
            "type": JSONWriter.quoted("confirm"), "question": JSONWriter.quoted(text), "node": JSONWriter.quoted(node),
        ])
    }

    /// A reply to a message the protocol does not accept (too large, not UTF-8, not JSON, …).
    static func invalidMessage(id: Int?, _ message: String) -> String {
        failure(id: id, Failure(kind: "invalidMessage", message: message))
    }

    /// A failed reply: the failure's members (``Failure/members``, as the REPL's `--json`
    /// prints them) and, for a request no route took, its explanation.
    static func failure(id: Int?, _ failure: Failure, explain: String? = nil) -> String {
        JSONWriter.ordered(
            [("type", JSONWriter.quoted("reply")), ("id", id.map(String.init) ?? "null"), ("ok", "false")]
                + failure.members + [("explain", explain ?? "null")])
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

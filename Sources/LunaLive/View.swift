import RouteCore
import RouteScript

/// What a command returns: values only, each with its JSON and text form.
package enum View: Sendable {
    /// A change that matched a route.
    case changed(ChangeView)
    /// A leave guard's question: the change waits for `confirm` or `cancel`.
    case question(text: String, node: String)
    /// What a node's leave guard would say now (nil: it has none, or the node is not shown).
    case leave(node: String, answer: LeaveAnswer?)
    /// A question was dropped (`cancel`); `wasPending`: whether there was one.
    case cancelled(wasPending: Bool)
    /// The clock moved and nothing fell due: what still waits (the request kept, seconds left).
    case waited(seconds: Double, waiting: String?, secondsLeft: Double?)
    /// A travel (undo, redo, goto) that ended on the initial state.
    case nothingShown
    case reset
    /// A flag was set or cleared; the re-resolved change, if a request was on screen.
    case flag(name: String, value: String?, change: ChangeView?, flags: [String: String])
    case reloaded(ReloadView)
    case explain(ExplainView)
    case state(StateView?)
    case tree(TreeView)
    case routes([RouteRow])
    case flow(FlowMap)
    case flags([String: String])
    case history(HistoryView)
    case path(String)
    case recording(RecordingView)
    case values([String])
    /// An unfinished Lua chunk: the next line continues it.
    case incomplete
    /// A document to read or copy, as JSON: `{"<name>":<json>}`; its text is the JSON itself.
    /// A page shows it in a window with a Copy button (a menu command's answer).
    case document(name: String, json: String)
    case snapshot(SnapshotView)

    /// The matched change, for views that have one.
    package var change: ChangeView? {
        switch self {
        case .changed(let change): change
        case .flag(_, _, let change, _): change
        default: nil
        }
    }

    /// The view's JSON, as members of one object — the one envelope every surface reads: the
    /// REPL's `--json` line is the object (``json``), a page's or a device's reply has these
    /// members beside its `type`, `id` and `ok`. `script` names the script in a snapshot.
    package func members(script: String = "") -> [(String, String)] {
        switch self {
        case .changed(let change): return change.members
        case .question(let text, let node):
            return [
                (
                    "question",
                    JSONWriter.ordered([("text", JSONWriter.quoted(text)), ("node", JSONWriter.quoted(node))])
                )
            ]
        case .leave(let node, let answer): return [("leave", Self.leaveJSON(node: node, answer))]
        case .cancelled(let was): return [("cancelled", String(was))]
        case .waited(let seconds, let waiting, let left):
            return [
                ("secondsLeft", left.map { String($0) } ?? "null"), ("waited", String(seconds)),
                ("waiting", waiting.map(JSONWriter.quoted) ?? "null"),
            ]
        case .nothingShown: return [("tree", "null")]
        case .reset: return [("reset", "true")]
        case .flag(_, _, let change, let flags): return change?.members ?? [("flags", JSONWriter.stringObject(flags))]
        case .reloaded(let reload): return [("reload", reload.object)]
        case .explain(let explain): return [("explain", explain.json)]
        case .state(let state): return [("state", state?.json ?? "null")]
        case .tree(let tree): return [("tree", tree.json ?? "null")]
        case .routes(let rows): return [("routes", JSONWriter.array(rows.map(\.json)))]
        case .flow(let map): return [("flow", map.json)]
        case .flags(let flags): return [("flags", JSONWriter.stringObject(flags))]
        case .history(let history): return history.members
        case .path(let path): return [("path", JSONWriter.quoted(path))]
        case .recording(let recording): return [("source", JSONWriter.quoted(recording.source))]
        case .values(let values): return [("lua", JSONWriter.array(values.map(JSONWriter.quoted)))]
        case .incomplete: return [("continue", "true")]
        case .snapshot(let snapshot): return [("snapshot", snapshot.json(script: script))]
        case .document(let name, let json):
            return [("document", JSONWriter.object(["name": JSONWriter.quoted(name), "value": json]))]
        }
    }

    /// The JSON docs/cli.md documents for the view (one line; `--json` in the REPL): the
    /// object of ``members(script:)`` — for `tree` the tree alone, as `luna tree --json`
    /// prints it.
    package var json: [String] {
        switch self {
        case .tree(let tree): tree.lines(json: true, style: .plain)
        default: [JSONWriter.ordered(members())]
        }
    }

    /// The text people read.
    package func text(_ style: Style) -> [String] {
        switch self {
        case .changed(let change): [change.text(style)]
        case .question(let text, let node): ["? \(text)  (\(node)'s leave guard: confirm or cancel)"]
        case .cancelled(let was): [style.dim(was ? "(cancelled: nothing changed)" : "(no question to cancel)")]
        case .leave(let node, let answer):
            switch answer {
            case .go?: ["\(node): leaving is free"]
            case .stay?: ["\(node): its leave guard refuses"]
            case .ask(let question)?: ["\(node): its leave guard asks: \(question)"]
            case nil: [style.dim("(\(node) has no leave guard on screen)")]
            }
        case .waited(let seconds, let waiting, let left):
            [
                style.dim(
                    "(\(seconds) s later: "
                        + (waiting.map { "still waiting for \($0)" + (left.map { ", \($0) s left" } ?? "") }
                            ?? "nothing waits") + ")")
            ]
        case .nothingShown: [style.dim("(back to the start: nothing shown)")]
        case .reset: [style.dim("(back to the initial state)")]
        case .flag(let name, let value, let change, _):
            [value.map { "flag \(name)=\($0)" } ?? "flag \(name) cleared"] + (change.map { [$0.text(style)] } ?? [])
        case .reloaded(let reload): reload.lines(style)
        case .explain(let explain): explain.lines(style)
        case .state(let state): state?.lines ?? [style.dim("(nothing dispatched yet)")]
        case .tree(let tree): tree.lines(json: false, style: style)
        case .routes(let rows): [RouteRow.text(rows, style: style)]
        case .flow(let map): map.edges.map { "\($0.kind.rawValue)\t\($0.from) → \($0.to)" }
        case .flags(let flags):
            flags.isEmpty ? [style.dim("(no flags)")] : flags.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        case .history(let history): history.lines(style)
        case .path(let path): [path]
        case .recording(let recording): [recording.source]
        case .values(let values): values.isEmpty ? [] : [values.joined(separator: "\t")]
        case .incomplete: []
        case .document(_, let json): [json]
        case .snapshot(let snapshot): [snapshot.json(script: "")]
        }
    }

    /// `{"node":…,"answer":"go"|"stay"|"ask"|null,"question":…}`.
    package static func leaveJSON(node: String, _ answer: LeaveAnswer?) -> String {
        var fields = ["node": JSONWriter.quoted(node), "answer": "null", "question": "null"]
        switch answer {
        case .go?: fields["answer"] = JSONWriter.quoted("go")
        case .stay?: fields["answer"] = JSONWriter.quoted("stay")
        case .ask(let question)?:
            fields["answer"] = JSONWriter.quoted("ask")
            fields["question"] = JSONWriter.quoted(question)
        case nil: break
        }
        return JSONWriter.object(fields)
    }
}

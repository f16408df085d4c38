import LunaLive
import LunaTest
import RouteCore
import RouteScript

/// The REPL's commands over a ``RouteScriptHost``: one input line in, output lines out.
/// No terminal, file system or clock: the loop around it supplies those.
///
/// ```swift
/// let session = Session(host: host, json: false, style: .plain)
/// let result = session.execute("go books/42")
/// print(result.lines.joined(separator: "\n"))
/// ```
package final class Session {
    /// The live session this REPL is a view of (the inspector may be another).
    package let live: LiveSession
    /// The host while a command runs (``execute(_:)`` holds the session's lock and sets it).
    private var lockedHost: RouteScriptHost?
    private var host: RouteScriptHost {
        guard let lockedHost else { preconditionFailure("Session.host read outside execute") }
        return lockedHost
    }
    package let json: Bool
    package let style: Style

    /// What a command printed, and whether the REPL should end.
    package struct Result: Equatable {
        package var lines: [String]
        package var quit = false
        package var failed = false
        /// The line opened a Lua chunk that is not finished: the next line continues it
        /// (the loop shows the continuation prompt).
        package var continues = false
    }

    /// A `lua` or `=` chunk still being typed over several lines.
    private var pendingLua: (prefix: String, text: String)?

    /// What an unfinished Lua chunk (`= 1 +`) does.
    package enum Continuation: Sendable {
        /// The next line continues it silently (a terminal: the loop shows `..>`).
        case interactive
        /// The line is answered `{"continue":true}` and the next continues it; an empty line
        /// cancels it (`{"cancelled":true}`): every input line gets exactly one answer (`--json`).
        case explicit
        /// It is an error at once (a pipe without `--json`: nothing is swallowed).
        case none
    }

    /// How unfinished Lua chunks continue; the REPL sets it from its mode.
    package var continuation: Continuation = .interactive

    /// The commands, for `help` and completion.
    package static let commands: [(name: String, usage: String, help: String)] = [
        ("go", "go PATH [--keep]", "dispatch PATH (a line starting with / does the same)"),
        ("back", "back", "the user went back: pop the top stack, or dismiss the top modal"),
        ("sync", "sync PATH", "the UI already went to PATH itself: record it, run no structural presenter call"),
        ("history", "history", "every dispatch, back, flag, device change and reload so far"),
        ("undo", "undo", "back to what was on screen before the last action (a travel included)"),
        ("redo", "redo", "forward again to what the last undo left"),
        ("goto", "goto N", "travel to the state of history entry N"),
        ("reset", "reset", "back to the initial state (save-test starts here)"),
        (
            "path", "path NAME [KEY=VALUE]...",
            "the path of a named route: its parameters fill the pattern, the rest the query"
        ),
        (
            "save-test", "save-test NAME [--force]",
            "write the actions since the start or the last reset as NAME_test.lua (--force: replace one that exists)"
        ),
        ("tree", "tree [--json]", "the presentable tree"),
        ("state", "state [--json]", "the current request, route, parameters and active node chain"),
        ("routes", "routes [--json]", "the route table, most specific first"),
        ("explain", "explain PATH", "which routes PATH tries, why each fails, which wins and why"),
        ("flag", "flag NAME=VALUE", "set an app flag (NAME= clears it); the current path is re-resolved"),
        ("flags", "flags", "list the app flags"),
        ("device", "device phone|pad", "re-evaluate the script for that device, keeping the state"),
        ("reload", "reload", "reload the script now"),
        ("=", "= EXPR", "evaluate a Lua expression in the script's environment"),
        ("lua", "lua CHUNK", "run a Lua chunk in the script's environment"),
        ("help", "help", "this list"),
        ("quit", "quit", "leave (Ctrl-D too)"),
    ]

    package init(live: LiveSession, json: Bool, style: Style) {
        self.live = live
        self.json = json
        self.style = style
    }

    /// A session of its own over `host`.
    package convenience init(host: RouteScriptHost, json: Bool, style: Style) {
        self.init(live: LiveSession(host: host), json: json, style: style)
    }

    /// Runs one line. Errors are printed, never thrown: the REPL goes on. The whole command
    /// runs under the live session's lock, so an inspector page never sees half of it.
    package func execute(_ line: String) -> Result {
        withLockedHost { executeLocked(line) }
    }

    /// Runs `body` under the session's lock with ``host`` set to the session's host.
    private func withLockedHost<T>(_ body: () -> T) -> T {
        live.withHost { host in
            let outer = lockedHost
            lockedHost = host
            defer { lockedHost = outer }
            return body()
        }
    }

    private func executeLocked(_ line: String) -> Result {
        if let pending = pendingLua {
            pendingLua = nil
            if continuation == .explicit, line.trimmingWhitespace().isEmpty {
                return Result(lines: ["{\"cancelled\":true}"])
            }
            return lua(pending.text + "\n" + line, prefix: pending.prefix)
        }
        let trimmed = line.trimmingWhitespace()
        guard !trimmed.isEmpty, !trimmed.hasPrefix("--") else { return Result(lines: []) }
        if trimmed.hasPrefix("/") { return request(String(trimmed.dropFirst()), usage: "/PATH [--keep]") }
        if trimmed.hasPrefix("=") { return lua(String(trimmed.dropFirst()), prefix: "return ") }
        let (command, argument) = trimmed.splitCommand()
        switch command {
        case "go": return request(argument, usage: "go PATH [--keep]")
        case "sync":
            guard case .success(let (path, _)) = Self.requestArgument(argument, allowKeep: false) else {
                return usage("sync PATH")
            }
            return attempt { try show(live.sync(path)) }
        case "back": return attempt { try show(live.back()) }
        case "history": return history()
        case "undo": return attempt { travelled(try live.undo()) }
        case "redo": return attempt { travelled(try live.redo()) }
        case "reset":
            return attempt {
                try live.reset()
                return Result(lines: [json ? "{\"reset\":true}" : style.dim("(back to the initial state)")])
            }
        case "save-test": return saveTest(argument)
        case "path": return path(argument)
        case "goto":
            guard let index = Int(argument) else { return usage("goto N") }
            return attempt { travelled(try live.travel(to: index)) }
        case "tree": return tree(json: json || argument == "--json")
        case "state": return state(json: json || argument == "--json")
        case "routes":
            guard let tree = host.routeTree else { return failure(RouteScriptError(.notLoaded, "no script is loaded")) }
            return Result(lines: [Output.routes(tree, json: json || argument == "--json", style: style)])
        case "explain":
            guard !argument.isEmpty else { return usage("explain PATH") }
            return explain(argument)
        case "flag": return flag(argument)
        case "flags": return flags()
        case "device":
            guard let device = Device(rawValue: argument) else { return usage("device phone|pad") }
            return attempt { reloadLines(try live.setDevice(device)) }
        case "reload":
            do { return reloadLines(try live.reload()) } catch { return reloadFailure(error) }
        case "lua":
            guard !argument.isEmpty else { return usage("lua CHUNK") }
            return lua(argument, prefix: "")
        case "help": return help()
        case "quit", "exit": return Result(lines: [], quit: true)
        default:
            if command.contains("/") || command.contains("|") || command.contains("?") {
                return failure(
                    message: "unknown command '\(command)'; to dispatch it, type go \(trimmed) (or /\(trimmed))",
                    kind: "usage")
            }
            let names = Self.commands.map(\.name).filter { $0.count > 1 }
            let hint = closest(command, among: names).map { " (did you mean '\($0)'?)" } ?? ""
            return failure(message: "unknown command '\(command)'\(hint); type help for the list", kind: "usage")
        }
    }

    /// Drops a Lua chunk being continued (Ctrl-C at the continuation prompt).
    package func cancelContinuation() { pendingLua = nil }

    /// The request of `go`, `/` and `sync`: the rest of the line (spaces and all, so JSON
    /// fits), or one quoted string; `--keep` only as a trailing word.
    static func requestArgument(_ argument: String, allowKeep: Bool) -> Swift.Result<(String, Bool), UsageError> {
        var text = argument.trimmingWhitespace()
        var keep = false
        if let space = text.lastIndex(where: \.isWhitespace) {
            let last = text[text.index(after: space)...]
            if last.hasPrefix("--") {
                guard allowKeep, last == "--keep" else {
                    let hint = allowKeep && "--keep".hasPrefix(last.prefix(4)) ? " (did you mean '--keep'?)" : ""
                    return .failure(UsageError(message: "unknown option '\(last)'\(hint)"))
                }
                keep = true
                text = String(text[..<space]).trimmingWhitespace()
            }
        } else if text.hasPrefix("--") {
            return .failure(UsageError(message: "missing PATH"))
        }
        if let quote = text.first, quote == "\"" || quote == "'" {
            guard text.count >= 2, text.last == quote else {
                return .failure(UsageError(message: "unterminated quote \(quote)"))
            }
            text = String(text.dropFirst().dropLast())
        }
        guard !text.isEmpty else { return .failure(UsageError(message: "missing PATH")) }
        return .success((text, keep))
    }

    struct UsageError: Error { var message: String }

    private func request(_ argument: String, usage text: String) -> Result {
        switch Self.requestArgument(argument, allowKeep: true) {
        case .success(let (path, keep)): return go(path, keep: keep)
        case .failure(let error): return failure(message: "usage: \(text): \(error.message)", kind: "usage")
        }
    }

    /// Called by the loop when the watcher saw the script change.
    package func reloadAfterChange() -> Result {
        withLockedHost {
            do { return Result(lines: reloadLines(try live.reload(from: .watcher)).lines) } catch {
                return reloadFailure(error)
            }
        }
    }

    /// The script failed its first load: the REPL starts with no tree and waits for a save.
    package func loadFailure(_ error: any Error) -> Result {
        withLockedHost { loadFailureLocked(error) }
    }

    private func loadFailureLocked(_ error: any Error) -> Result {
        if json { return Result(lines: ["{\"reload\":{\"error\":\(Output.errorObject(error))}}"], failed: true) }
        var result = failure(error, label: "load failed: ")
        result.lines.append(style.dim("(no tree yet: fix the script and save, the REPL picks it up)"))
        return result
    }

    /// A failed reload: `{"reload":{"error":…}}` in JSON, a labelled message in text.
    private func reloadFailure(_ error: any Error) -> Result {
        if json { return Result(lines: ["{\"reload\":{\"error\":\(Output.errorObject(error))}}"], failed: true) }
        var result = failure(error, label: "reload failed: ")
        result.lines.append(style.dim("(the previous tree is still running)"))
        return result
    }

    // MARK: Commands

    private func go(_ path: String, keep: Bool) -> Result {
        do { return show(try live.dispatch(path, keepStack: keep)) } catch {
            var result = failure(error, request: path)
            result.failed = true
            return result
        }
    }

    private func show(_ outcome: RouteScriptHost.Outcome) -> Result {
        if json { return Result(lines: [Output.json(outcome, tree: host.tree)]) }
        return Result(lines: [Output.text(outcome, tree: host.tree, style: style)])
    }

    /// `path NAME k=v…`: reverse routing, as `luna.path` does in scripts.
    private func path(_ argument: String) -> Result {
        guard let words = Output.words(argument) else {
            return usage("path NAME [KEY=VALUE]... (a quote is not closed)")
        }
        guard let name = words.first else { return usage("path NAME [KEY=VALUE]...") }
        let (values, bad) = Output.keyValues(Array(words.dropFirst()))
        if let bad { return usage("path NAME [KEY=VALUE]... ('\(bad)' is not KEY=VALUE)") }
        guard let tree = host.routeTree else { return failure(RouteScriptError(.notLoaded, "no script is loaded")) }
        do {
            let path = try tree.path(forRouteNamed: name, values: values)
            return Result(lines: [json ? "{\"path\":\(JSONWriter.quoted(path))}" : path])
        } catch {
            return failure(error)
        }
    }

    /// `save-test NAME`: the recorded actions as a test file with a golden tree.
    private func saveTest(_ argument: String) -> Result {
        var words = argument.split(separator: " ").map(String.init)
        let force = words.last == "--force"
        if force { words.removeLast() }
        let name = words.joined(separator: " ")
        let valid =
            !name.isEmpty
            && name.unicodeScalars.allSatisfy {
                $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-"
            }
        guard valid else { return usage("save-test NAME [--force] (letters, digits, _ and -)") }
        guard let path = host.path else {
            return failure(message: "save-test needs a script loaded from a file", kind: "usage")
        }
        let state = host.state
        let route = state.route.flatMap { route in
            host.routeTree.map { Lint.show($0.endpoints[route].definition.displayText) }
        }
        let source = TestRecorder.source(
            name: name, script: String(path.split(separator: "/").last ?? Substring(path)), entries: live.history,
            route: route,
            device: host.options.device, flags: host.options.flags)
        do {
            let file = try TestRecorder.save(
                name: name, scriptPath: path, source: source, tree: host.tree?.rendered() ?? "(nothing shown)",
                force: force)
            if json { return Result(lines: ["{\"saved\":\(JSONWriter.quoted(file))}"]) }
            return Result(lines: ["saved \(ScriptPaths.display(file)) (run it with luna test)"])
        } catch {
            return failure(error)
        }
    }

    /// The history, one entry a line; `*` marks the one on screen.
    private func history() -> Result {
        let entries = live.history
        let current = live.currentEntry
        if json {
            return Result(lines: [
                "{\"history\":\(JSONWriter.array(entries.map(\.json))),\"current\":\(current.map(String.init) ?? "null")}"
            ])
        }
        guard !entries.isEmpty else { return Result(lines: [style.dim("(no history yet)")]) }
        return Result(lines: entries.map { ($0.index == current ? "* " : "  ") + $0.line })
    }

    /// After `undo` or `goto`: the plan and the tree, like a dispatch.
    private func travelled(_ outcome: RouteScriptHost.Outcome?) -> Result {
        if let outcome { return show(outcome) }
        return Result(lines: [json ? "{\"tree\":null}" : style.dim("(back to the start: nothing shown)")])
    }

    private func tree(json asJSON: Bool) -> Result {
        guard let tree = host.tree else {
            return Result(lines: [asJSON ? "null" : style.dim("(nothing dispatched yet)")])
        }
        return Result(lines: [asJSON ? tree.json : tree.rendered()])
    }

    private func state(json: Bool) -> Result {
        let state = host.state
        guard let request = state.request, let route = state.route, let tree = host.routeTree else {
            return Result(lines: [json ? "{\"state\":null}" : style.dim("(nothing dispatched yet)")])
        }
        let endpoint = tree.endpoints[route]
        let chain = tree.chain(to: endpoint.node).map { tree.nodes[$0].id }
        if json {
            let fields: [(String, String)] = [
                ("request", JSONWriter.quoted(state.requested ?? request.original)),
                ("path", JSONWriter.quoted(request.path)),
                ("route", JSONWriter.quoted(endpoint.definition.displayText)),
                ("name", endpoint.name.map(JSONWriter.quoted) ?? "null"),
                ("params", JSONWriter.stringObject(state.params)),
                ("query", JSONWriter.stringObject(request.query)),
                ("fragment", request.fragment.map(JSONWriter.quoted) ?? "null"),
                ("chain", JSONWriter.array(chain.map(JSONWriter.quoted))),
            ]
            return Result(lines: [
                "{\"state\":{" + fields.map { JSONWriter.quoted($0.0) + ":" + $0.1 }.joined(separator: ",") + "}}"
            ])
        }
        var lines = ["request  " + (state.requested ?? request.original)]
        if let requested = state.requested, requested != request.original {
            lines.append("resolved " + request.original)
        }
        lines.append(
            "route    " + Lint.show(endpoint.definition.displayText) + (endpoint.name.map { " (\($0))" } ?? ""))
        let params = state.params.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        lines.append("params   " + (params.isEmpty ? "-" : params.joined(separator: " ")))
        let query = request.query.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        if !query.isEmpty { lines.append("query    " + query.joined(separator: "&")) }
        if let fragment = request.fragment { lines.append("fragment " + fragment) }
        lines.append("chain    " + chain.joined(separator: " > "))
        return Result(lines: lines)
    }

    private func explain(_ path: String) -> Result {
        do {
            let explanation = try live.explain(path)
            guard let tree = host.routeTree else { return Result(lines: []) }
            let request = try tree.request(from: path)
            if json {
                let attempts = explanation.attempts.map { attempt in
                    "{\"pattern\":\(JSONWriter.quoted(Lint.show(attempt.pattern))),\"matched\":\(attempt.outcome == .matched),\"reason\":\(JSONWriter.quoted(attempt.reason)),\"segment\":\(attempt.failingSegment.map { String($0 + 1) } ?? "null")}"
                }
                let winner =
                    explanation.winner.map { JSONWriter.quoted(Lint.show(tree.endpoints[$0].definition.displayText)) }
                    ?? "null"
                return Result(lines: [
                    "{\"explain\":{\"request\":\(JSONWriter.quoted(path)),\"path\":\(JSONWriter.quoted(request.path)),\"attempts\":\(JSONWriter.array(attempts)),\"winner\":\(winner),\"reasons\":\(JSONWriter.array(explanation.reasons.map(JSONWriter.quoted))),\"guards\":\(JSONWriter.array(explanation.guards.map { JSONWriter.quoted($0.text) }))}}"
                ])
            }
            var lines = ["explain " + Lint.show(request.path)]
            // Routes whose first constant already differs say little one by one.
            var elsewhere: [String] = []
            for attempt in explanation.attempts {
                if case .constantMismatch(0, _, _) = attempt.outcome {
                    elsewhere.append(Lint.show(attempt.pattern))
                    continue
                }
                let mark = attempt.outcome == .matched ? style.green("✓") : style.red("✗")
                lines.append("  \(mark) \(Lint.show(attempt.pattern))  — \(attempt.reason)")
                if let segment = attempt.failingSegment {
                    let (text, caret) = Self.caret(request.segments, at: segment)
                    lines.append("      " + text)
                    lines.append("      " + style.red(caret))
                }
            }
            if !elsewhere.isEmpty {
                let shown = elsewhere.prefix(6).joined(separator: ", ") + (elsewhere.count > 6 ? ", …" : "")
                lines.append(
                    "  \(style.red("✗")) \(elsewhere.count) more whose first segment is not '\(request.segments.first ?? "")': \(shown)"
                )
            }
            if let winner = explanation.winner {
                lines.append("wins: " + style.bold(Lint.show(tree.endpoints[winner].definition.displayText)))
                lines += explanation.reasons.map { "  " + $0 }
                if !explanation.guards.isEmpty {
                    lines.append("guards:")
                    lines += explanation.guards.map { "  " + $0.text }
                }
            } else {
                lines.append("no route wins")
            }
            return Result(lines: lines)
        } catch {
            return failure(error, request: path)
        }
    }

    /// The path with a caret line under segment `index` (past the end: after the path).
    static func caret(_ segments: [String], at index: Int) -> (String, String) {
        let text = segments.isEmpty ? "/" : segments.joined(separator: "/")
        var offset = 0
        for segment in segments.prefix(index) { offset += segment.count + 1 }
        let width = index < segments.count ? max(1, segments[index].count) : 1
        if index >= segments.count { offset = text.count + 1 }
        return (text, String(repeating: " ", count: offset) + String(repeating: "^", count: width))
    }

    private func flag(_ argument: String) -> Result {
        guard let equals = argument.firstIndex(of: "=") else { return usage("flag NAME=VALUE") }
        let name = String(argument[..<equals]).trimmingWhitespace()
        let value = String(argument[argument.index(after: equals)...]).trimmingWhitespace()
        guard !name.isEmpty else { return usage("flag NAME=VALUE") }
        do {
            let outcome = try live.setFlag(name, value.isEmpty ? nil : value)
            var lines = json ? [] : [value.isEmpty ? "flag \(name) cleared" : "flag \(name)=\(value)"]
            if let outcome { lines += show(outcome).lines }
            if json && outcome == nil { lines.append("{\"flags\":\(JSONWriter.stringObject(host.options.flags))}") }
            return Result(lines: lines)
        } catch {
            return failure(error, request: host.state.requested)
        }
    }

    private func flags() -> Result {
        if json { return Result(lines: ["{\"flags\":\(JSONWriter.stringObject(host.options.flags))}"]) }
        let flags = host.options.flags.sorted { $0.key < $1.key }
        return Result(lines: flags.isEmpty ? [style.dim("(no flags)")] : flags.map { "\($0.key)=\($0.value)" })
    }

    private func reloadLines(_ summary: ReloadSummary) -> Result {
        if json {
            let milliseconds =
                Double(summary.duration.components.seconds) * 1000 + Double(summary.duration.components.attoseconds)
                / 1e15
            let fields = [
                "\"ms\":\((milliseconds * 100).rounded() / 100)",
                "\"added\":\(JSONWriter.array(summary.added.map(JSONWriter.quoted)))",
                "\"removed\":\(JSONWriter.array(summary.removed.map(JSONWriter.quoted)))",
                "\"changed\":\(JSONWriter.array(summary.changed.map(JSONWriter.quoted)))",
                "\"warning\":\(summary.warning.map(JSONWriter.quoted) ?? "null")",
                "\"plan\":\(summary.plan.json)",
                "\"lint\":\(JSONWriter.array(summary.lint.map(JSONWriter.quoted)))",
            ]
            return Result(lines: ["{\"reload\":{" + fields.joined(separator: ",") + "}}"])
        }
        var lines = [style.green(summary.line)]
        if let warning = summary.warning { lines.append(style.yellow("warning: " + warning)) }
        if !summary.plan.isEmpty {
            lines.append("  plan:")
            lines += summary.plan.operations.map {
                "    " + style.cyan($0.name) + String($0.text.dropFirst($0.name.count))
            }
            if let tree = host.tree { lines.append(tree.rendered()) }
        }
        for finding in summary.lint {
            lines.append(style.yellow(host.path.map { ScriptPaths.relocate(finding, script: $0) } ?? finding))
        }
        return Result(lines: lines)
    }

    /// Runs a `lua` chunk or an `=` expression (`prefix` "return "); an unfinished chunk
    /// waits for the next line.
    private func lua(_ chunk: String, prefix: String) -> Result {
        if host.isIncomplete(prefix + chunk) {
            switch continuation {
            case .interactive:
                pendingLua = (prefix, chunk)
                return Result(lines: [], continues: true)
            case .explicit:
                pendingLua = (prefix, chunk)
                return Result(lines: ["{\"continue\":true}"], continues: true)
            case .none:
                break  // evaluated as it is: Lua's own "near <eof>" error
            }
        }
        do {
            let values = try host.evaluate(prefix + chunk)
            if json { return Result(lines: ["{\"lua\":\(JSONWriter.array(values.map(JSONWriter.quoted)))}"]) }
            return Result(lines: values.isEmpty ? [] : [values.joined(separator: "\t")])
        } catch {
            return failure(error)
        }
    }

    private func help() -> Result {
        let width = Self.commands.map(\.usage.count).max() ?? 0
        var lines = Self.commands.map { "  " + Output.pad($0.usage, width + 2) + $0.help }
        lines.insert("commands:", at: 0)
        if json {
            return Result(lines: ["{\"help\":\(JSONWriter.array(Self.commands.map { JSONWriter.quoted($0.usage) }))}"])
        }
        return Result(lines: lines)
    }

    // MARK: Errors

    private func usage(_ text: String) -> Result { failure(message: "usage: " + text, kind: "usage") }

    private func failure(_ error: any Error, request: String? = nil, label: String = "error: ") -> Result {
        let (kind, message) = Output.describe(error)
        if json {
            if let request { return Result(lines: [Output.json(request: request, error: error)], failed: true) }
            return Result(lines: ["{\"error\":\(Output.errorObject(error))}"], failed: true)
        }
        _ = kind
        let located = host.path.map { ScriptPaths.relocate(message, script: $0) } ?? message
        return Result(lines: [style.red(label) + located], failed: true)
    }

    private func failure(message: String, kind: String) -> Result {
        if json {
            return Result(
                lines: ["{\"error\":{\"kind\":\(JSONWriter.quoted(kind)),\"message\":\(JSONWriter.quoted(message))}}"],
                failed: true)
        }
        return Result(lines: [style.red("error: ") + message], failed: true)
    }

    private func attempt(_ body: () throws -> Result) -> Result {
        do { return try body() } catch { return failure(error) }
    }

    private func closest(_ word: String, among names: [String]) -> String? {
        names.first { $0.hasPrefix(word) || word.hasPrefix($0) }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice = slice.dropFirst() }
        while let last = slice.last, last.isWhitespace { slice = slice.dropLast() }
        return String(slice)
    }

    /// The first word and the rest, trimmed.
    func splitCommand() -> (String, String) {
        guard let space = firstIndex(where: \.isWhitespace) else { return (self, "") }
        return (String(self[..<space]), String(self[space...]).trimmingWhitespace())
    }
}

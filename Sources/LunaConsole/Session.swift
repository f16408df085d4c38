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
        ("confirm", "confirm", "answer a leave guard's question yes: make the change it asked about"),
        ("cancel", "cancel", "answer a leave guard's question no: nothing changes"),
        ("wait", "wait SECONDS", "move the session's clock: a gate waiting (pending) may time out to its fallback"),
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
        ("flow", "flow [--json]", "the flow map's edges: push, modal, tab, section and guard"),
        ("explain", "explain PATH", "which routes PATH tries, why each fails, which wins and why"),
        ("flag", "flag NAME=VALUE", "set an app flag (NAME= clears it); the current path is re-resolved"),
        ("flags", "flags", "list the app flags"),
        ("device", "device phone|pad", "re-evaluate the script for that device, keeping the state"),
        ("reload", "reload", "reload the script now"),
        ("=", "= EXPR", "evaluate a Lua expression in the script's environment"),
        ("lua", "lua CHUNK", "run a Lua chunk in the script's environment"),
        ("help", "help", "this list"),
        ("clear", "clear", "clear the terminal (nothing in a pipe or with --json)"),
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

    /// Runs one line. Errors are printed, never thrown: the REPL goes on. Each command is one
    /// ``LiveSession/perform(_:from:)``: one acquisition of the session's lock, so an inspector
    /// page never sees half of it.
    package func execute(_ line: String) -> Result {
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
        let asJSON = json || argument == "--json"
        switch command {
        case "go": return request(argument, usage: "go PATH [--keep]")
        case "sync":
            guard case .success(let (path, _)) = Self.requestArgument(argument, allowKeep: false) else {
                return usage("sync PATH")
            }
            return run(.sync(path))
        case "back": return run(.back)
        case "confirm": return run(.confirm)
        case "cancel": return run(.cancel)
        case "wait":
            guard let seconds = Double(argument), seconds.isFinite, seconds >= 0 else {
                return usage("wait SECONDS (a number, 0 or more)")
            }
            return run(.wait(seconds))
        case "history": return run(.history())
        case "undo": return run(.undo)
        case "redo": return run(.redo)
        case "reset": return run(.reset)
        case "save-test": return saveTest(argument)
        case "path": return path(argument)
        case "goto":
            guard let index = Int(argument) else { return usage("goto N") }
            return run(.travel(index))
        case "tree": return run(.tree, json: asJSON)
        case "state": return run(.state, json: asJSON)
        case "routes": return run(.routes, json: asJSON)
        case "flow": return run(.flow, json: asJSON)
        case "explain":
            guard !argument.isEmpty else { return usage("explain PATH") }
            return run(.explain(argument))
        case "flag": return flag(argument)
        case "flags": return run(.flags)
        case "device":
            guard let device = Device(rawValue: argument) else { return usage("device phone|pad") }
            return run(.device(device))
        case "reload": return reload()
        case "lua":
            guard !argument.isEmpty else { return usage("lua CHUNK") }
            return lua(argument, prefix: "")
        case "help": return help()
        case "quit", "exit": return Result(lines: [], quit: true)
        // Home, erase the screen and its scrollback: only on a terminal, never into a log.
        case "clear":
            return Result(lines: continuation == .interactive && !json ? ["\u{1B}[H\u{1B}[2J\u{1B}[3J"] : [])
        default:
            if command.contains("/") || command.contains("|") || command.contains("?") {
                return failure(
                    Failure(
                        kind: "usage",
                        message: "unknown command '\(command)'; to dispatch it, type go \(trimmed) (or /\(trimmed))"))
            }
            let names = Self.commands.map(\.name).filter { $0.count > 1 }
            let hint = closest(command, among: names).map { " (did you mean '\($0)'?)" } ?? ""
            return failure(
                Failure(kind: "usage", message: "unknown command '\(command)'\(hint); type help for the list"))
        }
    }

    /// Performs `command` and prints its view (JSON when the REPL or the command asks for it).
    private func run(_ command: Command, json asJSON: Bool? = nil) -> Result {
        let asJSON = asJSON ?? json
        do {
            let view = try live.perform(command, forms: asJSON ? .json : .text)
            return Result(lines: asJSON ? view.json : view.text(style))
        } catch {
            return failure(error)
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
        case .success(let (path, keep)): return run(.dispatch(path, keepStack: keep))
        case .failure(let error): return failure(Failure(kind: "usage", message: "usage: \(text): \(error.message)"))
        }
    }

    /// Called by the loop when the watcher saw the script change; nil while the save is still
    /// being written (`cutShort`: the watcher's ``FileWatcher/waitForRest(now:)``).
    package func reloadAfterChange(cutShort: () -> Bool = { false }) -> Result? {
        reloadResult { forms throws(Failure) in try live.reloadAfterSave(forms: forms, cutShort: cutShort) }
    }

    /// The `reload` command.
    private func reload() -> Result {
        reloadResult { forms throws(Failure) in try live.perform(.reload, from: .repl, forms: forms) }
            ?? Result(lines: [])
    }

    /// What a reload prints: its view, or the failure with the previous tree still running; nil
    /// when `body` returns nil (a save still being written).
    private func reloadResult(_ body: (ViewForms) throws(Failure) -> View?) -> Result? {
        do {
            guard let view = try body(json ? .json : .text) else { return nil }
            return Result(lines: json ? view.json : view.text(style))
        } catch {
            return reloadFailure(error, label: "reload failed: ", note: "(the previous tree is still running)")
        }
    }

    /// The script failed its first load: the REPL starts with no tree and waits for a save.
    package func loadFailure(_ error: any Error) -> Result {
        let script = live.withHost { $0.path }
        return reloadFailure(
            Failure(error).relocated(script: script), label: "load failed: ",
            note: "(no tree yet: fix the script and save, the REPL picks it up)")
    }

    /// A failed load or reload: `{"reload":{"error":…}}` in JSON, a labelled message in text.
    private func reloadFailure(_ failure: Failure, label: String, note: String) -> Result {
        if json { return Result(lines: ["{\"reload\":{\"error\":\(failure.errorJSON)}}"], failed: true) }
        return Result(lines: [style.red(label) + failure.locatedMessage, style.dim(note)], failed: true)
    }

    /// `path NAME k=v…`: reverse routing, as `luna.path` does in scripts.
    private func path(_ argument: String) -> Result {
        guard let words = Output.words(argument) else {
            return usage("path NAME [KEY=VALUE]... (a quote is not closed)")
        }
        guard let name = words.first else { return usage("path NAME [KEY=VALUE]...") }
        let (values, bad) = Output.keyValues(Array(words.dropFirst()))
        if let bad { return usage("path NAME [KEY=VALUE]... ('\(bad)' is not KEY=VALUE)") }
        return run(.path(name, values, lists: Output.repeatedKeys(Array(words.dropFirst()))))
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
        do {
            guard case .recording(let recording) = try live.perform(.recording(name)) else { return Result(lines: []) }
            let file = try TestRecorder.save(recording, force: force)
            if json { return Result(lines: ["{\"saved\":\(JSONWriter.quoted(file))}"]) }
            return Result(lines: ["saved \(ScriptPaths.display(file)) (run it with luna test)"])
        } catch {
            return failure(Failure(error))
        }
    }

    private func flag(_ argument: String) -> Result {
        guard let equals = argument.firstIndex(of: "=") else { return usage("flag NAME=VALUE") }
        let name = String(argument[..<equals]).trimmingWhitespace()
        let value = String(argument[argument.index(after: equals)...]).trimmingWhitespace()
        guard !name.isEmpty else { return usage("flag NAME=VALUE") }
        return run(.flag(name, value.isEmpty ? nil : value))
    }

    /// Runs a `lua` chunk or an `=` expression (`prefix` "return "); an unfinished chunk
    /// waits for the next line.
    private func lua(_ chunk: String, prefix: String) -> Result {
        do {
            let view = try live.perform(.evaluate(prefix + chunk, allowIncomplete: continuation != .none))
            if case .incomplete = view {
                pendingLua = (prefix, chunk)
                return Result(lines: continuation == .explicit ? view.json : [], continues: true)
            }
            return Result(lines: json ? view.json : view.text(style))
        } catch {
            return failure(error)
        }
    }

    private func help() -> Result {
        let width = Self.commands.map(\.usage.count).max() ?? 0
        var lines = Self.commands.map { "  " + RouteRow.pad($0.usage, width + 2) + $0.help }
        lines.insert("commands:", at: 0)
        if json {
            return Result(lines: ["{\"help\":\(JSONWriter.array(Self.commands.map { JSONWriter.quoted($0.usage) }))}"])
        }
        return Result(lines: lines)
    }

    // MARK: Errors

    private func usage(_ text: String) -> Result { failure(Failure(kind: "usage", message: "usage: " + text)) }

    private func failure(_ failure: Failure) -> Result {
        if json { return Result(lines: [failure.json], failed: true) }
        return Result(lines: [style.red("error: ") + failure.locatedMessage], failed: true)
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

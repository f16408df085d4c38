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

    /// The REPL's commands, for `help` and completion: the command table's (``CommandSpec``).
    package static var commands: [CommandSpec] { CommandSpec.all.filter { $0.surfaces.contains(.repl) } }

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
            if continuation == .explicit, line.trimmingSpaces.isEmpty {
                return Result(lines: ["{\"cancelled\":true}"])
            }
            return lua(pending.text + "\n" + line, prefix: pending.prefix)
        }
        let trimmed = line.trimmingSpaces
        guard !trimmed.isEmpty, !trimmed.hasPrefix("--") else { return Result(lines: []) }
        if trimmed.hasPrefix("=") { return lua(String(trimmed.dropFirst()), prefix: "return ") }
        // `/PATH` is `go PATH`.
        let (word, typed) = trimmed.hasPrefix("/") ? ("go", String(trimmed.dropFirst())) : trimmed.splitCommand()
        if word == "exit" { return Result(lines: [], quit: true) }
        guard let spec = CommandSpec.typed(word) else {
            if word.contains("/") || word.contains("|") || word.contains("?") {
                return failure(
                    Failure(
                        kind: "usage",
                        message: "unknown command '\(word)'; to dispatch it, type go \(trimmed) (or /\(trimmed))"))
            }
            let names = Self.commands.map(\.word).filter { $0.count > 1 }
            let hint = closest(word, among: names).map { " (did you mean '\($0)'?)" } ?? ""
            return failure(Failure(kind: "usage", message: "unknown command '\(word)'\(hint); type help for the list"))
        }
        let usageText = trimmed.hasPrefix("/") ? "/PATH [--keep]" : spec.usage
        switch spec.op {
        case "help": return help()
        case "quit": return Result(lines: [], quit: true)
        // Home, erase the screen and its scrollback: only on a terminal, never into a log.
        case "clear":
            return Result(lines: continuation == .interactive && !json ? ["\u{1B}[H\u{1B}[2J\u{1B}[3J"] : [])
        case "lua", "=":
            guard !typed.isEmpty else { return usage(usageText) }
            return lua(typed, prefix: spec.op == "=" ? "return " : "")
        default: break
        }
        // `--json` after any command prints its view as JSON.
        var argument = typed
        var asJSON = json
        if argument == "--json" || argument.hasSuffix(" --json") {
            argument = String(argument.dropLast(6)).trimmingSpaces
            asJSON = true
        }
        let command: Command
        do throws(CommandError) {
            command = try Command(op: spec.op, fields: try spec.fields(typed: argument))
        } catch {
            return usage("\(usageText): \(error.message)")
        }
        switch command {
        case .reload: return reload()
        case .recording(let name, let force): return saveTest(name, force: force)
        default: return run(command, json: asJSON)
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

    /// `save-test NAME`: the recorded actions as a test file with a golden tree.
    private func saveTest(_ name: String, force: Bool) -> Result {
        do {
            guard case .recording(let recording) = try live.perform(.recording(name)) else { return Result(lines: []) }
            let file = try TestRecorder.save(recording, force: force)
            if json { return Result(lines: ["{\"saved\":\(JSONWriter.quoted(file))}"]) }
            return Result(lines: ["saved \(ScriptPaths.display(file)) (run it with luna test)"])
        } catch {
            return failure(Failure(error))
        }
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
    /// The first word and the rest, trimmed.
    func splitCommand() -> (String, String) {
        guard let space = firstIndex(where: \.isWhitespace) else { return (self, "") }
        return (String(self[..<space]), String(self[space...]).trimmingSpaces)
    }
}

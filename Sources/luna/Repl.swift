import ArgumentParser
import LunaConsole
import LunaLive
import RouteCore
import RouteScript

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct Repl: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Dispatch paths interactively and watch the tree; the script hot-reloads on save.",
        discussion: """
            Reads commands from the terminal (line editing, history in ~/.luna_history, Tab completion) \
            or, when standard input is not a terminal, line by line with no prompt. Type help for the commands.
            """)

    @Argument(help: "The route script.") var script: String
    @Argument(help: "A path to dispatch first.") var path: String?
    @Flag(help: "Every command prints one JSON object per line.") var json = false
    @Flag(name: .customLong("no-watch"), help: "Do not reload the script when it changes.") var noWatch = false
    @OptionGroup var options: ScriptOptions

    func run() throws {
        let interactive = isatty(STDIN_FILENO) != 0
        let json = self.json
        let host = RouteScriptHost(
            options: options.routeScriptOptions(output: { text in
                writeAll(STDOUT_FILENO, (json ? "{\"print\":\(JSONWriter.quoted(text))}" : text) + "\n")
            }))
        let style = json || !interactive ? Style.plain : terminalStyle
        let session = Session(host: host, json: json, style: style)
        do { try host.load(contentsOf: script) } catch {
            // Start anyway, like a dev server: the error now, the tree on the first good save.
            if noWatch {
                fail(error)
                throw ExitCode(2)
            }
            for line in session.loadFailure(error).lines { emit(line) }
        }
        if interactive && !json {
            emit(
                style.dim(
                    "\(Luna.configuration.version) · \(script) · \(host.routeTree?.endpoints.count ?? 0) routes · type help"
                ))
        }
        // The watch starts before anything is shown, so no save after the first output is missed.
        let home = getenv("HOME").map { String(cString: $0) }
        let loop = ReplLoop(
            session: session, interactive: interactive, watcher: noWatch ? nil : makeFileWatcher(),
            historyPath: home.map { $0 + "/.luna_history" })
        loop.run(first: path.map { "go " + $0 })
    }
}

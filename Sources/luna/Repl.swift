import ArgumentParser
import LunaConsole
import LunaInspector
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
    @Option(
        name: .customLong("serve"),
        help: ArgumentHelp(
            "Also serve the inspector over the same session, on 127.0.0.1 (--serve alone: a free port).",
            valueName: "port"))
    var servePort: Int?
    @OptionGroup var options: ScriptOptions

    func run() throws {
        // Line editing draws on the terminal it writes to: with standard output a pipe
        // (`luna repl app.lua | tee log`) libedit read keys and answered nothing, so lines are
        // read plainly then (the terminal echoes what is typed).
        let interactive = isatty(STDIN_FILENO) != 0 && isatty(STDOUT_FILENO) != 0
        let json = self.json
        let host = RouteScriptHost(
            options: options.routeScriptOptions(output: { text in
                writeAll(STDOUT_FILENO, (json ? "{\"print\":\(JSONWriter.quoted(text))}" : text) + "\n")
            }))
        let style = json || !interactive ? Style.plain : terminalStyle
        let session = Session(host: host, json: json, style: style)
        // Every line of a tool (--json) or a pipe gets its answer: continuation lines only on
        // a terminal, or announced as {"continue":true} in JSON.
        session.continuation = json ? .explicit : interactive ? .interactive : .none
        do {
            try host.load(contentsOf: script)
            noteHeadlessPresenters(host)
        } catch {
            // Start anyway, like a dev server: the error now, the tree on the first good save.
            if noWatch {
                fail(error, script: script)
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
        var inspector: Inspector?
        if let servePort {
            let started = try startInspector(session: session.live, script: script, host: "127.0.0.1", port: servePort)
            inspector = started
            emit(json ? "{\"inspector\":\(JSONWriter.quoted(started.url))}" : "inspector: \(started.url)")
        }
        defer { inspector?.stop() }
        // The watch starts before anything is shown, so no save after the first output is missed.
        let home = getenv("HOME").map { String(cString: $0) }
        let loop = ReplLoop(
            session: session, interactive: interactive, watcher: noWatch ? nil : makeFileWatcher(),
            historyPath: home.map { $0 + "/.luna_history" }, echoPageEvents: servePort != nil)
        // A path given, or the script's `initial` request.
        loop.run(first: (path ?? host.routeTree?.initial).map { "go " + $0 })
    }
}

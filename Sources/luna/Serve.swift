import ArgumentParser
import Foundation
import LunaConsole
import LunaInspector
import LunaLive
import RouteScript

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the live inspector: a clickable prototype of the route tree in the browser.",
        discussion: """
            Loads the script, watches it like the REPL does, and serves the inspector on 127.0.0.1 \
            (--host to change; a warning says the page is then reachable from elsewhere). The printed \
            URL carries the token the page needs. Ctrl-C stops.
            """)

    @Argument(help: "The route script.") var script: String
    @Option(help: "The port (0 picks a free one).") var port: Int = 0
    @Option(help: "The address to bind.") var host: String = "127.0.0.1"
    @Flag(help: "Open the page in the default browser.") var open = false
    @Flag(name: .customLong("no-watch"), help: "Do not reload the script when it changes.") var noWatch = false
    @OptionGroup var options: ScriptOptions

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535") }
    }

    func run() throws {
        let session = LiveSession(
            host: RouteScriptHost(options: options.routeScriptOptions(output: { writeError($0) })))
        do {
            try session.withHost { try $0.load(contentsOf: script) }
            session.withHost { noteHeadlessPresenters($0) }
        } catch {
            if noWatch {
                fail(error, script: script)
                throw ExitCode(2)
            }
            writeError("luna: error: " + Failure(error).relocated(script: script).message)
            writeError("(no tree yet: fix the script and save, the page picks it up)")
        }
        // The script's `initial` request, so the page opens on a screen.
        do { try session.startAtInitial(from: .watcher) } catch {
            writeError("luna: error: initial request: " + error.message)
        }
        let inspector = try startInspector(session: session, script: script, host: host, port: port)
        emit("luna inspector: \(inspector.url)")
        if open { openInBrowser(inspector.url) }
        if noWatch {
            while true { sleep(3600) }
        }
        WatchLoop.run(session: session, watcher: makeFileWatcher(), report: { emit($0) })
    }
}

/// Starts the inspector on a session; warns when it is reachable beyond this machine.
func startInspector(session: LiveSession, script: String, host: String, port: Int) throws -> Inspector {
    var configuration = Inspector.Configuration()
    configuration.host = host
    configuration.port = port
    // On a fixed port the token outlives the server: open pages reconnect after a restart.
    if port != 0 { configuration.tokenFile = TokenFile.path(host: host, port: port) }
    let inspector = Inspector(session: session, scriptName: ScriptPaths.display(script), configuration: configuration)
    do { try inspector.start() } catch {
        writeError("luna: error: cannot serve on \(host):\(port): \(error)")
        throw ExitCode(2)
    }
    if !["127.0.0.1", "localhost", "::1"].contains(host) {
        let addresses = inspector.reachable.isEmpty ? [host] : inspector.reachable
        writeError(
            "luna: warning: the inspector listens on \(host), so other machines can reach it on "
                + addresses.joined(separator: ", ")
                + "; anyone with the token can drive this session (the page, and linked apps at /device)")
        for url in inspector.reachableURLs { writeError("  from another machine or a device: \(url)") }
    }
    return inspector
}

/// `xdg-open` (Linux) or `open` (macOS), if there is one; otherwise the URL printed is enough.
func openInBrowser(_ url: String) {
    #if os(macOS)
        let opener = "/usr/bin/open"
    #else
        let opener = "/usr/bin/xdg-open"
    #endif
    guard FileManager.default.isExecutableFile(atPath: opener) else { return }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: opener)
    process.arguments = [url]
    try? process.run()
}

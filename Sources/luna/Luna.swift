import ArgumentParser
import LuaHost
import LunaConsole
import LunaLive
import RouteCore
import RouteScript

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@main
struct Luna: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "luna",
        abstract: "Declare and prototype app navigation with Lua route scripts.",
        version:
            "luna 0.1.0 (Lua 5.4; JSON output format \(jsonFormat), live-link protocol \(LinkProtocol.version), "
            + "restoration strings v\(RouterState.restorationVersion), exported trees v\(RouteTree.exportFormat))",
        subcommands: [
            Repl.self, Serve.self, TestCommand.self, Dispatch.self, Routes.self, Check.self, Verify.self, Graph.self,
            Export.self,
            PathCommand.self, Go.self,
        ]
    )

    /// Usage errors exit with 2, as docs/cli.md's exit statuses say (ArgumentParser's default is 64).
    static func main() {
        // A parent may have blocked these (a libdispatch worker thread that spawned us, an
        // editor, a test runner): the mask is inherited across exec, and `luna serve` must stop
        // on SIGTERM and Ctrl-C like any server. Threads started later inherit this mask.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for signal in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&unblock, signal) }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        do {
            // `--serve` takes an optional port: a bare one means "a free port".
            let arguments = CommandLine.arguments.dropFirst().map { $0 == "--serve" ? "--serve=0" : $0 }
            var command = try parseAsRoot(Array(arguments))
            try command.run()
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                var message = fullMessage(for: error)
                if message.hasPrefix("Error: ") { message.removeFirst("Error: ".count) }
                writeError("luna: error: \(message)")
                terminate(2)
            }
            exit(withError: error)
        }
    }
}

/// Options every command that loads a script takes.
struct ScriptOptions: ParsableArguments {
    @Option(help: "The device the script declares its tree for (phone or pad).")
    var device: String = "phone"

    @Option(name: .customLong("flag"), help: "An app flag NAME=VALUE (repeatable).")
    var flags: [String] = []

    @Flag(help: "Give scripts the full Lua standard library (io, os, debug…).")
    var unsafe = false

    @Option(help: "Instruction budget per load and per callback.")
    var budget: Int?

    @Option(name: .customLong("deadline-ms"), help: "Wall-clock deadline per callback in milliseconds (loads get 5×).")
    var deadlineMilliseconds: Int?

    @Option(name: .customLong("memory-mb"), help: "Memory cap of the script's Lua state in MiB.")
    var memoryMegabytes: Int?

    @Flag(
        name: .customLong("full-reload"),
        help: "On a save, build the whole tree anew instead of reusing what did not change (also LUNA_FULL_RELOAD=1).")
    var fullReload = false

    func validate() throws {
        guard Device(rawValue: device) != nil else { throw ValidationError("--device must be phone or pad") }
        for flag in flags where !flag.contains("=") || flag.hasPrefix("=") {
            throw ValidationError("--flag takes NAME=VALUE, not '\(flag)'")
        }
        if let budget, budget <= 0 { throw ValidationError("--budget must be positive") }
        if let deadlineMilliseconds, deadlineMilliseconds <= 0 {
            throw ValidationError("--deadline-ms must be positive")
        }
        if let memoryMegabytes, memoryMegabytes <= 0 { throw ValidationError("--memory-mb must be positive") }
    }

    func routeScriptOptions(output: (@Sendable (String) -> Void)? = nil) -> RouteScriptOptions {
        var options = RouteScriptOptions()
        options.device = Device(rawValue: device) ?? .phone
        for flag in flags {
            let parts = flag.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            options.flags[String(parts[0])] = String(parts[1])
        }
        options.sandbox = unsafe ? .unsafe : .standard
        if let budget {
            options.loadLimits.instructions = budget
            options.callLimits.instructions = budget
        }
        if let deadlineMilliseconds {
            options.callLimits.deadline = .milliseconds(deadlineMilliseconds)
            options.loadLimits.deadline = .milliseconds(deadlineMilliseconds * 5)
        }
        if let memoryMegabytes { options.memoryLimit = memoryMegabytes * 1024 * 1024 }
        // `--full-reload` or LUNA_FULL_RELOAD=1: every reload builds the whole tree anew.
        if fullReload || getenv("LUNA_FULL_RELOAD").map({ String(cString: $0) == "1" }) == true {
            options.reusesUnchangedParts = false
        }
        options.output = output
        // The tool opens the script the app runs: presenters the app supplies are headless here.
        options.unknownHostPresentersAreHeadless = true
        return options
    }

    /// Loads the script or exits with status 2 and the error.
    func load(
        _ path: String, output: (@Sendable (String) -> Void)? = nil, json: Bool = false,
        lintErrorsFailTheLoad: Bool = true, probe: ScriptProbe? = nil
    ) throws
        -> RouteScriptHost
    {
        do {
            var options = routeScriptOptions(output: output)
            options.lintErrorsFailTheLoad = lintErrorsFailTheLoad
            options.probe = probe
            let host = try RouteScriptHost(contentsOf: path, options: options)
            noteHeadlessPresenters(host)
            return host
        } catch {
            if json {
                emitJSON(
                    "{\"script\":\(JSONWriter.quoted(path)),\"error\":\(Failure(error).relocated(script: path).errorJSON)}"
                )
            } else {
                fail(error, script: path)
            }
            throw ExitCode(2)
        }
    }
}

/// One line on standard error when the script names presenters the app supplies.
func noteHeadlessPresenters(_ host: RouteScriptHost) {
    let names = host.headlessHostPresenters
    guard !names.isEmpty else { return }
    writeError(
        "luna: note: presenter\(names.count == 1 ? "" : "s") \(names.map { "'\($0)'" }.joined(separator: ", ")) "
            + "\(names.count == 1 ? "is" : "are") the app's; shown headless here")
}

/// Prints `luna: error: …` on standard error, locations as the user gave the script.
func fail(_ error: any Error, script: String? = nil) {
    let message = Failure(error).locatedMessage
    writeError("luna: error: " + (script.map { ScriptPaths.relocate(message, script: $0) } ?? message))
}

/// Writes a line to standard error.
func writeError(_ text: String) { writeAll(STDERR_FILENO, text + "\n") }

/// Ends the process with a status.
func terminate(_ code: Int32) -> Never { exit(code) }

/// Colour only on a terminal, and never with NO_COLOR.
var terminalStyle: Style {
    Style(color: isatty(STDOUT_FILENO) != 0 && getenv("NO_COLOR") == nil)
}

/// Writes a line to standard output, unbuffered (pipes see each line at once).
func emit(_ text: String) { writeAll(STDOUT_FILENO, text + "\n") }

/// The version of the JSON the one-shot commands print (`dispatch`, `routes`, `check`, `path`
/// with `--json`): the `"luna"` field first in each object. It changes when a field's meaning
/// does (docs/cli.md, "JSON output"; the CHANGELOG says what changed).
/// 2: the root container is `root`; a switcher's `selected` is its active section's index;
/// a script that fails to load is an object on standard output.
let jsonFormat = 2

/// Prints one JSON object with the format version first.
func emitJSON(_ object: String) {
    guard object.hasPrefix("{") else { return emit(object) }
    emit("{\"luna\":\(jsonFormat)" + (object == "{}" ? "}" : "," + object.dropFirst()))
}

struct Dispatch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Dispatch paths and print each plan and tree.",
        discussion:
            "Exit status: 0 when every dispatch succeeded, 1 when one failed (the others still run), 2 for a usage error or a script that failed to load."
    )

    @Argument(help: "The route script.") var script: String
    @Argument(help: "Paths, URLs or NAME|{json} requests, dispatched in order.") var paths: [String]
    @Flag(help: "One JSON object per request and line.") var json = false
    @Flag(help: "Keep a tab's stack when the path is its root (junctionsOnly).") var keep = false
    @OptionGroup var options: ScriptOptions

    func validate() throws {
        if paths.isEmpty { throw ValidationError("give at least one PATH to dispatch") }
    }

    func run() throws {
        let host = try options.load(script, output: { writeError($0) }, json: json)
        let style = json ? Style.plain : terminalStyle
        var failed = false
        for path in paths {
            do {
                let change = ChangeView(try host.dispatch(path, keepStack: keep), tree: host.tree)
                if json { emitJSON(change.json) } else { emit(change.text(style)) }
            } catch {
                failed = true
                if json { emitJSON(Failure(error, request: path).json) } else { fail(error, script: script) }
            }
        }
        if failed { throw ExitCode(1) }
    }
}

struct Routes: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the route table: rank, pattern, name, node chain.")

    @Argument(help: "The route script.") var script: String
    @Flag(help: "Print JSON.") var json = false
    @OptionGroup var options: ScriptOptions

    func run() throws {
        let host = try options.load(script, json: json)
        guard let tree = host.routeTree else { return }
        let rows = RouteRow.table(tree)
        if json { emitJSON(RouteRow.json(rows)) } else { emit(RouteRow.text(rows, style: terminalStyle)) }
    }
}

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Load and lint a script: duplicates, shadowed routes, bad validators, unreachable nodes.",
        discussion: """
            Exit status: 0 clean (warnings allowed), 1 errors found, 2 the script failed to load. \
            Locations read file:line: (as editors' problem matchers expect); --json prints one object for tools.
            """)

    @Argument(help: "The route script.") var script: String
    @Flag(help: "Print one JSON object: the findings with file, line, severity and message.") var json = false
    @OptionGroup var options: ScriptOptions

    func run() throws {
        // Every finding is reported, errors included (which fail any other load).
        let host = try options.load(script, json: json, lintErrorsFailTheLoad: false)
        guard let tree = host.routeTree else { return }
        // The load linted the tree already; the rows' and actions' targets are checked here.
        let findings = host.lintFindings + Lint(tree: tree).targetFindings(host.declaredTargets)
        let errors = findings.filter { $0.severity == .error }.count
        let warnings = findings.count - errors
        if json {
            let items = findings.map { finding in
                let parsed = finding.location.map { ScriptPaths.relocate($0, script: script) }
                return
                    "{\"severity\":\(JSONWriter.quoted(finding.severity.rawValue)),\"file\":\(parsed.map { JSONWriter.quoted($0.file) } ?? "null"),\"line\":\(parsed.map { String($0.line) } ?? "null"),\"message\":\(JSONWriter.quoted(finding.message))}"
            }
            emitJSON(
                "{\"script\":\(JSONWriter.quoted(script)),\"routes\":\(tree.endpoints.count),\"errors\":\(errors),\"warnings\":\(warnings),\"findings\":\(JSONWriter.array(items))}"
            )
        } else {
            for finding in findings { emit(ScriptPaths.relocate(finding.line, script: script)) }
            emit(
                "\(ScriptPaths.display(script)): \(tree.endpoints.count) routes, \(Output.count(errors, "error")), \(Output.count(warnings, "warning"))"
            )
        }
        if errors > 0 { throw ExitCode(1) }
    }
}

struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Explore every state the app can reach and check it: links show what taps show, no dead ends, "
            + "targets, guards, restoration.",
        discussion: """
            Every step a user takes (tabs, Back, close, rows, actions, pushes, results) and every value of the \
            flags the root declares (flags = { signedIn = { "yes", "no" } }), breadth first from the initial \
            request, up to --limit states. Each finding prints the shortest steps from the start that show it, \
            as REPL lines and as a luna test case. Exit status: 0 no finding, 1 findings, 2 the script failed \
            to load (docs/verify.md).
            """)

    @Argument(help: "The route script.") var script: String
    @Option(help: "At most this many states are explored.") var limit: Int = 5_000
    @Flag(help: "Print one JSON object: the summary and the findings with their steps.") var json = false
    @OptionGroup var options: ScriptOptions

    func run() throws {
        // A probe records the leave guards each step asks (the `leave` check).
        let host = try options.load(script, json: json, probe: ScriptProbe())
        let verification = try Verification.run(host, limit: limit)
        if json {
            emitJSON(
                verification.json(script: script) { location in
                    let place = ScriptPaths.relocate(location, script: script)
                    return (place.file, place.line)
                })
        } else {
            for line in verification.text(
                script: ScriptPaths.display(script),
                relocate: { location in
                    let place = ScriptPaths.relocate(location, script: script)
                    return "\(place.file):\(place.line)"
                })
            {
                emit(line)
            }
        }
        if !verification.findings.isEmpty { throw ExitCode(1) }
    }
}

struct Graph: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the route tree as Graphviz DOT (or render it with dot).")

    @Argument(help: "The route script.") var script: String
    @Option(help: "dot, or svg/png rendered through Graphviz's dot.") var format: String = "dot"
    @Option(name: [.short, .customLong("output")], help: "Write to FILE instead of standard output.")
    var output: String?
    @OptionGroup var options: ScriptOptions

    func validate() throws {
        guard ["dot", "svg", "png"].contains(format) else { throw ValidationError("--format must be dot, svg or png") }
    }

    func run() throws {
        let host = try options.load(script)
        guard let tree = host.routeTree else { return }
        let dot = LunaConsole.Graph.dot(tree, title: ScriptFile.name(script))
        if format == "dot" {
            guard let output else {
                emit(dot)
                return
            }
            do { try Render.write(dot, to: output) } catch {
                fail(error)
                throw ExitCode(2)
            }
            return
        }
        do { try Render.throughDot(dot, format: format, to: output) } catch {
            fail(error)
            throw ExitCode(2)
        }
    }
}

enum ScriptFile {
    static func name(_ path: String) -> String { path.split(separator: "/").last.map(String.init) ?? path }
}

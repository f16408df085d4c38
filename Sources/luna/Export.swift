import ArgumentParser
import Foundation
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

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Export the compiled tree as JSON (RouteTree(json:) loads it without Lua), typed Swift routes, the files links need, or a clickable prototype.",
        discussion: """
            json: nodes, patterns, validators as regex text, names, ids, titles; functions (validators, \
            guards, redirects) become named hooks the app supplies, and Lua presenter hooks presenter names — \
            the hooks are listed in the file and on standard error.
            swift: one constructor per route (named after its name, or its pattern: orders/:id → ordersId), Route.book(id: "42", query: ["title": "Dune"]).path.
            aasa: the apple-app-site-association file (applinks components of the routes a link reaches, \
            link = false routes excluded) for --app-id TEAMID.bundle.id (repeatable).
            plist: the CFBundleURLTypes entry for the script's links.schemes (--name: CFBundleURLName).
            html: a clickable prototype in -o DIR (DIR/index.html, one self-contained file that opens \
            from the file system): the states reachable from the script's initial request through its \
            tabs, rows, samples, actions and screens, up to --limit states, each with its plan.
            Exit status: 0 written, 2 the script failed to load or the file could not be written.
            """)

    @Argument(help: "json, swift, aasa, plist or html.") var format: String
    @Argument(help: "The route script.") var script: String
    @Option(name: [.short, .customLong("output")], help: "Write to FILE instead of standard output.")
    var output: String?
    @Option(name: .customLong("type"), help: "The name of the generated Swift type (swift).") var typeName = "Route"
    @Option(name: .customLong("app-id"), help: "TEAMID.bundle.id of the app links open (aasa; repeatable).")
    var appIDs: [String] = []
    @Option(name: .customLong("name"), help: "CFBundleURLName (plist; by convention the bundle id).")
    var urlName: String?
    @Option(help: "The most states a prototype holds (html).") var limit = Prototype.defaultLimit
    @OptionGroup var options: ScriptOptions

    func validate() throws {
        guard ["json", "swift", "aasa", "plist", "html"].contains(format) else {
            throw ValidationError("the format is json, swift, aasa, plist or html")
        }
        if format == "html" {
            guard output != nil else {
                throw ValidationError("html needs -o DIR (the folder the prototype is written to)")
            }
            guard limit >= 1 else { throw ValidationError("--limit is at least 1") }
        }
        if format == "aasa" {
            guard !appIDs.isEmpty else { throw ValidationError("aasa needs --app-id TEAMID.bundle.id") }
            for id in appIDs {
                let parts = id.split(separator: ".", maxSplits: 1)
                guard parts.count == 2, parts[0].count == 10, parts[0].allSatisfy({ $0.isUppercase || $0.isNumber }),
                    !parts[1].isEmpty, !id.contains(where: { $0 == " " || $0 == "\"" })
                else {
                    throw ValidationError(
                        "--app-id is TEAMID.bundle.id, the 10-character team id then the bundle id (got '\(id)')")
                }
            }
        }
        if format == "plist", urlName == nil, appIDs.isEmpty {
            // CFBundleURLName is by convention the app's bundle id, which only the user knows.
            throw ValidationError(
                "plist needs --name com.example.app (the app's bundle id) or --app-id TEAMID.bundle.id")
        }
        guard SwiftExport.identifier(typeName) == typeName, typeName.first?.isUppercase == true else {
            throw ValidationError("--type must be a Swift type name (like Route or BooksRoute)")
        }
    }

    func run() throws {
        let host = try options.load(script, output: { writeError($0) })
        guard let tree = host.routeTree else { return }
        if format == "html", let output {
            try writePrototype(host, to: output)
            return
        }
        let text: String
        if format == "json" {
            text = try host.exportJSON()
            let hooks = try host.requiredHooks()
            let code = hooks.validators + hooks.enabled + hooks.redirects + hooks.leave
            if !code.isEmpty {
                writeError("the app supplies these hooks (RouteHooks): " + code.joined(separator: ", "))
            }
            if !hooks.presenters.isEmpty {
                writeError("presenter names the app's presenter sees: " + hooks.presenters.joined(separator: ", "))
            }
        } else if format == "aasa" {
            if tree.links?.hosts.isEmpty ?? true {
                writeError(
                    "luna: warning: the script declares no link hosts (links = { hosts = { … } }): serve this file on each host the app's Associated Domains name"
                )
            }
            let (components, notes) = tree.appLinkComponents()
            for note in notes { writeError("luna: note: " + note) }
            text = tree.appSiteAssociation(appIDs: appIDs, components: components)
        } else if format == "plist" {
            if tree.links?.schemes.isEmpty ?? true {
                writeError("luna: warning: the script declares no URL schemes (links = { schemes = { … } })")
            }
            text = tree.urlTypesPropertyList(
                name: urlName ?? appIDs.first.map { String($0.drop { $0 != "." }.dropFirst()) } ?? "")
        } else {
            text = SwiftExport.source(for: tree, typeName: typeName, source: ScriptPaths.display(script))
        }
        guard let output else {
            writeAll(STDOUT_FILENO, text)
            return
        }
        guard let file = fopen(output, "w") else {
            writeError("luna: error: cannot write '\(output)': \(String(cString: strerror(errno)))")
            throw ExitCode(2)
        }
        let written = fputs(text, file)
        fclose(file)
        if written < 0 {
            writeError("luna: error: cannot write '\(output)'")
            throw ExitCode(2)
        }
    }
}

extension Export {
    /// Explores the script and writes DIR/index.html; what Lua decided and what the bound left
    /// out go to standard error.
    func writePrototype(_ host: RouteScriptHost, to folder: String) throws {
        let name = ScriptPaths.display(script)
        let prototype: Prototype
        do { prototype = try Prototype.explore(host, script: name, limit: limit) } catch {
            fail(error, script: script)
            throw ExitCode(2)
        }
        let file = folder + "/index.html"
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try PrototypePage.html(prototype, title: name).write(toFile: file, atomically: true, encoding: .utf8)
        } catch {
            writeError("luna: error: cannot write '\(file)': \(error.localizedDescription)")
            throw ExitCode(2)
        }
        writeError("wrote \(file): \(prototype.states) states, \(prototype.moves) steps")
        if !prototype.evaluated.isEmpty {
            writeError(
                "luna: note: Lua was evaluated at export time for " + prototype.evaluated.joined(separator: "; "))
        }
        switch prototype.cut {
        case .states?:
            writeError(
                "luna: note: the bound (--limit \(limit)) left out \(prototype.leftOut) steps that lead to further states"
            )
        case .steps?:
            writeError(
                "luna: note: exploring stopped after \(limit * Prototype.stepsPerState) steps "
                    + "(\(Prototype.stepsPerState) per state of --limit \(limit)); \(prototype.leftOut) steps are left out"
            )
        case .size?:
            writeError(
                "luna: note: the prototype reached \(Prototype.maximumBytes >> 20) MB; \(prototype.leftOut) steps that "
                    + "lead to further states are left out")
        case nil:
            break
        }
    }
}

struct PathCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "path",
        abstract: "Reverse routing: the path of a named route filled with values.",
        discussion: """
            Values that are the route's parameters fill its pattern; the others become the query \
            (`luna path books.lua book id=42 title=Dune` → books/42?title=Dune). Exit status: 0 \
            printed, 1 no such route or a value it refuses, 2 a usage error or a script that failed \
            to load.
            """)

    @Argument(help: "The route script.") var script: String
    @Argument(help: "The route's name (name = \"…\" in the script).") var name: String
    @Argument(help: "KEY=VALUE pairs.") var values: [String] = []
    @Flag(help: "Print {\"path\":…} or {\"error\":…}.") var json = false
    @OptionGroup var options: ScriptOptions

    /// The values as the REPL's `path` reads them (one rule: a key given twice is a list).
    func command() throws(CommandError) -> Command {
        try Command(
            op: "path",
            fields: .object([("name", .string(name))] + (try CommandSpec.pairs(values).map { [("params", $0)] } ?? [])))
    }

    func validate() throws {
        do { _ = try command() } catch { throw ValidationError(error.message) }
    }

    func run() throws {
        let host = try options.load(script, json: json)
        guard let tree = host.routeTree else { return }
        do {
            guard case .path(let name, let values, let lists) = try command() else { return }
            let path = try tree.path(forRouteNamed: name, values: values, lists: lists)
            if json { emitJSON("{\"path\":\(JSONWriter.quoted(path))}") } else { emit(path) }
        } catch {
            if json {
                emitJSON("{\"error\":\(Failure(error).relocated(script: script).errorJSON)}")
            } else {
                fail(error, script: script)
            }
            throw ExitCode(1)
        }
    }
}

import LuaHost
import RouteCore
import RouteScript

/// Any error Luna reports, as data: its kind (the error kinds of `dispatch --json`, docs/cli.md),
/// its message, where in a script it points, and the request it concerned. Built once from
/// the error where it is caught; every view prints it from these fields.
package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
    package var kind: String
    /// The message (a Lua error followed by its traceback).
    package var message: String
    /// Where the error points, from the error itself (never read back out of the message).
    package var location: SourceLocation?
    /// The request that failed, for a dispatch, explain or flag.
    package var request: String?

    package init(kind: String, message: String, location: SourceLocation? = nil, request: String? = nil) {
        self.kind = kind
        self.message = message
        self.location = location
        self.request = request
    }

    package init(_ error: any Error, request: String? = nil) {
        switch error {
        case let failure as Failure:
            self = failure
            if self.request == nil { self.request = request }
            return
        case let error as RouteError:
            self.init(kind: error.kind.rawValue, message: error.message, location: error.location)
        case let error as RouteScriptError:
            self.init(
                kind: error.kind == .load || error.kind == .evaluation ? "script" : error.kind.rawValue,
                message: error.message + (error.traceback.map { "\n" + $0 } ?? ""), location: error.location)
        case let error as RouteDefinitionError:
            self.init(kind: "script", message: error.message, location: error.location)
        case let error as LuaError:
            self.init(
                kind: "script", message: error.fullDescription,
                location: error.location.map { SourceLocation(file: $0.file, line: $0.line) })
        case let error as LiveSessionError: self.init(kind: "history", message: error.message)
        case let error as CommandError: self.init(kind: "usage", message: error.message)
        default: self.init(kind: "script", message: "\(error)")
        }
        self.request = request
    }

    package var description: String { message }

    /// The message as a line of text: with `file:line: ` first when the error points into a
    /// script and the message does not already start there (a tree's or a sample's error
    /// carries its place apart from its text).
    package var locatedMessage: String {
        guard let location, SourceLocation(leadingIn: message) == nil else { return message }
        return "\(location): " + message
    }

    /// The location and message as the user gave the script: a chunk name relative to the
    /// script's folder becomes a path from the working directory (in the message's text too,
    /// traceback lines included).
    package func relocated(script: String?) -> Failure {
        guard let script else { return self }
        var copy = self
        copy.location = location.map { ScriptPaths.relocate($0, script: script) }
        copy.message = ScriptPaths.relocate(message, script: script)
        return copy
    }

    /// `{"kind":"…","message":"…"}`, with `file` and `line` when it has a location.
    package var errorJSON: String {
        var fields = [("kind", JSONWriter.quoted(kind)), ("message", JSONWriter.quoted(message))]
        if let location {
            fields += [("file", JSONWriter.quoted(location.file)), ("line", String(location.line))]
        }
        return JSONWriter.ordered(fields)
    }

    /// `{"request":"…","error":{…}}` for a failed request, `{"error":{…}}` otherwise.
    package var json: String { JSONWriter.ordered(members) }

    /// The failure's JSON members: the request (when it concerned one), then the error. The
    /// REPL's `--json` line is their object; a page's or device's reply has them beside its
    /// `type`, `id` and `ok`.
    package var members: [(String, String)] {
        (request.map { [("request", JSONWriter.quoted($0))] } ?? []) + [("error", errorJSON)]
    }
}

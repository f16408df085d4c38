import RouteCore

/// An error of a route script: it failed to load, or a callback failed.
///
/// ```swift
/// do { _ = try RouteScriptHost(contentsOf: "books.lua") }
/// catch let error as RouteScriptError { print(error.message) }
/// // books.lua:12: endpoint: unknown field 'childs' (did you mean 'children'?)
/// ```
public struct RouteScriptError: LunaError, Equatable {
    public enum Kind: String, Sendable {
        /// The script did not load: syntax, runtime error, limit, invalid tree.
        case load
        /// A dispatch or reload was started from inside a presenter or guard.
        case reentrant
        /// No script is loaded yet.
        case notLoaded
        /// Lua typed at the REPL (``RouteScriptHost/evaluate(_:)``) failed.
        case evaluation
    }

    public var kindName: String { kind.rawValue }

    public var kind: Kind
    /// The message, with `file:line:` where there is one.
    public var message: String
    public var traceback: String?
    /// The script line the error points at, carried from where it was raised (Lua's own
    /// position for a syntax or runtime error, the declaration for a DSL mistake).
    public var location: SourceLocation?

    public init(_ kind: Kind, _ message: String, traceback: String? = nil, location: SourceLocation? = nil) {
        self.kind = kind
        self.message = message
        self.traceback = traceback
        self.location = location
    }

    public var description: String { message }
}

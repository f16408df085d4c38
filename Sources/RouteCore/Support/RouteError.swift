/// Why a request could not be dispatched. The kinds are the error kinds of `dispatch --json`.
///
/// ```swift
/// do { _ = try Request(parsing: "books/%zz") }
/// catch let error as RouteError { print(error.kind, error.message) }
/// // invalidRequest bad percent-encoding '%zz' in segment 2 ('%zz')
/// ```
public struct RouteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The error kinds of `dispatch --json` (docs/cli.md, "The `luna` command").
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// No route matches the path (and there is no catch-all).
        case noMatch
        /// The request is malformed (encoding, size, JSON).
        case invalidRequest
        /// The matched route is disabled and has no fallback.
        case disabled
        /// Redirects went on for more than 8 steps, or came back to where they started.
        case redirectLoop
        /// A named request (`name|{json}`) names no route, or its parameters do not fit.
        case unknownRoute
        /// A script callback (guard, validator, presenter) failed.
        case script
        /// `back` found no screen to pop and no modal to dismiss.
        case nothingToGoBack
        /// A restoration string (``RouterState/restorationString``) that cannot be read.
        case invalidState
        /// A leave guard refused the change: the node it guards stays.
        case leaveRefused
        /// A leave guard's question is waiting for ``Router/confirm()`` or ``Router/cancel()``.
        case pendingConfirmation
        /// A push found no stack shown, or a stack that does not take that screen
        /// (docs/dsl.md, "Push").
        case notPushable
    }

    public var kind: Kind
    public var message: String
    /// The script line the error points at (a failing guard, redirect or validator), carried
    /// from where it was raised.
    public var location: SourceLocation?

    public init(_ kind: Kind, _ message: String, location: SourceLocation? = nil) {
        self.kind = kind
        self.message = message
        self.location = location
    }

    public var description: String { message }
}

/// A mistake in a route definition: a bad pattern, validator or tree. Found when the tree
/// is built, never while dispatching.
public struct RouteDefinitionError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    /// The declaration the error is about, when the tree came from a script.
    public var location: SourceLocation?
    public init(_ message: String, location: SourceLocation? = nil) {
        self.message = message
        self.location = location
    }
    public var description: String { message }
}

/// The kinds of node in a route tree.
public enum NodeKind: String, Sendable, Equatable, CaseIterable {
    /// Exclusive app sections (login / main): only the matched section exists.
    case switcher
    /// A tab bar: all options are shown, the one holding the match is selected.
    case junction
    /// A navigation stack: the chain of endpoints from its root to the match.
    case stack
    /// A screen.
    case endpoint
}

/// Context handed to guards and redirects: what was matched.
public struct RouteContext: Sendable, Equatable {
    /// The normalized path.
    public var path: String
    public var params: [String: String]
    public var query: [String: String]
    public var fragment: String?
    /// The pattern (or `regex:SOURCE`) of the matched endpoint.
    public var route: String
    /// The endpoint's name, if it has one.
    public var name: String?
    /// The matched endpoint's id.
    public var endpointID: String
    /// The request the user asked for, when a guard's fallback or a redirect led here (a
    /// login screen continues to it); nil otherwise.
    public var from: String?
    /// The app's flags (``Router/flags``; a script's `flags`), for hooks that decide by them.
    public var flags: [String: String]
    /// The typed values of the query keys the endpoint's schema declares (``QuerySchema``):
    /// a hook's `ctx.query` has these for those keys, and ``query``'s strings for the others.
    public var typedQuery: [String: QueryValue]

    public init(
        path: String, params: [String: String], query: [String: String], fragment: String?, route: String,
        name: String?, endpointID: String, from: String? = nil, flags: [String: String] = [:],
        typedQuery: [String: QueryValue] = [:]
    ) {
        self.typedQuery = typedQuery
        self.from = from
        self.flags = flags
        self.path = path
        self.params = params
        self.query = query
        self.fragment = fragment
        self.route = route
        self.name = name
        self.endpointID = endpointID
    }
}

/// A guard declared on a container: `enabled` with `fallback`, `redirect`, and `leave`.
public struct GuardSpec: Sendable {
    public var enabled: (@Sendable (RouteContext) throws -> Bool)?
    public var fallback: String?
    public var redirect: (@Sendable (RouteContext) throws -> String?)?
    /// Asked before the node is removed (``LeaveGuard``).
    public var leave: LeaveGuard?

    public init(
        enabled: (@Sendable (RouteContext) throws -> Bool)? = nil, fallback: String? = nil,
        redirect: (@Sendable (RouteContext) throws -> String?)? = nil, leave: LeaveGuard? = nil
    ) {
        self.enabled = enabled
        self.fallback = fallback
        self.redirect = redirect
        self.leave = leave
    }
}

/// What a leave guard says of a change that removes its node: go, stay, or ask the user
/// (a question the app shows; ``Router/confirm()`` goes on, ``Router/cancel()`` stays).
public enum LeaveAnswer: Sendable, Equatable {
    case go
    case stay
    case ask(String)
}

/// A leave guard (`leave = function(ctx, to)` in a script): called with the context of the
/// node about to be removed and the request the change goes to (nil when there is none).
public typealias LeaveGuard = @Sendable (RouteContext, String?) throws -> LeaveAnswer

/// What an endpoint adds to a node: its route and guards.
public struct EndpointSpec: Sendable {
    /// The pattern (MonarchRouter syntax), or nil when `regex` is used.
    public var pattern: String?
    /// A whole-path regular expression (FeatherweightRouter style).
    public var regex: String?
    /// The route's name for `name|{json}` requests and reverse routing.
    public var name: String?
    /// Parameter validators.
    public var validators: [String: Validator] = [:]
    /// The query its requests must fit (``QuerySchema``): typed keys, defaults, enumerations.
    public var query: QuerySchema?
    /// `enabled(ctx)`: when it returns false, `fallback` is dispatched instead.
    public var enabled: (@Sendable (RouteContext) throws -> Bool)?
    public var fallback: String?
    /// `redirect(ctx)`: a returned path is dispatched instead.
    public var redirect: (@Sendable (RouteContext) throws -> String?)?
    /// `leave(ctx, to)`: asked before a change removes the screen (``LeaveGuard``).
    public var leave: LeaveGuard?
    /// Whether a link (a universal link, a custom-scheme URL) may open this route: false
    /// (`link = false` in a script) lists it as excluded in `luna export aasa`.
    public var linkable = true

    // Inlinable: a script's reload makes one per endpoint, and called across modules the
    // initializer copied the whole struct.
    @inlinable
    public init(pattern: String? = nil, regex: String? = nil, name: String? = nil) {
        self.pattern = pattern
        self.regex = regex
        self.name = name
    }
}

/// A node as declared (by a script or by Swift code), before the tree is compiled.
///
/// ```swift
/// let root = NodeSpec.switcher([
///     .endpoint("login"),
///     .junction([.stack([.endpoint("books", children: [.endpoint("books/:id")])])], title: "Main"),
/// ])
/// let tree = try RouteTree(root: root)
/// ```
public struct NodeSpec: Sendable {
    public var kind: NodeKind
    public var id: String?
    public var title: String?
    /// Sections, options, stack roots, or an endpoint's children.
    public var children: [NodeSpec]
    /// Nodes presented modally over an endpoint.
    public var modals: [NodeSpec]
    public var endpoint: EndpointSpec?
    /// A guard on a container (an endpoint's own is in ``endpoint``): it applies to every
    /// endpoint below the node, outermost guard first.
    public var guardSpec: GuardSpec?
    /// Where the node was declared (`books.lua:12`), for error messages.
    public var location: SourceLocation?
    /// The name of the presenter the app uses for the node (an exported tree's
    /// `"presenter"`); RouteCore only carries it to ``RouteTree/Node/presenter``.
    public var presenter: String?
    /// The link hosts and schemes the app answers (``LinkDomains``): on the root only.
    public var links: LinkDomains?
    /// Where the app starts (`initial = "home"`): on the root only; `luna serve`, the REPL,
    /// `luna.open` and linked apps dispatch it when nothing is shown.
    public var initial: String?
    /// The screens a stack takes pushes of (``Router/push(_:)``), by endpoint id or route
    /// name; nil: its own screens (docs/dsl.md, "Push").
    public var pushes: [String]?

    // Inlinable: a script's reload makes one per node, and called across modules the
    // initializer copied the whole struct.
    @inlinable
    public init(
        kind: NodeKind, id: String? = nil, title: String? = nil, children: [NodeSpec] = [], modals: [NodeSpec] = [],
        endpoint: EndpointSpec? = nil, location: SourceLocation? = nil
    ) {
        self.kind = kind
        self.id = id
        self.title = title
        self.children = children
        self.modals = modals
        self.endpoint = endpoint
        self.location = location
    }

    public static func endpoint(
        _ pattern: String, id: String? = nil, title: String? = nil, name: String? = nil,
        where validators: [String: Validator] = [:], children: [NodeSpec] = [], modals: [NodeSpec] = []
    ) -> NodeSpec {
        var endpoint = EndpointSpec(pattern: pattern, name: name)
        endpoint.validators = validators
        return NodeSpec(kind: .endpoint, id: id, title: title, children: children, modals: modals, endpoint: endpoint)
    }

    public static func stack(_ roots: [NodeSpec], id: String? = nil, title: String? = nil) -> NodeSpec {
        NodeSpec(kind: .stack, id: id, title: title, children: roots)
    }

    public static func junction(_ options: [NodeSpec], id: String? = nil, title: String? = nil) -> NodeSpec {
        NodeSpec(kind: .junction, id: id, title: title, children: options)
    }

    public static func switcher(_ sections: [NodeSpec], id: String? = nil, title: String? = nil) -> NodeSpec {
        NodeSpec(kind: .switcher, id: id, title: title, children: sections)
    }
}

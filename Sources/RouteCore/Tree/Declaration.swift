/// A node as declared, as the tree builder reads it: made from a ``NodeSpec`` (a tree built in
/// Swift), or by a script's builder call (each script node holds one), so that a script's tree
/// is compiled from what its builders wrote, with no second copy of the declaration made and
/// freed on every load.
///
/// Its fields keep Swift's dynamic exclusivity checks: skipping them saved 3–4 % of a 10k-route
/// reload's instructions, not enough to give up a check that would catch an overlapping access
/// a later change introduces on the load path (benchmark history, 2026-11-28).
package final class Declaration {
    package let kind: NodeKind
    package let location: SourceLocation?
    package var id: String?
    package var title: String?
    /// Sections, options, stack roots, or an endpoint's children.
    package var children: [Declaration] = []
    /// Nodes presented modally over an endpoint.
    package var modals: [Declaration] = []
    /// The pattern (MonarchRouter syntax) of an endpoint.
    package var pattern: String?
    /// A container that declared route fields (an error the builder reports).
    package var declaresRoute = false
    /// Whether the endpoint's link may open the app (`link = false`: no).
    package var linkable = true
    /// The route's name.
    package var name: String?
    /// What most nodes leave unset, out of line: a declaration lives as long as its script's
    /// state, and these fields inline made each one 264 bytes (a loaded 10k-route host held
    /// 1,772 bytes per route against 1,602 before declarations). Private, reached only through
    /// the accessors below.
    private var rare: Rare?

    /// The box of the rarely set fields (only this declaration's accessors reach it).
    private final class Rare {
        var regex: String?
        var validators: [String: Validator] = [:]
        var querySchema: QuerySchema?
        var guards: GuardSpec?
        var presenterName: String?
        var links: LinkDomains?
        var initial: String?
        var pushes: [String]?
    }

    /// Sets an out-of-line field; the box is made when a field is first set to something.
    private func set<T>(_ field: ReferenceWritableKeyPath<Rare, T>, _ value: T, isSet: Bool) {
        if let rare {
            rare[keyPath: field] = value
        } else if isSet {
            let made = Rare()
            made[keyPath: field] = value
            rare = made
        }
    }

    /// A whole-path regular expression of an endpoint.
    package var regex: String? {
        get { rare?.regex }
        set { set(\.regex, newValue, isSet: newValue != nil) }
    }
    package var validators: [String: Validator] {
        get { rare?.validators ?? [:] }
        set { set(\.validators, newValue, isSet: !newValue.isEmpty) }
    }
    /// The query an endpoint's requests must fit (`query = { … }`).
    package var querySchema: QuerySchema? {
        get { rare?.querySchema }
        set { set(\.querySchema, newValue, isSet: newValue != nil) }
    }
    /// The node's own guard (an endpoint's or a container's).
    package var guards: GuardSpec? {
        get { rare?.guards }
        set { set(\.guards, newValue, isSet: newValue != nil) }
    }
    /// The name of the presenter the app uses for the node (``RouteTree/Node/presenter``).
    package var presenterName: String? {
        get { rare?.presenterName }
        set { set(\.presenterName, newValue, isSet: newValue != nil) }
    }
    /// The link hosts and schemes (the root's).
    package var links: LinkDomains? {
        get { rare?.links }
        set { set(\.links, newValue, isSet: newValue != nil) }
    }
    /// Where the app starts (the root's), or a tab's initial location.
    package var initial: String? {
        get { rare?.initial }
        set { set(\.initial, newValue, isSet: newValue != nil) }
    }

    /// What else a stack takes pushes of (`pushes = { … }`: endpoint ids or route names).
    package var pushes: [String]? {
        get { rare?.pushes }
        set { set(\.pushes, newValue, isSet: newValue != nil) }
    }

    package init(kind: NodeKind, location: SourceLocation?) {
        self.kind = kind
        self.location = location
    }

    /// A declaration with this one's fields, for a second place of a node declared once and
    /// placed twice: each place gets guards of its own. Its children are this one's until
    /// the caller sets them.
    package func copy() -> Declaration {
        let copy = Declaration(kind: kind, location: location)
        copy.id = id
        copy.title = title
        copy.children = children
        copy.modals = modals
        copy.pattern = pattern
        copy.regex = regex
        copy.declaresRoute = declaresRoute
        copy.name = name
        copy.validators = validators
        copy.querySchema = querySchema
        copy.guards = guards
        copy.linkable = linkable
        copy.presenterName = presenterName
        copy.links = links
        copy.initial = initial
        copy.pushes = pushes
        return copy
    }

    /// The declaration of `spec` and everything below it.
    package convenience init(_ spec: NodeSpec) {
        self.init(kind: spec.kind, location: spec.location)
        id = spec.id
        title = spec.title
        children = spec.children.map(Declaration.init)
        modals = spec.modals.map(Declaration.init)
        presenterName = spec.presenter
        links = spec.links
        initial = spec.initial
        pushes = spec.pushes
        if let endpoint = spec.endpoint {
            declaresRoute = true
            pattern = endpoint.pattern
            regex = endpoint.regex
            name = endpoint.name
            validators = endpoint.validators
            querySchema = endpoint.query
            linkable = endpoint.linkable
        }
        // An endpoint's guard is in its endpoint fields; a container's in `guardSpec`.
        if spec.kind != .endpoint {
            guards = spec.guardSpec
        } else if let endpoint = spec.endpoint,
            endpoint.enabled != nil || endpoint.fallback != nil || endpoint.redirect != nil || endpoint.leave != nil
        {
            guards = GuardSpec(
                enabled: endpoint.enabled, fallback: endpoint.fallback, redirect: endpoint.redirect,
                leave: endpoint.leave)
        }
    }
}

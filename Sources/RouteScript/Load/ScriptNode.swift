import LuaHost
import RouteCore

/// How a node presents: the built-in headless presenter, a host presenter by name, or Lua
/// hooks.
enum PresenterChoice {
    case headless
    case host(String)
    /// Hook functions by name (`create`, `update`, …).
    case hooks([String: LuaValue])
}

/// A node as a builder call decoded it: held by Lua as userdata until the script returns
/// the root. The fields the route tree is built from are written into its ``Declaration``,
/// which the tree builder reads in place; the rest are the script's own.
final class ScriptNode {
    /// What the tree builder reads: kind, id, title, pattern, name, … (its children are set
    /// by `ScriptNodePreparer`, from ``children`` and ``modals``).
    let declaration: Declaration
    /// The builder's name as called (`fork` for a junction declared with `fork`).
    let builder: String
    // Only the builder call that made the node writes it and only the load's preparation pass
    // (`ScriptNodePreparer`) and the tree builder read it, afterwards; the fields keep Swift's
    // dynamic exclusivity checks (they cost a few percent of a reload; see `Declaration`).
    /// Sections, options, stack roots or an endpoint's children; the declaration's are made
    /// from them when the load prepares the nodes.
    var children: [ScriptNode] = []
    var modals: [ScriptNode] = []
    /// `attributes = { badge = 2, split = true }`: set on the node's presentable when it is
    /// created and again after every reload or device change.
    var attributes: [(String, AttributeValue)] = []
    var presenter: PresenterChoice = .headless
    /// Validators as declared: regex sources or Lua functions (compiled into `validators`).
    var declaredValidators: [String: LuaValue] = [:]
    /// `enabled`, `fallback`, `redirect` and `links` as declared, out of line: few nodes set
    /// them, and a node lives as long as its script's state (inline they were 80 bytes of
    /// every node).
    private var declared: Declared?

    private final class Declared {
        var enabled: LuaValue?
        var fallback: String?
        var redirect: LuaValue?
        var leave: LuaValue?
        var onResult: LuaValue?
        var links: (schemes: [String], hosts: [String], http: Bool)?
        var query: [DeclaredQueryField]?
    }

    /// The out-of-line fields, made when one is first set.
    private func declaredFields() -> Declared {
        if let declared { return declared }
        let made = Declared()
        declared = made
        return made
    }

    var enabled: LuaValue? {
        get { declared?.enabled }
        set { declaredFields().enabled = newValue }
    }
    var fallback: String? {
        get { declared?.fallback }
        set { declaredFields().fallback = newValue }
    }
    var redirect: LuaValue? {
        get { declared?.redirect }
        set { declaredFields().redirect = newValue }
    }
    /// `leave = function(ctx, to)`: asked before a change removes the node.
    var leave: LuaValue? {
        get { declared?.leave }
        set { declaredFields().leave = newValue }
    }
    /// `on_result = function(view, ctx, value)`: called when a value is handed back to the
    /// screen (docs/dsl.md, "Results").
    var onResult: LuaValue? {
        get { declared?.onResult }
        set { declaredFields().onResult = newValue }
    }
    /// `links = { schemes = {…}, hosts = {…} }` as declared (the root's; compiled into `links`).
    var declaredLinks: (schemes: [String], hosts: [String], http: Bool)? {
        get { declared?.links }
        set { declaredFields().links = newValue }
    }
    /// `query = { page = { "int", default = 1 }, … }` as declared (compiled into the
    /// declaration's ``QuerySchema``, its validators calling the script's functions).
    var declaredQuery: [DeclaredQueryField]? {
        get { declared?.query }
        set { declaredFields().query = newValue }
    }
    /// `rows = { { "Dune", go = "books/42" }, … }`: sample content a prototype screen shows.
    var rows: [ScreenRow] = []
    /// `actions = { { "Sign in", flag = { signedIn = "yes" }, go = "home" } }`: a prototype's
    /// buttons: set flags (an empty value clears one), then dispatch.
    var actions: [ScreenAction] = []
    /// `sample = { id = { "42", "7" } }`: values a prototype offers for the endpoint's
    /// parameters (rows on the screen that opens it, instead of a form), by parameter name.
    var samples: [(name: String, values: [String])] = []
    /// The root's `flags = { signedIn = { "yes", "no" } }`: the values `luna verify` tries.
    var flagValues: [(name: String, values: [String])] = []
    /// `verify = { dead_end = "why" }`: the checks of `luna verify` switched off here.
    var verifyReasons: [(check: String, reason: String)] = []
    /// `reach = "app"`: a screen only the app opens (no tap, no link reaches it).
    var reachedByApp = false
    /// Set once a load's preparation pass met the node: a node the script placed more than
    /// once (one local in two stacks) is met again, and its other places get copies.
    var isPrepared = false

    init(kind: NodeKind, builder: String, location: LuaError.Location?) {
        self.builder = builder
        self.declaration = Declaration(kind: kind, location: location.map(SourceLocation.init))
    }

    var kind: NodeKind { declaration.kind }
    var location: SourceLocation? { declaration.location }
}

extension SourceLocation {
    /// The position Lua reported, as a RouteCore location.
    init(_ location: LuaError.Location) { self.init(file: location.file, line: location.line) }
}

/// A prototype screen's button (`actions = {…}`): flags to set, then a request to dispatch.
struct ScreenAction {
    var label: String
    var flags: [(name: String, value: String)]
    var go: String?
    /// `push = "…"`: `go` is pushed onto the top stack shown.
    var push = false
    /// `result = { … }`: after the flags, Back handing this value to the screen under.
    var result: [String: AttributeValue]? = nil
    /// `continue = true`: after the flags, continue to the request a guard kept (the one the
    /// user was going to) when there is one; go to `go` only otherwise.
    var continues = false
}

/// One key of `query = { … }` as declared: its type and options, its validator a regex source
/// or a Lua function.
struct DeclaredQueryField {
    var name: String
    var kind: QueryField.Kind
    var optional = false
    var list = false
    var defaultValue: String?
    var validator: LuaValue?
}

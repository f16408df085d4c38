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
///
/// Its fields skip the dynamic exclusivity checks (why that is safe, and what it saves, above
/// them).
final class ScriptNode {
    /// What the tree builder reads: kind, id, title, pattern, name, … (its children are set
    /// by `ScriptNodePreparer`, from ``children`` and ``modals``).
    let declaration: Declaration
    /// The builder's name as called (`fork` for a junction declared with `fork`).
    let builder: String
    // Every `var` below (and every field of `Declaration`) is `@exclusivity(unchecked)`. Safe:
    // only the builder call that made the node writes it (a set or an append) and only the
    // load's preparation pass (`ScriptNodePreparer`) and the tree builder read it, afterwards,
    // one short access at a time on the loading thread, none passed inout to code that could
    // reach the node again, so no two accesses overlap. Measured gain: the dynamic checks cost
    // a 10k-route reload 5.4 M instructions (4.6 M in the converter then in use, 0.8 M in the
    // builders; `LunaBench reloads 10000` under callgrind, 2026-11-25).
    /// Sections, options, stack roots or an endpoint's children; the declaration's are made
    /// from them when the load prepares the nodes.
    @exclusivity(unchecked) var children: [ScriptNode] = []
    @exclusivity(unchecked) var modals: [ScriptNode] = []
    /// `attributes = { badge = 2, split = true }`: set on the node's presentable when it is
    /// created and again after every reload or device change.
    @exclusivity(unchecked) var attributes: [(String, AttributeValue)] = []
    @exclusivity(unchecked) var presenter: PresenterChoice = .headless
    /// Validators as declared: regex sources or Lua functions (compiled into `validators`).
    @exclusivity(unchecked) var declaredValidators: [String: LuaValue] = [:]
    /// `enabled`, `fallback`, `redirect` and `links` as declared, out of line: few nodes set
    /// them, and a node lives as long as its script's state (inline they were 80 bytes of
    /// every node).
    @exclusivity(unchecked) private var declared: Declared?

    private final class Declared {
        @exclusivity(unchecked) var enabled: LuaValue?
        @exclusivity(unchecked) var fallback: String?
        @exclusivity(unchecked) var redirect: LuaValue?
        @exclusivity(unchecked) var links: (schemes: [String], hosts: [String])?
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
    /// `links = { schemes = {…}, hosts = {…} }` as declared (the root's; compiled into `links`).
    var declaredLinks: (schemes: [String], hosts: [String])? {
        get { declared?.links }
        set { declaredFields().links = newValue }
    }
    /// `rows = { { "Dune", go = "books/42" }, … }`: sample content a prototype screen shows.
    @exclusivity(unchecked) var rows: [(label: String, go: String)] = []
    /// `actions = { { "Sign in", flag = { signedIn = "yes" }, go = "home" } }`: a prototype's
    /// buttons: set flags (an empty value clears one), then dispatch.
    @exclusivity(unchecked) var actions: [ScreenAction] = []
    /// `sample = { id = { "42", "7" } }`: values a prototype offers for the endpoint's
    /// parameters (rows on the screen that opens it, instead of a form), by parameter name.
    @exclusivity(unchecked) var samples: [(name: String, values: [String])] = []
    /// Set once a load's preparation pass met the node: a node the script placed more than
    /// once (one local in two stacks) is met again, and its other places get copies.
    @exclusivity(unchecked) var isPrepared = false

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
    /// `continue = true`: after the flags, continue to the request a guard kept (the one the
    /// user was going to) when there is one; go to `go` only otherwise.
    var continues = false
}

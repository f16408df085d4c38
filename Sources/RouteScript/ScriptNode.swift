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
/// the root.
final class ScriptNode {
    let kind: NodeKind
    /// The builder's name as called (`fork` for a junction declared with `fork`).
    let builder: String
    let location: SourceLocation?
    var pattern: String?
    var regex: String?
    var id: String?
    var title: String?
    /// `attributes = { badge = 2, split = true }`: set on the node's presentable when it is
    /// created and again after every reload or device change.
    var attributes: [(String, AttributeValue)] = []
    var name: String?
    var children: [ScriptNode] = []
    var modals: [ScriptNode] = []
    var presenter: PresenterChoice = .headless
    /// Validators: regex sources or Lua functions.
    var validators: [String: LuaValue] = [:]
    var enabled: LuaValue?
    var fallback: String?
    var redirect: LuaValue?
    /// `links = { schemes = {…}, hosts = {…} }` (the root's).
    var links: (schemes: [String], hosts: [String])?
    /// `link = false`: no link opens this endpoint.
    var linkable = true
    /// `initial = "home"` (the root's): where the app starts.
    var initial: String?
    /// `rows = { { "Dune", go = "books/42" }, … }`: sample content a prototype screen shows.
    var rows: [(label: String, go: String)] = []
    /// `actions = { { "Sign in", flag = { signedIn = "yes" }, go = "home" } }`: a prototype's
    /// buttons: set flags (an empty value clears one), then dispatch.
    var actions: [ScreenAction] = []
    /// `sample = { id = { "42", "7" } }`: values a prototype offers for the endpoint's
    /// parameters (rows on the screen that opens it, instead of a form), by parameter name.
    var samples: [(name: String, values: [String])] = []

    init(kind: NodeKind, builder: String, location: LuaError.Location?) {
        self.kind = kind
        self.builder = builder
        self.location = location.map(SourceLocation.init)
    }
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
}

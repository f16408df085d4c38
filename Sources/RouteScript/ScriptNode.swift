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
///
/// Its fields skip the dynamic exclusivity checks (why that is safe, and what it saves, above
/// them).
final class ScriptNode {
    let kind: NodeKind
    /// The builder's name as called (`fork` for a junction declared with `fork`).
    let builder: String
    let location: SourceLocation?
    // Every `var` below is `@exclusivity(unchecked)`. Safe: only the builder call that made the
    // node writes it (a set or an append) and only the spec converter reads it, afterwards, one
    // short access at a time on the loading thread, none passed inout to code that could reach
    // the node again, so no two accesses overlap. Measured gain: the dynamic checks cost a
    // 10k-route reload 5.4 M instructions (4.6 M in the converter, 0.8 M in the builders;
    // `LunaBench reloads 10000` under callgrind, 2026-11-25).
    @exclusivity(unchecked) var pattern: String?
    @exclusivity(unchecked) var regex: String?
    @exclusivity(unchecked) var id: String?
    @exclusivity(unchecked) var title: String?
    /// `attributes = { badge = 2, split = true }`: set on the node's presentable when it is
    /// created and again after every reload or device change.
    @exclusivity(unchecked) var attributes: [(String, AttributeValue)] = []
    @exclusivity(unchecked) var name: String?
    @exclusivity(unchecked) var children: [ScriptNode] = []
    @exclusivity(unchecked) var modals: [ScriptNode] = []
    @exclusivity(unchecked) var presenter: PresenterChoice = .headless
    /// Validators: regex sources or Lua functions.
    @exclusivity(unchecked) var validators: [String: LuaValue] = [:]
    @exclusivity(unchecked) var enabled: LuaValue?
    @exclusivity(unchecked) var fallback: String?
    @exclusivity(unchecked) var redirect: LuaValue?
    /// `links = { schemes = {…}, hosts = {…} }` (the root's).
    @exclusivity(unchecked) var links: (schemes: [String], hosts: [String])?
    /// `link = false`: no link opens this endpoint.
    @exclusivity(unchecked) var linkable = true
    /// `initial = "home"` (the root's): where the app starts.
    @exclusivity(unchecked) var initial: String?
    /// `rows = { { "Dune", go = "books/42" }, … }`: sample content a prototype screen shows.
    @exclusivity(unchecked) var rows: [(label: String, go: String)] = []
    /// `actions = { { "Sign in", flag = { signedIn = "yes" }, go = "home" } }`: a prototype's
    /// buttons: set flags (an empty value clears one), then dispatch.
    @exclusivity(unchecked) var actions: [ScreenAction] = []
    /// `sample = { id = { "42", "7" } }`: values a prototype offers for the endpoint's
    /// parameters (rows on the screen that opens it, instead of a form), by parameter name.
    @exclusivity(unchecked) var samples: [(name: String, values: [String])] = []

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

// A Swift host for examples/books.lua: the app's own presentables and presenters under the
// script's control, then the same tree shipped without Lua.
//
//   swift run BooksHost ../books.lua books.json
//
// (books.json is `luna export json examples/books.lua`; scripts/example-host makes it.)

import Foundation
import RouteCore
import RouteScript

/// The app's own presentable. In a UIKit app this is a view controller; here it is a plain
/// class that knows nothing of Luna except the attributes Lua hooks may set on it.
final class Screen: ScriptViewable {
    let id: String
    let kind: NodeKind
    var title: String
    var subtitle: String?
    var greeting: String?
    var children: [Screen] = []
    var selected: Int?
    var modal: Screen?

    init(id: String, kind: NodeKind, title: String) {
        self.id = id
        self.kind = kind
        self.title = title
    }

    /// What Lua's `view.title = …` and `view.greeting = …` write.
    func setScriptAttribute(_ name: String, to value: AttributeValue?) throws {
        switch name {
        case "title": title = value?.description ?? id
        case "greeting": greeting = value?.description
        default: print("    (Screen ignores '\(name)')")
        }
    }

    /// The screen tree, one line per screen, the selected tab marked.
    func outline(_ indent: String = "", selectedTab: Bool = false) -> String {
        var line = "\(indent)\(kind.rawValue) \(title)"
        if let subtitle { line += " — \(subtitle)" }
        if let greeting { line += " (\(greeting))" }
        if selectedTab { line += "  [selected]" }
        var lines = [line]
        for (index, child) in children.enumerated() {
            lines.append(child.outline(indent + "  ", selectedTab: kind == .junction && index == selected))
        }
        if let modal { lines.append(modal.outline(indent + "  modal: ")) }
        return lines.joined(separator: "\n")
    }
}

/// The app's presenter: makes the app's presentables and applies each structural change
/// (a UIKit app sets view controllers, selects tabs, presents sheets here).
struct ScreenPresenter: Presenter {
    var verbose = true

    func say(_ text: String) { if verbose { print("    presenter: " + text) } }

    func create(_ node: RouteTree.Node, activation: Activation?) throws -> Screen {
        say("create \(node.kind.rawValue) \(node.id)" + (node.presenter.map { " (presenter \($0))" } ?? ""))
        return Screen(id: node.id, kind: node.kind, title: node.title)
    }
    func update(_ screen: Screen, node: RouteTree.Node, activation: Activation) throws {
        say("update \(node.id) \(activation.params.sorted { $0.key < $1.key })")
    }
    func setStack(_ stack: Screen, node: RouteTree.Node, items: [Screen]) throws {
        say("setStack \(node.id) [\(items.map(\.id).joined(separator: ", "))]")
        stack.children = items
    }
    func setOptions(_ container: Screen, node: RouteTree.Node, options: [Screen]) throws {
        say("setOptions \(node.id) [\(options.map(\.id).joined(separator: ", "))]")
        container.children = options
    }
    func select(_ container: Screen, node: RouteTree.Node, index: Int, option: Screen) throws {
        say("select \(node.id) \(index) (\(option.id))")
        container.selected = index
        if container.kind == .switcher { container.children = [option] }
    }
    func presentModal(_ modal: Screen, over presenter: Screen, node: RouteTree.Node) throws {
        say("present \(modal.id) over \(presenter.id)")
        presenter.modal = modal
    }
    func dismissModal(_ modal: Screen, from presenter: Screen, node: RouteTree.Node) throws {
        say("dismiss \(modal.id) from \(presenter.id)")
        presenter.modal = nil
    }
    func unwind(_ screen: Screen, node: RouteTree.Node) throws {
        say("unwind \(node.id)")
    }
}

@MainActor
func run(script: String, exported: String) throws {
    print("== 1. the script drives the app's own presentables (ScriptHost)")
    let host = ScriptHost(presenter: ScreenPresenter())
    // Swift presenters bound without the script naming them: by route name, and a default
    // for every junction. They run after the app's presenter and before the Lua hook.
    var book = HostPresenter<Screen>()
    book.update = { screen, context in
        print("    swift (name book): update \(screen.id), title is '\(screen.title)'")
        screen.subtitle = context.query["title"].map { "“\($0)”" }
    }
    host.bind(.name("book"), book)
    var tabs = HostPresenter<Screen>()
    tabs.select = { tabBar, tab in print("    swift (kind junction): \(tabBar.id) shows \(tab.title)") }
    host.bind(.kind(.junction), tabs)
    try host.load(contentsOf: script)

    let requests = [
        BooksRoute.book(id: "42", query: ["title": "Dune"]).path,
        BooksRoute.story(type: "news", id: "7").path,
    ]
    for request in requests {
        print("> dispatch \(request)")
        let outcome = try host.dispatch(request)
        print("  plan: \(outcome.plan.operations.map(\.text).joined(separator: "; "))")
    }
    print("> back (the user swiped the story down)")
    try host.back()
    print(host.root?.outline() ?? "(nothing shown)")

    print("> dispatch onboarding?name=Ada")
    try host.dispatch("onboarding?name=Ada")
    print(host.root?.outline() ?? "(nothing shown)")

    print("> dispatch books/%zz")
    do { try host.dispatch("books/%zz") } catch let error as any LunaError {
        print("  \(error.kindName): \(error.message)")
    }
    print("  still showing: \(host.state.request?.path ?? "-"), \(host.presentables.count) presentables")

    print("== 2. the same tree without Lua (RouteTree(json:) + Router)")
    let json = try String(contentsOfFile: exported, encoding: .utf8)
    // books.lua has no function guards or validators; its Lua presenter hooks arrive as
    // presenter names the app's presenter can switch on (node.presenter).
    let tree = try RouteTree(json: json, hooks: RouteHooks())
    print(
        "  \(tree.nodes.count) nodes, \(tree.endpoints.count) routes, presenters: "
            + tree.requiredHooks().presenters.joined(separator: ", "))
    let router = Router(tree: tree, presenter: ScreenPresenter(verbose: false))
    for route in [BooksRoute.allNews(), BooksRoute.book(id: "a/b c", query: ["title": "50% off?"])] {
        let result = try router.dispatch(route.path)
        print(
            "> dispatch \(route.path) → \(tree[result.resolution.route].name ?? "-") "
                + "\(result.resolution.params.sorted { $0.key < $1.key })")
    }
    print(router.rootPresentable?.outline() ?? "(nothing shown)")
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    print("usage: BooksHost SCRIPT.lua EXPORTED.json")
    exit(2)
}
do {
    try MainActor.assumeIsolated { try run(script: arguments[1], exported: arguments[2]) }
} catch {
    print("error: \(error)")
    exit(1)
}

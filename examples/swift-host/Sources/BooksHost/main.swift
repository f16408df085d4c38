// A Swift host for examples/books.lua: the app's own presentables and presenters under the
// script's control, then the same tree shipped without Lua.
//
//   swift run BooksHost ../books.lua books.json
//   swift run BooksHost --connect URL [--idiom pad]     (the live link: see below)
//
// (books.json is `luna export json examples/books.lua`; scripts/example-host makes it.)

import Foundation
import LunaLink
import RouteCore
import RouteScript

/// Writes a line at once (unbuffered), so a script following two linked hosts sees each line
/// as it happens.
func emit(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

/// The app's own presentable. In a UIKit app this is a view controller; here it is a plain
/// class that knows nothing of Luna except the attributes Lua hooks may set on it.
final class Screen: ScriptViewable {
    /// Set in --connect mode: every attribute the session's hooks set is printed.
    nonisolated(unsafe) static var announce: String?
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
        if let prefix = Self.announce { emit("\(prefix)    view: \(id) \(name) = \(value?.description ?? "nil")") }
        switch name {
        case "title": title = value?.description ?? id
        case "greeting": greeting = value?.description
        default: emit("    (Screen ignores '\(name)')")
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
    /// Put before every line (`[phone]` when two linked hosts share a terminal).
    var prefix = ""

    func say(_ text: String) { if verbose { emit(prefix + "    presenter: " + text) } }

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
    /// A value handed back when the screen above closed (a picker's choice): once.
    func deliver(_ screen: Screen, node: RouteTree.Node, result: [String: AttributeValue]) throws {
        say("deliver \(node.id) \(PlanOperation.text(result))")
        screen.greeting = result["picked"]?.description
    }
    /// The UI made this change itself (the user popped, swiped a sheet down, tapped a tab): a
    /// UIKit app has nothing to do; this app's screens are a model, brought in line here.
    func reflect(_ operation: PlanOperation, lookup: (String) -> Screen?) {
        say("reflect " + operation.text)
        switch operation {
        case .setStack(let id, let items), .setOptions(let id, let items):
            lookup(id)?.children = items.compactMap(lookup)
        case .select(let id, let index, let option):
            guard let container = lookup(id) else { return }
            container.selected = index
            if container.kind == .switcher, let option = lookup(option) { container.children = [option] }
        case .presentModal(let id, let modal): lookup(id)?.modal = lookup(modal)
        case .dismissModal(let id, _): lookup(id)?.modal = nil
        case .create, .update, .unwind, .deliver: break
        }
    }
}

@MainActor
func run(script: String, exported: String) throws {
    emit("== 1. the script drives the app's own presentables (ScriptHost)")
    let host = ScriptHost(presenter: ScreenPresenter())
    // Swift presenters bound without the script naming them: by route name, and a default
    // for every junction. They run after the app's presenter and before the Lua hook.
    var book = HostPresenter<Screen>()
    book.update = { screen, context in
        emit("    swift (name book): update \(screen.id), title is '\(screen.title)'")
        screen.subtitle = context.query["title"].map { "“\($0)”" }
    }
    host.bind(.name("book"), book)
    var tabs = HostPresenter<Screen>()
    tabs.select = { tabBar, tab in emit("    swift (kind junction): \(tabBar.id) shows \(tab.title)") }
    host.bind(.kind(.junction), tabs)
    try host.load(contentsOf: script)

    let requests = [
        BooksRoute.book(id: "42", query: ["title": "Dune"]).path,
        BooksRoute.story(type: "news", id: "7").path,
    ]
    for request in requests {
        emit("> dispatch \(request)")
        let outcome = try host.dispatch(request)
        emit("  plan: \(outcome.plan.operations.map(\.text).joined(separator: "; "))")
    }
    emit("> back (the user swiped the story down)")
    try host.back()
    emit(host.root?.outline() ?? "(nothing shown)")

    // The same screen again: a related book pushed over the first (its id names the instance).
    emit("> dispatch \(requests[0])")
    try host.dispatch(requests[0])
    emit("> push \(BooksRoute.book(id: "7").path)")
    let pushed = try host.push(BooksRoute.book(id: "7").path)
    emit("  plan: \(pushed.plan.operations.map(\.text).joined(separator: "; "))")
    emit("> back with a result (the related book was picked)")
    let picked = try host.back(result: ["picked": .string("7")])
    emit("  plan: \(picked.plan.operations.map(\.text).joined(separator: "; "))")
    emit(host.root?.outline() ?? "(nothing shown)")

    emit("> dispatch onboarding?name=Ada")
    try host.dispatch("onboarding?name=Ada")
    emit(host.root?.outline() ?? "(nothing shown)")

    emit("> dispatch books/%zz")
    do { try host.dispatch("books/%zz") } catch let error as any LunaError {
        emit("  \(error.kindName): \(error.message)")
    }
    emit("  still showing: \(host.state.request?.path ?? "-"), \(host.presentables.count) presentables")

    emit("== 2. the same tree without Lua (RouteTree(json:) + Router)")
    let json = try String(contentsOfFile: exported, encoding: .utf8)
    // books.lua has no function guards or validators; its Lua presenter hooks arrive as
    // presenter names the app's presenter can switch on (node.presenter).
    let tree = try RouteTree(json: json, hooks: RouteHooks())
    emit(
        "  \(tree.nodes.count) nodes, \(tree.endpoints.count) routes, presenters: "
            + tree.requiredHooks().presenters.joined(separator: ", "))
    let router = Router(tree: tree, presenter: ScreenPresenter(verbose: false))
    for route in [BooksRoute.allNews(), BooksRoute.book(id: "a/b c", query: ["title": "50% off?"])] {
        let result = try router.dispatch(route)
        emit(
            "> dispatch \(route.path) → \(tree[result.resolution.route].name ?? "-") "
                + "\(result.resolution.params.sorted { $0.key < $1.key })")
    }
    // Typed: the same screen again.
    let again = try router.push(.book(id: "7"))
    emit("> push \(BooksRoute.book(id: "7").path) → \(again.plan.operations.map(\.text).joined(separator: "; "))")
    emit(router.rootPresentable?.outline() ?? "(nothing shown)")
}

/// The live link: this process is the app, following a `luna serve` session. It prints every
/// presenter call the session's plans make, and reads the app's own steps from stdin:
/// `back` (an interactive pop), `sync PATH` (a tab tapped), `dispatch PATH` (a row tapped),
/// `push PATH` (the same screen again), `close` (a sheet's Close), `pick VALUE` (back handing
/// `picked=VALUE` to the screen under), `confirm` and `cancel` (a leave guard's question
/// answered), `outline`, `quit`.
@MainActor
func connect(url: String, idiom: Device) async {
    let prefix = "[\(idiom.rawValue)]"
    Screen.announce = prefix
    let link = LunaLink(url: url, idiom: idiom, presenter: ScreenPresenter(prefix: prefix))
    link.onEvent = { event in
        switch event {
        case .connected: emit("\(prefix) link: connected")
        case .applied(let request, _): emit("\(prefix) link: showing \(request ?? "nothing")")
        case .refused(let why): emit("\(prefix) link: refused: \(why)")
        case .failed(let why): emit("\(prefix) link: failed: \(why)")
        case .disconnected(let why): emit("\(prefix) link: disconnected: \(why)")
        // A leave guard asks the user: this host prints it, and `confirm` or `cancel` answers.
        case .asked(let question, let node): emit("\(prefix) link: \(node) asks: \(question)")
        case .leaveAnswer(let node, let answer):
            emit("\(prefix) link: \(node) would answer \(answer.map { "\($0)" } ?? "nothing (no leave guard)")")
        }
    }
    link.start()
    let lines = AsyncStream<String> { continuation in
        Thread.detachNewThread {
            while let line = readLine() { continuation.yield(line) }
            continuation.finish()
        }
    }
    for await line in lines {
        let words = line.split(separator: " ", maxSplits: 1).map(String.init)
        switch (words.first, words.count > 1 ? words[1] : nil) {
        case ("back", nil): emit("\(prefix) > back"); link.back()
        case ("sync", let path?): emit("\(prefix) > sync \(path)"); link.sync(path)
        case ("dispatch", let path?): emit("\(prefix) > dispatch \(path)"); link.dispatch(path)
        case ("push", let path?): emit("\(prefix) > push \(path)"); link.push(path)
        case ("close", nil): emit("\(prefix) > close"); link.close()
        case ("pick", let value?):
            emit("\(prefix) > back with picked=\(value)")
            link.back(result: ["picked": .string(value)])
        case ("confirm", nil): emit("\(prefix) > confirm"); link.confirm()
        case ("cancel", nil): emit("\(prefix) > cancel"); link.cancel()
        case ("outline", nil):
            let root = link.tree.flatMap { link.presentables[$0.root.id] }
            emit(
                root?.outline().split(separator: "\n").map { "\(prefix) \($0)" }.joined(separator: "\n")
                    ?? "\(prefix) (nothing shown)")
        case ("quit", nil): link.stop(); return
        case (nil, _): continue
        default:
            emit(
                "\(prefix) ? back | sync PATH | dispatch PATH | push PATH | close | pick VALUE | confirm | cancel | outline | quit"
            )
        }
    }
    link.stop()
}

let arguments = CommandLine.arguments
if arguments.count >= 3, arguments[1] == "--connect" {
    let idiom = arguments.count >= 5 && arguments[3] == "--idiom" ? Device(rawValue: arguments[4]) : .phone
    guard let idiom else {
        emit("usage: BooksHost --connect URL [--idiom phone|pad]")
        exit(2)
    }
    await connect(url: arguments[2], idiom: idiom)
    exit(0)
}
guard arguments.count == 3 else {
    emit("usage: BooksHost SCRIPT.lua EXPORTED.json | BooksHost --connect URL [--idiom phone|pad]")
    exit(2)
}
do {
    try run(script: arguments[1], exported: arguments[2])
} catch {
    emit("error: \(error)")
    exit(1)
}

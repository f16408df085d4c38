// Compiled with the settings of a new Xcode 26 app target: the main actor is the default
// isolation and isolated conformances are inferred. The presenter below is main-actor code
// (it touches `ScreenModel`, main-actor state, as a UIKit presenter touches view controllers)
// and conforms to `Presenter` with no annotation at all.
import LunaLink
import RouteCore
import Testing

final class ScreenModel {
    let id: String
    var children: [ScreenModel] = []
    var selected = 0
    var sheet: ScreenModel?
    init(id: String) { self.id = id }
}

final class AppPresenter: Presenter {
    var created: [String] = []

    func create(_ node: RouteTree.Node, activation: Activation?) throws -> ScreenModel {
        created.append(node.id)
        return ScreenModel(id: node.id)
    }
    func setStack(_ stack: ScreenModel, node: RouteTree.Node, items: [ScreenModel]) throws { stack.children = items }
    func setOptions(_ tabs: ScreenModel, node: RouteTree.Node, options: [ScreenModel]) throws {
        tabs.children = options
    }
    func select(_ tabs: ScreenModel, node: RouteTree.Node, index: Int, option: ScreenModel) throws {
        tabs.selected = index
    }
    func presentModal(_ modal: ScreenModel, over presenter: ScreenModel, node: RouteTree.Node) throws {
        presenter.sheet = modal
    }
    func dismissModal(_ modal: ScreenModel, from presenter: ScreenModel, node: RouteTree.Node) throws {
        presenter.sheet = nil
    }
}

@Suite struct DefaultIsolationTests {
    @Test func aPresenterWithNoAnnotationDrivesTheRouter() async throws {
        let tree = try await Task.detached {
            try RouteTree(root: .junction([.stack([.endpoint("books", children: [.endpoint("./:id")])])]))
        }.value
        let presenter = AppPresenter()
        let router = Router(tree: tree, presenter: presenter)
        try router.dispatch("books/42")
        #expect(presenter.created == ["root", "stack:books", "books", "books/:id"])
        #expect(router.rootPresentable?.children.first?.children.map(\.id) == ["books", "books/:id"])
    }

    @Test func theSamePresenterFollowsALink() async throws {
        var options = LunaLink<AppPresenter>.Options()
        options.reconnect = false
        let link = LunaLink(
            url: "http://127.0.0.1:9/?token=abc", idiom: .pad, presenter: AppPresenter(), options: options)
        var disconnected = false
        link.onEvent = { if case .disconnected = $0 { disconnected = true } }
        link.start()
        let clock = ContinuousClock()
        // Generous: under the whole suite, other `@MainActor` tests hold the main actor for seconds.
        let deadline = clock.now + .seconds(120)
        while !disconnected, clock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(disconnected)
        link.stop()
    }
}

// The live link recipes of LunaLink's DocC article "Drive your app from the session", compiled
// here against the UIKit twin and the SwiftUI recipe's model. `RecipeTextTests` checks that the
// article shows this code, line for line, between the `recipe:` markers.
import LunaLink
import RouteCore

// recipe: link-uikit
/// Where the app's navigation comes from: the live session in a debug build given its URL (an
/// environment variable of the Xcode scheme, say `LUNA_SESSION`), the exported tree otherwise.
/// The presenter is the same one.
@MainActor
final class AppNavigator {
    let presenter: UIKitPresenter
    private(set) var router: Router<UIKitPresenter>?
    private(set) var link: LunaLink<UIKitPresenter>?
    /// Shows the root view controller (sets it on the window) whenever it changes.
    var showRoot: (UIViewController) -> Void = { _ in }

    init(presenter: UIKitPresenter) { self.presenter = presenter }

    func start(exportedTree: String, sessionURL: String?) throws {
        #if DEBUG
            if let sessionURL {
                let link = LunaLink(url: sessionURL, idiom: .phone, presenter: presenter)
                link.onEvent = { [weak self, weak link] event in
                    guard case .applied = event, let link, let root = link.tree?.root.id,
                        let controller = link.presentables[root]
                    else { return }
                    self?.showRoot(controller)
                }
                link.start()
                self.link = link
                return
            }
        #endif
        let router = Router(tree: try RouteTree(json: exportedTree), presenter: presenter)
        try router.dispatch("books")
        self.router = router
        if let root = router.rootPresentable { showRoot(root) }
    }

    /// The tree requests are made on: the session's (linked) or the shipped one.
    var tree: RouteTree? { link?.tree ?? router?.tree }

    /// What the user did by themselves (a swipe back, a sheet swiped down, a tab tapped), as
    /// the request now on screen: the session follows in a linked build, the router otherwise.
    func userShowed(_ request: Request) throws {
        if let link { link.sync(request.original) } else { try router?.sync(request.original) }
    }

    /// A row or a button: the session navigates in a linked build, the router otherwise.
    func open(_ request: String) throws {
        if let link { link.dispatch(request) } else { try router?.dispatch(request) }
    }
}
// end recipe

// recipe: link-swiftui
/// A SwiftUI app follows the session through the same presenter and model: the views bind to
/// `NavigationModel` as before. What the user does goes to the link instead of a router.
@MainActor
final class LinkedNavigation {
    let model = NavigationModel()
    let link: LunaLink<SwiftUIPresenter>

    init(sessionURL: String, idiom: Device) {
        link = LunaLink(url: sessionURL, idiom: idiom, presenter: SwiftUIPresenter(model: model))
        link.start()
    }

    /// `NavigationStack(path:)`'s binding was set by the user (back button, swipe).
    func userSetPath(_ path: [Screen], of stack: Screen) {
        guard let tree = link.tree, path.count < model.path(of: stack).count,
            let request = model.request(showing: path.last ?? model.root(of: stack), in: tree)
        else { return }
        link.sync(request.original)
    }

    /// `TabView(selection:)`'s binding was set by a tap on a tab.
    func userSelectedTab(_ index: Int) {
        guard let tree = link.tree, index != model.selectedTab, model.tabs.indices.contains(index) else { return }
        let tab = model.tabs[index]
        if let request = model.request(showing: model.stacks[tab.id]?.last, in: tree) {
            link.sync(request.original)
        } else if let first = tree[NodeID(tab.id)]?.children.first,
            let request = try? tree.request(for: tree.nodes[first].nodeID, params: [:])
        {
            link.dispatch(request.original)
        }
    }

    /// `.sheet(item:)`'s binding was cleared by a swipe-down: back to the screen it covered.
    func userDismissedSheet() {
        guard let tree = link.tree, model.sheet != nil, let request = model.request(showing: model.covered, in: tree)
        else { return }
        link.sync(request.original)
    }
}
// end recipe

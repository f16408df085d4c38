// The UIKit recipe of RouteCore's DocC article "UIKit and SwiftUI presenters", compiled and run
// here against the UIKit twin (UIKitTwin.swift). `RecipeTests` checks that the article shows
// this code, line for line, between the `recipe:` markers (the article adds `import UIKit`).
import Foundation  // NSObject (UIKit brings it in the app)
import RouteCore

// recipe: uikit
/// A screen of the app: your view controllers subclass it (or hold an `Activation` their own
/// way), so the system callbacks below know which request each one shows.
class RouteScreen: UIViewController {
    var activation: Activation?
}

/// A switcher's container: shows one section at a time (UIKit has no such controller).
final class SectionController: UIViewController {
    func show(_ section: UIViewController) {
        for child in children where child !== section { child.removeFromParent() }
        if section.parent !== self { addChild(section) }
    }
}

/// Applies plans to UIKit: a navigation controller per stack, a tab bar controller per
/// junction, `present` for modals. Its methods run on the main actor, as UIKit's do: the
/// conformance is isolated (`@MainActor Presenter`, Swift 6.2), and the `Router` that uses it
/// lives on the main actor too.
@MainActor
final class UIKitPresenter {
    /// Your screen for an endpoint (pick the type by `node.id`, `node.presenter` …).
    let makeScreen: (RouteTree.Node) -> RouteScreen
    /// The node of every controller this presenter made, and the screen each sheet covers.
    private(set) var nodes: [ObjectIdentifier: NodeID] = [:]
    private(set) var covered: [ObjectIdentifier: RouteScreen] = [:]

    init(makeScreen: @escaping (RouteTree.Node) -> RouteScreen) { self.makeScreen = makeScreen }

    /// The request that shows `screen`: the one it was activated with, or its route's own (a
    /// screen below the one a link opened was never activated itself).
    func request(showing screen: UIViewController?, in tree: RouteTree) -> Request? {
        guard let screen else { return nil }
        guard let node = nodes[ObjectIdentifier(screen)], tree[node]?.kind == .endpoint else { return nil }
        return try? tree.request(showing: node, activation: (screen as? RouteScreen)?.activation)
    }
}

extension UIKitPresenter: @MainActor Presenter {
    func create(_ node: RouteTree.Node, activation: Activation?) throws -> UIViewController {
        let controller: UIViewController
        switch node.kind {
        case .switcher: controller = SectionController()
        case .junction: controller = UITabBarController()
        case .stack: controller = UINavigationController()
        case .endpoint:
            let screen = makeScreen(node)
            screen.activation = activation
            controller = screen
        }
        controller.title = node.title
        nodes[ObjectIdentifier(controller)] = node.nodeID
        return controller
    }

    func update(_ screen: UIViewController, node: RouteTree.Node, activation: Activation) throws {
        (screen as? RouteScreen)?.activation = activation  // new parameters, query or fragment
    }

    func setStack(_ stack: UIViewController, node: RouteTree.Node, items: [UIViewController]) throws {
        (stack as? UINavigationController)?.setViewControllers(items, animated: true)
    }

    func setOptions(_ container: UIViewController, node: RouteTree.Node, options: [UIViewController]) throws {
        // A switcher shows one section at a time: `select` puts it in.
        (container as? UITabBarController)?.setViewControllers(options, animated: false)
    }

    func select(_ container: UIViewController, node: RouteTree.Node, index: Int, option: UIViewController) throws {
        if let tabs = container as? UITabBarController {
            tabs.selectedIndex = index
        } else {
            (container as? SectionController)?.show(option)
        }
    }

    func presentModal(_ modal: UIViewController, over presenter: UIViewController, node: RouteTree.Node) throws {
        covered[ObjectIdentifier(modal)] = presenter as? RouteScreen
        presenter.present(modal, animated: true)
    }

    func dismissModal(_ modal: UIViewController, from presenter: UIViewController, node: RouteTree.Node) throws {
        covered[ObjectIdentifier(modal)] = nil
        // Only while it is up: after a swipe-down UIKit already dismissed it, and `dismiss` on a
        // controller that presents nothing would dismiss that controller itself.
        if presenter.presentedViewController === modal { presenter.dismiss(animated: true) }
    }

    func unwind(_ presentable: UIViewController, node: RouteTree.Node) throws {
        nodes[ObjectIdentifier(presentable)] = nil
    }
}

/// What the user does with UIKit's own controls, told to the router. UIKit has already made the
/// change, so each callback calls `sync` — record it, run no presenter — with the request of
/// the screen now on top; a tab never visited gets a `dispatch` of its first screen.
@MainActor
final class SystemNavigationEvents: NSObject, UINavigationControllerDelegate, UITabBarControllerDelegate,
    UIAdaptivePresentationControllerDelegate
{
    let router: Router<UIKitPresenter>
    /// Where an error goes (a guard refused, a hook failed): the state stays as it was.
    var report: (any Error) -> Void = { print("navigation:", $0) }

    init(router: Router<UIKitPresenter>) { self.router = router }

    /// The interactive pop gesture or the back button (also shown after the router's own
    /// pushes: then the screen's request is already the state's, and nothing happens).
    func navigationController(
        _ navigationController: UINavigationController, didShow viewController: UIViewController, animated: Bool
    ) {
        guard let request = router.presenter.request(showing: viewController, in: router.tree),
            request != router.state.request
        else { return }
        run { try router.sync(request.original) }
    }

    /// A sheet swiped down: back to the screen it covered.
    func presentationControllerDidDismiss(_ presentationController: UIPresentationController) {
        let covered = router.presenter.covered[ObjectIdentifier(presentationController.presentedViewController)]
        guard let request = router.presenter.request(showing: covered, in: router.tree) else { return }
        run { try router.sync(request.original) }
    }

    /// A tab tapped: the screen on top of that tab, or the tab's first screen.
    func tabBarController(_ tabBarController: UITabBarController, didSelect viewController: UIViewController) {
        let top = (viewController as? UINavigationController)?.topViewController ?? viewController
        if let request = router.presenter.request(showing: top, in: router.tree) {
            run { try router.sync(request.original) }
        } else if let node = router.presenter.nodes[ObjectIdentifier(viewController)],
            let first = router.tree[node]?.children.first
        {
            let entry = router.tree.nodes[first].nodeID
            run { try router.dispatch(router.tree.request(for: entry, params: [:]).original) }
        }
    }

    private func run(_ action: () throws -> Void) {
        do { try action() } catch { report(error) }
    }
}
// end recipe

import Foundation

// A platform-free twin of the UIKit API the recipes in RouteCore's DocC ("UIKit presenter")
// use: the same names and signatures, isolated to the main actor as UIKit's are, with just
// enough behaviour to check what a plan did. UIKit exists on Apple platforms only; this lets
// the recipe's code compile, and run, on Linux.

@MainActor
class UIViewController {
    var title: String?
    private(set) var children: [UIViewController] = []
    private(set) weak var parent: UIViewController?
    private(set) var presentedViewController: UIViewController?
    private(set) weak var presentingViewController: UIViewController?

    init() {}

    func addChild(_ child: UIViewController) {
        children.append(child)
        child.parent = self
    }

    func removeFromParent() {
        parent?.children.removeAll { $0 === self }
        parent = nil
    }

    func present(_ viewController: UIViewController, animated: Bool, completion: (() -> Void)? = nil) {
        presentedViewController = viewController
        viewController.presentingViewController = self
        completion?()
    }

    /// As UIKit: dismisses what this controller presented, or, when it presents nothing,
    /// asks its presenter to dismiss it.
    func dismiss(animated: Bool, completion: (() -> Void)? = nil) {
        if let presented = presentedViewController {
            presented.presentingViewController = nil
            presentedViewController = nil
        } else {
            presentingViewController?.dismiss(animated: animated)
        }
        completion?()
    }

    /// What a user's swipe-down does: the sheet goes away without the app asking.
    func userSwipedDown() {
        presentingViewController?.presentedViewController = nil
        presentingViewController = nil
    }
}

@MainActor
class UINavigationController: UIViewController {
    private(set) var viewControllers: [UIViewController] = []
    var topViewController: UIViewController? { viewControllers.last }

    func setViewControllers(_ viewControllers: [UIViewController], animated: Bool) {
        self.viewControllers = viewControllers
    }

    /// What the interactive pop gesture (or the back button) does.
    func userPopped() { viewControllers.removeLast() }
}

@MainActor
class UITabBarController: UIViewController {
    private(set) var viewControllers: [UIViewController]?
    var selectedIndex = 0
    var selectedViewController: UIViewController? { viewControllers?[selectedIndex] }

    func setViewControllers(_ viewControllers: [UIViewController]?, animated: Bool) {
        self.viewControllers = viewControllers
    }
}

// The delegate protocols the recipe adopts, and the presentation controller a sheet has.
@MainActor protocol UINavigationControllerDelegate: AnyObject {}
@MainActor protocol UITabBarControllerDelegate: AnyObject {}
@MainActor protocol UIAdaptivePresentationControllerDelegate: AnyObject {}

@MainActor
final class UIPresentationController {
    let presentedViewController: UIViewController
    init(presentedViewController: UIViewController) { self.presentedViewController = presentedViewController }
}

/// A split view controller's columns, as UIKit's double-column style has them.
@MainActor
class UISplitViewController: UIViewController {
    enum Style { case doubleColumn }
    enum Column { case primary, secondary }
    enum DisplayMode { case automatic, oneBesideSecondary }

    let style: Style
    var preferredDisplayMode = DisplayMode.automatic
    private var columns: [Column: UIViewController] = [:]

    init(style: Style) {
        self.style = style
        super.init()
    }

    func setViewController(_ viewController: UIViewController?, for column: Column) {
        columns[column] = viewController
    }

    func viewController(for column: Column) -> UIViewController? { columns[column] }
}

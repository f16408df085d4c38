// The split-view recipe of docs/recipes.md ("A split view on iPad in the app"), compiled and run
// here against the UIKit twin (UIKitTwin.swift). `RecipeTextTests` checks that the guide shows
// this code, line for line, between the `recipe:` markers.
import Foundation
import RouteCore

// recipe: split-uikit
/// On a pad, the stacks the script draws as split views (`attributes = { split = true }`, known
/// here by id) become a `UISplitViewController`: the stack's first screen in the sidebar, the
/// screens above it in a navigation controller beside it. Everything else is the UIKit
/// presenter's. In compact width UIKit collapses the two columns into one stack by itself.
@MainActor
final class SplitPresenter {
    let base: UIKitPresenter
    let splitStacks: Set<NodeID>
    let isPad: Bool

    init(base: UIKitPresenter, splitStacks: Set<NodeID>, isPad: Bool) {
        self.base = base
        self.splitStacks = splitStacks
        self.isPad = isPad
    }

    private func isSplit(_ node: RouteTree.Node) -> Bool { isPad && splitStacks.contains(node.nodeID) }
}

extension SplitPresenter: @MainActor Presenter {
    func create(_ node: RouteTree.Node, activation: Activation?) throws -> UIViewController {
        guard isSplit(node) else { return try base.create(node, activation: activation) }
        let split = UISplitViewController(style: .doubleColumn)
        split.preferredDisplayMode = .oneBesideSecondary
        split.title = node.title
        return split
    }

    func setStack(_ stack: UIViewController, node: RouteTree.Node, items: [UIViewController]) throws {
        guard let split = stack as? UISplitViewController else {
            return try base.setStack(stack, node: node, items: items)
        }
        split.setViewController(items.first, for: .primary)
        let detail = split.viewController(for: .secondary) as? UINavigationController ?? UINavigationController()
        detail.setViewControllers(Array(items.dropFirst()), animated: true)
        split.setViewController(detail, for: .secondary)
    }

    func update(_ screen: UIViewController, node: RouteTree.Node, activation: Activation) throws {
        try base.update(screen, node: node, activation: activation)
    }

    func setOptions(_ container: UIViewController, node: RouteTree.Node, options: [UIViewController]) throws {
        try base.setOptions(container, node: node, options: options)
    }

    func select(_ container: UIViewController, node: RouteTree.Node, index: Int, option: UIViewController) throws {
        try base.select(container, node: node, index: index, option: option)
    }

    func presentModal(_ modal: UIViewController, over presenter: UIViewController, node: RouteTree.Node) throws {
        try base.presentModal(modal, over: presenter, node: node)
    }

    func dismissModal(_ modal: UIViewController, from presenter: UIViewController, node: RouteTree.Node) throws {
        try base.dismissModal(modal, from: presenter, node: node)
    }

    func unwind(_ presentable: UIViewController, node: RouteTree.Node) throws {
        try base.unwind(presentable, node: node)
    }
}
// end recipe

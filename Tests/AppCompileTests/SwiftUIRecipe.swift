// The SwiftUI recipe's model and presenter, from RouteCore's DocC article "UIKit and SwiftUI
// presenters", compiled and run here (Observation is on Linux; SwiftUI is not, so the views
// that bind to this model are in the article only). `RecipeTests` checks that the article shows
// this code between the `recipe:` markers.
import Observation
import RouteCore

// recipe: swiftui
/// One presentable per node: what a SwiftUI view is built from.
@MainActor @Observable
final class Screen: Identifiable, Hashable {
    let id: String
    let kind: NodeKind
    var title: String
    var activation: Activation?

    init(node: RouteTree.Node, activation: Activation?) {
        id = node.id
        kind = node.kind
        title = node.title
        self.activation = activation
    }

    nonisolated static func == (a: Screen, b: Screen) -> Bool { a === b }
    nonisolated func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// What the views bind to: the tab bar's selection, each tab's `NavigationStack` path (the
/// screens above the stack's root) and the sheet. The plan writes it; the user's changes come
/// back through the `user…` methods, which `sync` the router.
@MainActor @Observable
final class NavigationModel {
    var tabs: [Screen] = []
    var selectedTab = 0
    var stacks: [String: [Screen]] = [:]
    var sheet: Screen?
    @ObservationIgnored private(set) var covered: Screen?

    /// The root screen of a stack (the `NavigationStack`'s root view) and the path above it.
    func root(of stack: Screen) -> Screen? { stacks[stack.id]?.first }
    func path(of stack: Screen) -> [Screen] { Array((stacks[stack.id] ?? []).dropFirst()) }

    /// The request that shows `screen`: the one it was activated with, or its route's own (a
    /// screen below the one a link opened was never activated itself).
    func request(showing screen: Screen?, in tree: RouteTree) -> Request? {
        guard let screen else { return nil }
        guard screen.kind == .endpoint else { return nil }
        return try? tree.request(showing: NodeID(screen.id), activation: screen.activation)
    }

    /// `NavigationStack(path:)`'s binding was set by the user (back button, swipe).
    func userSetPath(_ path: [Screen], of stack: Screen, router: Router<SwiftUIPresenter>) throws {
        guard path.count < self.path(of: stack).count else { return }
        guard let request = request(showing: path.last ?? root(of: stack), in: router.tree) else { return }
        try router.sync(request.original)
    }

    /// `TabView(selection:)`'s binding was set by a tap on a tab.
    func userSelectedTab(_ index: Int, router: Router<SwiftUIPresenter>) throws {
        guard index != selectedTab, tabs.indices.contains(index) else { return }
        let tab = tabs[index]
        if let request = request(showing: stacks[tab.id]?.last, in: router.tree) {
            try router.sync(request.original)
        } else if let first = router.tree[NodeID(tab.id)]?.children.first {
            try router.dispatch(router.tree.request(for: router.tree.nodes[first].nodeID, params: [:]).original)
        }
    }

    /// `.sheet(item:)`'s binding was cleared by a swipe-down.
    func userDismissedSheet(router: Router<SwiftUIPresenter>) throws {
        guard sheet != nil, let request = request(showing: covered, in: router.tree) else { return }
        try router.sync(request.original)
    }

    fileprivate func present(_ modal: Screen, over screen: Screen) {
        covered = screen
        sheet = modal
    }

    fileprivate func dismiss(_ modal: Screen) {
        if sheet === modal { (sheet, covered) = (nil, nil) }
    }
}

/// Applies plans to the model. Isolated to the main actor like the model it writes.
@MainActor
final class SwiftUIPresenter {
    let model: NavigationModel
    init(model: NavigationModel) { self.model = model }
}

extension SwiftUIPresenter: @MainActor Presenter {
    func create(_ node: RouteTree.Node, activation: Activation?) throws -> Screen {
        Screen(node: node, activation: activation)
    }

    func update(_ screen: Screen, node: RouteTree.Node, activation: Activation) throws {
        screen.activation = activation
    }

    func setStack(_ stack: Screen, node: RouteTree.Node, items: [Screen]) throws {
        model.stacks[stack.id] = items
    }

    func setOptions(_ container: Screen, node: RouteTree.Node, options: [Screen]) throws {
        if node.kind == .junction { model.tabs = options }
    }

    func select(_ container: Screen, node: RouteTree.Node, index: Int, option: Screen) throws {
        if node.kind == .junction { model.selectedTab = index }
    }

    func presentModal(_ modal: Screen, over presenter: Screen, node: RouteTree.Node) throws {
        model.present(modal, over: presenter)
    }

    func dismissModal(_ modal: Screen, from presenter: Screen, node: RouteTree.Node) throws {
        model.dismiss(modal)
    }

    /// A `sync` of what the user did: SwiftUI shows it already, the model takes it.
    func reflect(_ operation: PlanOperation, lookup: (String) -> Screen?) {
        switch operation {
        case .setStack(let id, let items): model.stacks[id] = items.compactMap(lookup)
        case .select(let id, let index, _) where lookup(id)?.kind == .junction: model.selectedTab = index
        case .dismissModal(_, let modal): lookup(modal).map(model.dismiss)
        default: break
        }
    }
}
// end recipe

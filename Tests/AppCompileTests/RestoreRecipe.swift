// The restoration recipe of docs/recipes.md ("Restoring navigation after relaunch"), compiled
// and run here. `RecipeTextTests` checks that the guide shows this code, line for line, between
// the `recipe:` markers.
import Foundation
import RouteCore

// recipe: restore
/// Keeps the navigation across launches: the state as a restoration string when the app goes
/// to the background, and the same screens, stacks and sheets at the next launch — on that
/// launch's tree, which may have changed (a route that is gone falls back to the nearest one,
/// with a warning).
@MainActor
final class NavigationRestoration {
    let router: Router<UIKitPresenter>
    let defaults: UserDefaults
    let key: String

    init(router: Router<UIKitPresenter>, defaults: UserDefaults = .standard, key: String = "navigation") {
        self.router = router
        self.defaults = defaults
        self.key = key
    }

    /// From `sceneDidEnterBackground` (or SwiftUI's `scenePhase` becoming `.background`).
    func save() {
        defaults.set(router.state.restorationString, forKey: key)
    }

    /// At launch, once the tree is loaded: the saved navigation, else `initial`. Returns what
    /// could not be restored as it was, for the app's log.
    @discardableResult
    func restore(orStartAt initial: String) -> String? {
        if let saved = defaults.string(forKey: key) {
            do {
                return try router.restore(restoring: saved)
            } catch {
                // Unreadable (another format, a guard that now fails): start afresh.
                defaults.removeObject(forKey: key)
            }
        }
        do { try router.dispatch(initial) } catch { return "\(error)" }
        return nil
    }
}
// end recipe

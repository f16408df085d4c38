import LuaHost
import LunaLive
import RouteCore
import RouteScript

/// Counted nouns for the command line's summaries.
package enum Output {
    /// `1 error`, `2 errors`.
    package static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
}

import LuaHost
import RouteCore
import RouteScript

/// Any error Luna reports, as its kind (the error kinds of `dispatch --json`, README) and message.
package enum ErrorReport {
    /// The error kind and the message (a Lua error with its traceback).
    package static func describe(_ error: any Error) -> (kind: String, message: String) {
        switch error {
        case let error as RouteError: (error.kind.rawValue, error.message)
        case let error as RouteScriptError:
            (
                error.kind == .load || error.kind == .evaluation ? "script" : error.kind.rawValue,
                error.message + (error.traceback.map { "\n" + $0 } ?? "")
            )
        case let error as RouteDefinitionError: ("script", error.message)
        case let error as LuaError: ("script", error.fullDescription)
        case let error as LiveSessionError: ("history", error.message)
        default: ("script", "\(error)")
        }
    }
}

import RouteCore

/// A screen's action as a script declares it (`actions = { { "Sign in", flag = {…}, go = "home",
/// continue = true } }`): its flags in name order (an empty value clears one), then its request.
package struct DeclaredAction: Sendable {
    package var label: String
    package var flags: [(name: String, value: String)]
    package var go: String?
    /// After the flags, continue to the request a guard kept when there is one; `go` otherwise.
    package var continues: Bool
    /// `push = "…"` instead of `go`: the request is pushed onto the top stack shown.
    package var push = false
    /// `result = { … }` instead of `go`: Back, handing this value to the screen under.
    package var result: [String: AttributeValue]? = nil

    /// The request the action dispatches after its flags: none when it continues to a kept
    /// request (`keepsARequest`, read before the flags), else `go`.
    package func request(keepsARequest: Bool) -> String? {
        continues && keepsARequest ? nil : go
    }
}

/// A row a screen declares (`rows = { { "Dune", go = "books/42" } }`): sample content a
/// prototype shows, each row a request to dispatch — or, with `push = "…"`, to push onto the
/// top stack shown (docs/dsl.md, "Push"), or with `result = { … }` Back handing that value to
/// the screen under (docs/dsl.md, "Results").
package struct ScreenRow: Sendable {
    package var label: String
    /// The request (`go` or `push`; empty for a result row).
    package var go: String
    package var push = false
    package var result: [String: AttributeValue]? = nil

    package init(label: String, go: String, push: Bool = false, result: [String: AttributeValue]? = nil) {
        self.label = label
        self.go = go
        self.push = push
        self.result = result
    }

    /// What pressing it sends.
    package var command: Command {
        if let result { return .returning(result) }
        return push ? .push(go) : .dispatch(go)
    }
}

/// The checks of `luna verify` (docs/verify.md), by the names a node's `verify = { … }`
/// switches one off with.
package enum VerifyCheck: String, CaseIterable, Sendable {
    /// A cold-start link shows what the shortest taps show.
    case link_taps
    /// The start is reachable again from every state; every screen is reachable.
    case dead_end
    case unreachable
    /// Every row, action, fallback, `initial` and push goes to a real route.
    case targets
    /// No state shows or keeps a screen its guard refuses.
    case guards
    /// Every state restores from its restoration string.
    case restoration
    /// A result reaches the screen that opened the one handing it back.
    case results
    /// Leave guards are asked on exactly the changes docs/dsl.md's table names.
    case leave
}

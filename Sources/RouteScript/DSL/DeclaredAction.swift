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

    /// The request the action dispatches after its flags: none when it continues to a kept
    /// request (`keepsARequest`, read before the flags), else `go`.
    package func request(keepsARequest: Bool) -> String? {
        continues && keepsARequest ? nil : go
    }
}

/// A row a screen declares (`rows = { { "Dune", go = "books/42" } }`): sample content a
/// prototype shows, each row a request to dispatch — or, with `push = "…"`, to push onto the
/// top stack shown (docs/dsl.md, "Push").
package struct ScreenRow: Sendable {
    package var label: String
    /// The request (`go` or `push`).
    package var go: String
    package var push = false

    package init(label: String, go: String, push: Bool = false) {
        self.label = label
        self.go = go
        self.push = push
    }

    /// What pressing it sends.
    package var command: Command { push ? .push(go) : .dispatch(go) }
}

extension DeclaredAction {
    /// What pressing it sends after its flags (nil: it goes nowhere).
    package func command(keepsARequest: Bool) -> Command? {
        request(keepsARequest: keepsARequest).map { push ? .push($0) : .dispatch($0) }
    }
}

/// A screen's action as a script declares it (`actions = { { "Sign in", flag = {…}, go = "home",
/// continue = true } }`): its flags in name order (an empty value clears one), then its request.
package struct DeclaredAction: Sendable {
    package var label: String
    package var flags: [(name: String, value: String)]
    package var go: String?
    /// After the flags, continue to the request a guard kept when there is one; `go` otherwise.
    package var continues: Bool

    /// The request the action dispatches after its flags: none when it continues to a kept
    /// request (`keepsARequest`, read before the flags), else `go`.
    package func request(keepsARequest: Bool) -> String? {
        continues && keepsARequest ? nil : go
    }
}

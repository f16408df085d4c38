import NIOCore
import NIOPosix
import RouteCore

/// Requests dispatched in a running session as its page does (`luna go`): one connection to
/// `/socket`, each request sent in turn and its reply awaited.
package enum SessionRequests {
    /// The replies (the session's JSON, one per request, in order). The connection and its
    /// upgrade, and each reply, must come within `timeout`; a reply over
    /// `maximumMessageBytes` (the page's messages carry the session's snapshot) drops it.
    ///
    /// - Throws: ``LinkError`` naming what did not come in time, or why the link failed.
    package static func dispatch(
        _ requests: [String], at address: LinkAddress, timeout: TimeAmount = .seconds(10),
        maximumMessageBytes: Int = 64 << 20, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> [String] {
        let connection = try await LinkConnection.open(
            address, path: "/socket", group: group, maximumMessageBytes: maximumMessageBytes, timeout: timeout)
        defer { connection.close() }
        var replies: [String] = []
        var messages = connection.messages.makeAsyncIterator()
        let seconds = Double(timeout.nanoseconds) / 1e9
        for (index, request) in requests.enumerated() {
            let deadline = connection.expire(
                after: timeout, because: "no reply to '\(request)' within \(seconds) s (\(address.hostHeader))")
            defer { deadline.cancel() }
            connection.send(Command.dispatch(request).message(id: index + 1))
            while true {
                guard let message = await messages.next() else {
                    throw LinkError(connection.expired ?? "the session closed the connection")
                }
                let value = try? JSONValue.parse(message)
                if value?["type"]?.string == "reply", value?["id"]?.integer == index + 1 {
                    replies.append(message)
                    break
                }
            }
        }
        return replies
    }
}

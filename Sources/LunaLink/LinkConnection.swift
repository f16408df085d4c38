import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import RouteCore

/// Where a link connects: the URL `luna serve` prints (`http://127.0.0.1:PORT/?token=…`) or the
/// device endpoint itself (`ws://HOST:PORT/device?token=…`).
package struct LinkAddress: Equatable, Sendable {
    package var host: String
    package var port: Int
    package var token: String

    package init(_ url: String) throws(LinkError) {
        var rest = Substring(url)
        for scheme in ["http://", "ws://"] where rest.hasPrefix(scheme) { rest = rest.dropFirst(scheme.count) }
        guard !rest.hasPrefix("https://"), !rest.hasPrefix("wss://"), !rest.contains("://") else {
            throw LinkError(
                "the link speaks plain HTTP on a local network: \(url) (use the http:// URL luna serve prints)")
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        let query = rest.drop { $0 != "?" }.dropFirst()
        var host: Substring
        var portText: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw LinkError("no closing ] in \(url)") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            portText = authority[authority.index(after: close)...].drop { $0 == ":" }
        } else {
            let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            host = parts[0]
            portText = parts.count > 1 ? parts[1] : ""
        }
        guard !host.isEmpty else { throw LinkError("no host in \(url)") }
        guard let port = Int(portText), (1...65535).contains(port) else {
            throw LinkError("no port in \(url) (luna serve prints the whole URL)")
        }
        var token: String?
        for pair in query.split(separator: "&") where pair.hasPrefix("token=") { token = String(pair.dropFirst(6)) }
        guard let token, !token.isEmpty else {
            throw LinkError("no token in \(url) (luna serve prints it in the URL: ?token=…)")
        }
        self.host = String(host)
        self.port = port
        self.token = token
    }

    /// The Host header: the address as the server knows itself.
    package var hostHeader: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// Why a link failed: a bad URL, a refused or lost connection, a message it could not apply.
public struct LinkError: Error, CustomStringConvertible, Sendable, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// One WebSocket connection to the session — `/device`, or `/socket` as a page (`luna go`) —
/// through SwiftNIO's client upgrader: text messages in, in order, as an async stream; text
/// out, masked as a client must.
package final class LinkConnection: Sendable {
    let channel: any Channel
    package let messages: AsyncStream<String>
    /// Why the connection was closed by a deadline (``expire(after:because:)``), if it was.
    private let expiry: Locked<String?>

    private init(channel: any Channel, messages: AsyncStream<String>, expiry: Locked<String?>) {
        self.channel = channel
        self.messages = messages
        self.expiry = expiry
    }

    /// Connects and upgrades to a WebSocket within `timeout` each: a server that does not
    /// accept, or accepts and never answers the upgrade (or answers with a body that never
    /// ends), fails the link after it instead of holding it forever.
    package static func open(
        _ address: LinkAddress, path: String = "/device", group: any EventLoopGroup, maximumMessageBytes: Int,
        timeout: TimeAmount = .seconds(5)
    ) async throws -> LinkConnection {
        let (messages, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .unbounded)
        let upgraded = group.next().makePromise(of: Void.self)
        // Set on the channel's event loop when the upgrade is done, where the deadline below
        // runs too: a deadline that fires after it leaves the connection alone.
        let isUpgraded = Locked(false)
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                let upgrader = NIOWebSocketClientUpgrader(
                    maxFrameSize: maximumMessageBytes,
                    upgradePipelineHandler: { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            let refusal = try channel.pipeline.syncOperations.handler(type: UpgradeRefusal.self)
                            channel.pipeline.syncOperations.removeHandler(refusal, promise: nil)
                            try channel.pipeline.syncOperations.addHandler(
                                FrameReader(continuation: continuation, maximumMessageBytes: maximumMessageBytes))
                            isUpgraded.withLock { $0 = true }
                            upgraded.succeed(())
                        }
                    })
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers(
                        leftOverBytesStrategy: .forwardBytes,
                        withClientUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
                    try channel.pipeline.syncOperations.addHandler(UpgradeRefusal(promise: upgraded))
                }
            }
        let channel: any Channel
        do { channel = try await bootstrap.connect(host: address.host, port: address.port).get() } catch {
            // No channel: the upgrade can never happen (NIO requires every promise completed).
            upgraded.fail(error)
            throw LinkError("cannot connect to \(address.hostHeader): \(error)")
        }
        // No answer to the upgrade in time: the link fails (completing a promise twice is a
        // no-op, so a late answer or the close below changes nothing).
        let seconds = Double(timeout.nanoseconds) / 1e9
        let deadline = channel.eventLoop.scheduleTask(in: timeout) {
            guard !isUpgraded.withLock({ $0 }) else { return }
            upgraded.fail(LinkError("the session did not answer within \(seconds) s (\(address.hostHeader))"))
            channel.close(promise: nil)
        }
        channel.closeFuture.whenComplete { _ in
            continuation.finish()
            upgraded.fail(LinkError("the connection closed before the link was set up"))
        }
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: address.hostHeader)
        headers.add(name: "Content-Length", value: "0")
        let head = HTTPRequestHead(
            version: .http1_1, method: .GET, uri: path + "?token=" + address.token, headers: headers)
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        try await channel.writeAndFlush(HTTPClientRequestPart.end(nil)).get()
        do { try await upgraded.futureResult.get() } catch {
            deadline.cancel()
            channel.close(promise: nil)
            throw error
        }
        deadline.cancel()
        return LinkConnection(channel: channel, messages: messages, expiry: Locked(nil))
    }

    /// Closes the connection after `timeout` unless the returned task is cancelled first;
    /// ``expired`` then says `reason`. A wait on ``messages`` ends (nil) when it fires.
    package func expire(after timeout: TimeAmount, because reason: String) -> Scheduled<Void> {
        let channel = self.channel
        let expiry = self.expiry
        return channel.eventLoop.scheduleTask(in: timeout) {
            expiry.withLock { $0 = reason }
            channel.close(promise: nil)
        }
    }

    /// Why a deadline closed the connection, if one did.
    package var expired: String? { expiry.withLock { $0 } }

    package func send(_ text: String) {
        let channel = self.channel
        channel.eventLoop.execute {
            var buffer = channel.allocator.buffer(capacity: text.utf8.count)
            buffer.writeString(text)
            channel.writeAndFlush(
                WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: buffer), promise: nil)
        }
    }

    package func close() { channel.close(promise: nil) }
}

/// Before the upgrade: a refusal (the server answered with an HTTP status instead of
/// switching protocols) fails the link with that status and its reason.
private final class UpgradeRefusal: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    private let promise: EventLoopPromise<Void>
    private var status: HTTPResponseStatus?
    private var body = ""

    init(promise: EventLoopPromise<Void>) { self.promise = promise }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): status = head.status
        case .body(var bytes):
            // Only the start of the reason is kept: a body that never ends takes no memory.
            let room = max(0, 512 - body.utf8.count)
            body += bytes.readString(length: min(bytes.readableBytes, room)) ?? ""
        case .end:
            let reason = body.trimmingSuffix()
            promise.fail(
                LinkError("the session refused the link: \(status?.code ?? 0)" + (reason.isEmpty ? "" : " (\(reason))"))
            )
            context.close(promise: nil)
        }
    }
}

/// After the upgrade: whole text messages (fragments joined, at most the configured size),
/// pongs to the server's pings, and the close handshake.
private final class FrameReader: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame
    private let continuation: AsyncStream<String>.Continuation
    private let maximumMessageBytes: Int
    private var pending: [UInt8] = []

    init(continuation: AsyncStream<String>.Continuation, maximumMessageBytes: Int) {
        self.continuation = continuation
        self.maximumMessageBytes = maximumMessageBytes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .continuation:
            if frame.opcode == .text { pending = [] }
            var data = frame.data
            pending += data.readBytes(length: data.readableBytes) ?? []
            guard pending.count <= maximumMessageBytes else {
                // A session sending more than the app accepts: the link is dropped (and retried).
                context.close(promise: nil)
                return
            }
            guard frame.fin else { return }
            let text = String(decoding: pending, as: UTF8.self)
            pending = []
            continuation.yield(text)
        case .ping:
            var data = frame.data
            let pong = WebSocketFrame(
                fin: true, opcode: .pong, maskKey: .random(), data: data.readSlice(length: data.readableBytes) ?? data)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            let close = WebSocketFrame(
                fin: true, opcode: .connectionClose, maskKey: .random(),
                data: context.channel.allocator.buffer(capacity: 0))
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(close)).whenComplete { _ in channel.close(promise: nil) }
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }
}

extension String {
    fileprivate func trimmingSuffix() -> String {
        var text = Substring(self)
        while let last = text.last, last == "\n" || last == "\r" || last == " " { text = text.dropLast() }
        return String(text)
    }
}

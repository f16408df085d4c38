import NIOCore
import NIOHTTP1

/// Plain HTTP: the page (with the token), its two static files, and `/api/snapshot` (with
/// the token) for tools. GET only; every response is `no-store` with a strict content
/// security policy, and a refused request says why.
final class HTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let inspector: Inspector
    private var head: HTTPRequestHead?
    /// Closes a connection that has not sent a whole request head in time (a half-open
    /// connection would otherwise hold a file descriptor for good).
    private var headerTimer: Scheduled<Void>?

    init(inspector: Inspector) { self.inspector = inspector }

    func handlerAdded(context: ChannelHandlerContext) { armHeaderTimer(context) }

    func handlerRemoved(context: ChannelHandlerContext) {
        headerTimer?.cancel()
        headerTimer = nil
    }

    private func armHeaderTimer(_ context: ChannelHandlerContext) {
        headerTimer?.cancel()
        let channel = context.channel
        headerTimer = context.eventLoop.scheduleTask(in: inspector.configuration.headerTimeout) {
            channel.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            headerTimer?.cancel()
            headerTimer = nil
            self.head = head
        case .body: break  // bodies are not read (GET only); the decoder bounds their size
        case .end:
            guard let head else { return }
            self.head = nil
            respond(to: head, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = String(head.uri.prefix { $0 != "?" })
        guard head.method == .GET || head.method == .HEAD else {
            return send(.methodNotAllowed, "text/plain", Array("only GET\n".utf8), head, context)
        }
        let needsToken =
            path == "/" || path == "/index.html" || path.hasPrefix("/api/") || path == "/socket"
            || path == "/device"
        if let refusal = inspector.permits(head, needsToken: needsToken) {
            return send(refusal.status, "text/plain", Array((refusal.reason + "\n").utf8), head, context)
        }
        if path == "/socket" || path == "/device" {
            // An allowed request that did not ask to upgrade.
            return send(.badRequest, "text/plain", Array("the socket speaks WebSocket only\n".utf8), head, context)
        }
        if path == "/api/snapshot" {
            // Never waits on the session: the last snapshot (marked busy) while it works.
            guard let json = inspector.snapshotWithoutWaiting() else {
                return send(.serviceUnavailable, "text/plain", Array("busy: try again\n".utf8), head, context)
            }
            return send(.ok, "application/json", Array(json.utf8), head, context)
        }
        guard let file = Assets.file(path) else {
            return send(.notFound, "text/plain", Array("not found\n".utf8), head, context)
        }
        send(.ok, file.type, file.bytes, head, context)
    }

    private func send(
        _ status: HTTPResponseStatus, _ type: String, _ body: [UInt8], _ request: HTTPRequestHead,
        _ context: ChannelHandlerContext
    ) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: String(body.count))
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        headers.add(name: "Referrer-Policy", value: "no-referrer")
        headers.add(
            name: "Content-Security-Policy",
            value:
                "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'"
        )
        // After a refusal or an error the connection is closed, whatever the client asked.
        let keepAlive = request.isKeepAlive && status.code < 400
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: status, headers: headers))),
            promise: nil)
        if request.method != .HEAD {
            var buffer = context.channel.allocator.buffer(capacity: body.count)
            buffer.writeBytes(body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if !keepAlive { channel.close(promise: nil) }
        }
        if keepAlive { armHeaderTimer(context) }
    }
}

import Foundation
import LunaLink
import LunaTestSupport
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Testing

/// `luna go` against servers that misbehave: one that never answers, one that answers with a
/// body that never ends, one that upgrades and then says nothing. Each fails within its
/// timeout with what did not come, and memory stays bounded.
/// (No timing is asserted: the message says the deadline fired; the suite's time limit
/// catches a hang.)
@Suite(.serialized, .timeLimit(.minutes(2))) struct GoTimeoutTests {
    /// A listening socket on loopback; `serve` (on a thread of its own) gets each accepted
    /// connection, or nothing is accepted at all.
    final class RawServer: @unchecked Sendable {
        let fd: Int32
        let port: Int
        private let stopped = NSLock()
        private var isStopped = false

        init(serve: (@Sendable (Int32, RawServer) -> Void)?) throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
            }
            listen(fd, 8)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            self.fd = fd
            port = Int(UInt16(bigEndian: address.sin_port))
            if let serve {
                Thread.detachNewThread { [self] in
                    let client = accept(fd, nil, nil)
                    guard client >= 0 else { return }
                    serve(client, self)
                    close(client)
                }
            }
        }

        var stopping: Bool {
            stopped.lock()
            defer { stopped.unlock() }
            return isStopped
        }

        func stop() {
            stopped.lock()
            isStopped = true
            stopped.unlock()
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
        }
    }

    static func address(_ port: Int) throws -> LinkAddress {
        try LinkAddress("http://127.0.0.1:\(port)/?token=t")
    }

    static func failure(_ port: Int, timeout: TimeAmount) async -> (String?, Duration) {
        let start = ContinuousClock.now
        do {
            _ = try await SessionRequests.dispatch(["home"], at: try address(port), timeout: timeout)
            return (nil, ContinuousClock.now - start)
        } catch {
            return ((error as? LinkError)?.message ?? "\(error)", ContinuousClock.now - start)
        }
    }

    @Test func aServerThatNeverAnswersFailsAtTheTimeout() async throws {
        let server = try RawServer(serve: nil)  // accepts nothing: the kernel's backlog connects
        defer { server.stop() }
        let (message, _) = await Self.failure(server.port, timeout: .seconds(2))
        #expect(message?.hasPrefix("the session did not answer within 2.0 s") == true, "\(message ?? "")")
    }

    @Test func anEndlessBodyIsNotKeptAndFailsAtTheTimeout() async throws {
        let sent = ManagedAtomicCounter()
        let server = try RawServer { client, server in
            let head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            _ = head.withCString { write(client, $0, strlen($0)) }
            let chunk = "10000\r\n" + String(repeating: "x", count: 65536) + "\r\n"
            let start = ContinuousClock.now
            while !server.stopping, ContinuousClock.now - start < .seconds(60) {
                let written = chunk.withCString { write(client, $0, strlen($0)) }
                if written <= 0 { break }
                sent.add(written)
            }
        }
        defer { server.stop() }
        let (message, _) = await Self.failure(server.port, timeout: .seconds(2))
        #expect(message?.hasPrefix("the session did not answer within 2.0 s") == true, "\(message ?? "")")
        #expect(sent.value > 1 << 20, "the server sent \(sent.value) bytes")
    }

    @Test func aSessionThatUpgradesAndSaysNothingFailsPerReply() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let upgrader = NIOWebSocketServerUpgrader(
            shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
            upgradePipelineHandler: { channel, _ in channel.eventLoop.makeSucceededVoidFuture() })
        let server = try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline(
                    withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(server.localAddress?.port)
        let (message, _) = await Self.failure(port, timeout: .seconds(2))
        try await server.close().get()
        #expect(message?.hasPrefix("no reply to 'home' within 2.0 s") == true, "\(message ?? "")")
    }
}

/// A counter shared with a server thread.
final class ManagedAtomicCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add(_ amount: Int) {
        lock.lock()
        count += amount
        lock.unlock()
    }
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A plain TCP connection (POSIX sockets), for what an HTTP client library will not send:
/// duplicate headers, half-open requests.
package final class RawConnection {
    package let fd: Int32

    package init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw PageClient.Failure.timeout("connect") }
    }

    package func send(_ text: String) { _ = text.withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) } }

    /// Everything until the server closes, or nil when it has not closed within `timeout`.
    package func readUntilClosed(timeout: Duration = .seconds(5)) -> String? {
        var text: [UInt8] = []
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { return String(decoding: text, as: UTF8.self) }
            text += buffer[0..<count]
        }
        return nil
    }

    deinit { close(fd) }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes all of `text` to a descriptor, retrying short writes and interruptions.
package func writeAll(_ fd: Int32, _ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if written < 0 {
            if errno == EINTR { continue }
            return
        }
        bytes = bytes.dropFirst(written)
    }
}

/// Reads lines from a descriptor without blocking the loop: call ``readAvailable()`` when
/// poll says it is readable.
package final class LineReader {
    let fd: Int32
    private var buffer: [UInt8] = []
    package private(set) var isAtEnd = false

    package init(fd: Int32) { self.fd = fd }

    /// The complete lines read now (a last line without newline comes at end of input).
    package func readAvailable() -> [String] {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 && (errno == EINTR || errno == EAGAIN) { return [] }
        if count <= 0 {
            isAtEnd = true
            defer { buffer = [] }
            return buffer.isEmpty ? [] : [String(decoding: buffer, as: UTF8.self)]
        }
        buffer.append(contentsOf: chunk[0..<count])
        var lines: [String] = []
        while let newline = buffer.firstIndex(of: 10) {
            var line = buffer[..<newline]
            if line.last == 13 { line = line.dropLast() }
            lines.append(String(decoding: line, as: UTF8.self))
            buffer.removeSubrange(...newline)
        }
        return lines
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A running `luna` with its standard input held open, read line by line. Waiting for a
/// line is bounded (so a broken build fails instead of hanging) but asserts nothing about
/// time.
package final class LiveProcess {
    package let process: Process
    private let input = Pipe()
    private let output = Pipe()
    private var buffer: [UInt8] = []

    /// `blocking`: signals blocked in the child from its start, as a parent that blocked them
    /// passes them on (the mask is inherited across exec).
    package init(_ arguments: [String], environment: [String: String] = [:], blocking: [Int32] = []) throws {
        process = lunaProcess(arguments, environment: environment)
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        var blocked = sigset_t()
        var previous = sigset_t()
        sigemptyset(&blocked)
        for signal in blocking { sigaddset(&blocked, signal) }
        // Blocked on this thread only while it spawns the child.
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        try process.run()
    }

    /// Waits up to 20 s for the process to end; whether it did.
    package func ended() -> Bool {
        let limit = ContinuousClock.now + .seconds(20)
        while process.isRunning && ContinuousClock.now < limit { usleep(20_000) }
        return !process.isRunning
    }

    package func send(_ text: String) { input.fileHandleForWriting.write(Data(text.utf8)) }

    /// Lines until one satisfies `done` (inclusive), or nil if the process ended or 20 s passed.
    package func lines(until done: (String) -> Bool) -> [String]? {
        var collected: [String] = []
        let fd = output.fileHandleForReading.fileDescriptor
        let limit = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < limit {
            while let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                collected.append(line)
                if done(line) { return collected }
            }
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 1, 200) >= 0 else { return nil }
            if fds[0].revents != 0 {
                var chunk = [UInt8](repeating: 0, count: 4096)
                let count = read(fd, &chunk, chunk.count)
                if count <= 0 { return nil }
                buffer.append(contentsOf: chunk[0..<count])
            }
        }
        return nil
    }

    package func finish() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

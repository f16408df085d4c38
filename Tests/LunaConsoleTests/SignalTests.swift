import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `luna` stops on the signals that stop a program even when the parent that started it had
/// them blocked (a libdispatch worker thread, an editor, a test runner): the blocked mask is
/// inherited across exec. A `luna serve` started that way outlived `kill` before.
@Suite struct SignalTests {
    @Test(arguments: [SIGTERM, SIGINT, SIGHUP])
    func serveStopsOnASignalItsParentHadBlocked(signal: Int32) throws {
        let serve = try LiveProcess(
            ["serve", example("books.lua"), "--port", "0"], blocking: [SIGTERM, SIGINT, SIGHUP])
        defer { if serve.process.isRunning { kill(serve.process.processIdentifier, SIGKILL) } }
        #expect(serve.lines { $0.hasPrefix("luna inspector: ") } != nil)
        kill(serve.process.processIdentifier, signal)
        #expect(serve.ended(), "luna serve is still running after signal \(signal)")
        #expect(serve.process.terminationReason == .uncaughtSignal)
    }
}

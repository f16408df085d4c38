import Foundation
import LunaTestSupport
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
        let pid = serve.process.processIdentifier
        guard serve.lines(until: { $0.hasPrefix("luna inspector: ") }) != nil else {
            kill(pid, SIGKILL)
            serve.process.waitUntilExit()
            Issue.record("luna serve did not start")
            return
        }
        kill(pid, signal)
        let ended = serve.ended()
        if !ended {
            // Not left running when this fails (reading the termination of a running process traps).
            kill(pid, SIGKILL)
            serve.process.waitUntilExit()
        }
        #expect(ended, "luna serve was still running 20 s after signal \(signal)")
        #expect(serve.process.terminationReason == .uncaughtSignal)
        #expect(serve.process.terminationStatus == signal)
    }
}

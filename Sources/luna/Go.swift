import ArgumentParser
import Dispatch
import LunaLink
import LunaLive
import NIOCore
import RouteCore

/// `luna go URL REQUEST…`: dispatches requests in a running `luna serve` session, as its page
/// does — a deep link tried against the live session from a terminal or a script, with every
/// view (the REPL, the pages, linked apps) following.
struct Go: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Dispatch requests in a running luna serve session (as its page does).",
        discussion: """
            URL is what luna serve printed (http://127.0.0.1:PORT/?token=…). Each request is \
            dispatched in order and its route printed; a request that fails prints the error and \
            luna go exits 1 after the others. Every view of the session follows.
            """)

    @Argument(help: "The session's URL, as luna serve printed it.") var url: String
    @Argument(help: "Paths, URLs or NAME|{json} requests, dispatched in order.") var requests: [String]
    @Flag(help: "Print the replies as JSON, one per line.") var json = false
    @Option(help: "Seconds to wait for the connection, and then for each reply.") var timeout: Double = 10

    func validate() throws {
        guard timeout > 0, timeout <= 3600 else { throw ValidationError("--timeout is seconds, more than 0") }
    }

    func run() throws {
        let address: LinkAddress
        do { address = try LinkAddress(url) } catch {
            writeError("luna: error: \(error.message)")
            throw ExitCode(2)
        }
        let result = Locked<Result<[String], any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let requests = self.requests
        let timeout = TimeAmount.nanoseconds(Int64(self.timeout * 1e9))
        Task.detached {
            let outcome: Result<[String], any Error>
            do {
                outcome = .success(try await SessionRequests.dispatch(requests, at: address, timeout: timeout))
            } catch {
                outcome = .failure(error)
            }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        switch result.withLock({ $0 }) {
        case .success(let replies)?:
            var failed = false
            for (request, reply) in zip(requests, replies) {
                let value = try? JSONValue.parse(reply)
                if json {
                    emit(reply)
                } else if value?["ok"]?.bool == true {
                    emit("\(request) → \(value?["route"]?.string ?? "?")")
                } else {
                    let error = value?["error"]
                    writeError(
                        "luna: \(request): \(error?["kind"]?.string ?? "error"): \(error?["message"]?.string ?? reply)")
                }
                if value?["ok"]?.bool != true { failed = true }
            }
            if failed { throw ExitCode(1) }
        case .failure(let error)?:
            writeError("luna: error: \((error as? LinkError)?.message ?? "\(error)")")
            throw ExitCode(2)
        case nil:
            throw ExitCode(2)
        }
    }
}

import Foundation
import LunaConsole
import LunaInspector
import LunaLive
import LunaTestSupport
import RouteScript
import Testing

/// The REPL and the inspector share one session: the REPL's thread runs commands (Lua
/// included), a page dispatches, explains, reloads and travels, another reads snapshots over
/// HTTP, the watcher reloads on saves and Tab completion reads the route tree, all at once.
/// `scripts/sanitize thread` runs this under ThreadSanitizer.
@Suite struct SharedSessionTests {
    @Test func theREPLAndPagesWorkOnOneSessionAtOnce() throws {
        let served = try ServedScript()
        defer { served.stop() }
        let page = try PageClient.connect(port: served.port, token: served.token)
        defer { page.close() }
        _ = try page.next(containing: #""type":"snapshot""#)

        let rounds = 90
        let repl = Session(live: served.session, json: true, style: .plain)
        let replFailures = Box<[String]>([])
        let pagesDone = Flag()
        let done = DispatchGroup()
        done.enter()
        // The REPL's session object belongs to its thread; this test joins it before using it again.
        nonisolated(unsafe) let replThread = repl
        Thread.detachNewThread {
            let commands = [
                "go books/42", "state", "= luna ~= nil", "explain today/story/news/7", "back", "routes", "undo",
                "history", "tree",
            ]
            var round = 0
            // Until the pages are done, and at least as many rounds as they make.
            while round < rounds || !pagesDone.value {
                defer { round += 1 }
                let command = commands[round % commands.count]
                let result = replThread.execute(command)
                // Undo may have nothing to undo while a page travels; anything else is a bug.
                if result.failed, !command.hasPrefix("undo"), !command.hasPrefix("back") {
                    replFailures.value.append(command + ": " + result.lines.joined())
                }
            }
            done.leave()
        }
        done.enter()
        Thread.detachNewThread {
            // Tab completion, as the line editor calls it on the REPL's thread.
            while !pagesDone.value {
                let tree = served.session.withHost { $0.routeTree }
                _ = Completion.candidates(for: "bo", after: "go ", tree: tree)
            }
            done.leave()
        }
        done.enter()
        Thread.detachNewThread {
            while !pagesDone.value { _ = try? httpGet(port: served.port, path: "/api/snapshot?token=" + served.token) }
            done.leave()
        }
        let original = try String(contentsOfFile: served.script, encoding: .utf8)
        var replies = 0
        for round in 0..<rounds {
            let op =
                switch round % 6 {
                case 0: #"{"id":\#(round),"op":"dispatch","request":"orders/\#(round)"}"#
                case 1: #"{"id":\#(round),"op":"explain","request":"books/\#(round)"}"#
                case 2: #"{"id":\#(round),"op":"open","node":"books/:id","params":{"id":"\#(round)"}}"#
                case 3: #"{"id":\#(round),"op":"travel","index":0}"#
                case 4: #"{"id":\#(round),"op":"reload"}"#
                default: #"{"id":\#(round),"op":"flag","name":"beta","value":"\#(round)"}"#
                }
            try page.send(op)
            let reply = try page.next(containing: #""id":\#(round),"ok""#)
            if reply.contains(#""type":"reply""#) { replies += 1 }
            if round % 20 == 10 { served.save(original + "\n-- save \(round)\n") }
        }
        pagesDone.value = true
        done.wait()
        #expect(replies == rounds)
        #expect(replFailures.value.isEmpty, "\(replFailures.value)")
        // The session is whole: one more dispatch from each side lands, and the history holds
        // every change either side made.
        try served.session.dispatch("books/7")
        #expect(repl.execute("state").lines.first?.contains(#""request":"books/7""#) == true)
        // Four of the page's six ops add an entry each (explain and travel add none).
        #expect(served.session.historyCount >= rounds * 4 / 6)
    }
}

final class Box<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

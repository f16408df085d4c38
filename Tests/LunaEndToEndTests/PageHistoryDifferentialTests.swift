import Foundation
import LunaLive
import LunaTestSupport
import RouteCoreOracle
import RouteScript
import Testing

/// An exported prototype keeps its history in the page (history.mjs: there is no session), so
/// its rules are written twice — here in Swift (`LiveSession`) and there in JavaScript. They are
/// kept the same by running one random walk of new entries, undos, redos and travels through
/// both (the page's module under Node) and comparing the entry shown after every step.
/// Node.js, where scripts/bootstrap installs it.
private let node: String? = ["/usr/bin/node", "/usr/local/bin/node", "/opt/homebrew/bin/node"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

@Suite(.enabled(if: node != nil, "needs node (scripts/bootstrap installs it)"))
struct PageHistoryDifferentialTests {
    enum Step: Equatable {
        case new, undo, redo, travel(Int)
        var json: String {
            switch self {
            case .new: #"{"op":"new"}"#
            case .undo: #"{"op":"undo"}"#
            case .redo: #"{"op":"redo"}"#
            case .travel(let index): #"{"op":"travel","index":\#(index)}"#
            }
        }
    }

    @Test(arguments: 1...6) func theSessionAndThePageAgree(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        var steps: [Step] = [.new]
        var entries = 1
        for _ in 0..<120 {
            switch random.next() % 6 {
            case 0, 1:
                steps.append(.new)
                entries += 1
            case 2: steps.append(.undo)
            case 3: steps.append(.redo)
            default: steps.append(.travel(Int(random.next() % UInt64(entries + 1))))  // one past the end too
            }
        }
        // The session: each new entry a dispatch of its own request; a refused step changes nothing.
        let session = LiveSession(host: try RouteScriptHost(contentsOf: example("books.lua")))
        var shown: [Int?] = []
        var made = 0
        for step in steps {
            switch step {
            case .new:
                made += 1
                _ = try session.dispatch("books/\(made)")
            case .undo: _ = try? session.undo()
            case .redo: _ = try? session.redo()
            case .travel(let index): _ = try? session.travel(to: index)
            }
            shown.append(session.currentEntry)
        }
        // The page: the same steps through history.mjs.
        let folder = ScriptFolder()
        let module = repositoryRoot + "/Sources/LunaInspector/Page/history.mjs"
        let runner = folder.write(
            "walk.mjs",
            """
            import { recordEntry, startHistory, travel } from \(String(reflecting: module));
            const steps = \("[" + steps.map(\.json).joined(separator: ",") + "]");
            let history = null;
            const shown = [];
            for (const step of steps) {
              if (step.op === "new") history = history ? recordEntry(history, { state: 0 }) : startHistory({ state: 0 });
              else if (history) { const moved = travel(history, step.op, step.index); if (!moved.error) history = moved.history; }
              shown.push(history ? history.position : null);
            }
            console.log(JSON.stringify(shown));
            """)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(node))
        process.arguments = [runner]
        let result = try run(process)
        #expect(result.status == 0, "\(result.stderr)")
        let page = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [Any] ?? []
        let pageShown = page.map { $0 as? Int }
        #expect(pageShown.count == shown.count)
        for (index, (session, page)) in zip(shown, pageShown).enumerated() where session != page {
            Issue.record(
                "after step \(index) (\(steps[index])): the session shows \(session.map(String.init) ?? "nothing"), the page \(page.map(String.init) ?? "nothing")"
            )
            break
        }
    }
}

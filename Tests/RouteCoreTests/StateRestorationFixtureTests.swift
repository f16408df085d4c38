import Foundation
import Testing

@testable import RouteCore

/// Restoration strings saved by earlier versions keep restoring: every line of
/// Tests/Contracts/restoration-v1.txt (strings as Luna 0.1.0 wrote them, and as this version
/// writes them) restores on a fresh router to the state its journey's requests show.
@Suite struct StateRestorationFixtureTests {
    struct Saved: CustomTestStringConvertible, Sendable {
        let writer: String
        let requests: [String]
        let string: String
        var testDescription: String { "\(writer): \(requests.joined(separator: " ; "))" }
    }

    static let saved = read("restoration-v1.txt")
    /// Format 2's strings: journeys with pushed screens (`push REQUEST`, `back`).
    static let savedV2 = read("restoration-v2.txt")

    static func read(_ file: String) -> [Saved] {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Contracts/" + file).standardized.path
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            let fields = line.split(separator: "\t", maxSplits: 2).map(String.init)
            guard fields.count == 3 else { return nil }
            return Saved(writer: fields[0], requests: fields[1].components(separatedBy: " ; "), string: fields[2])
        }
    }

    @Test func everyWriterAndJourneyIsThere() {
        #expect(Self.saved.count == 2 * StateRestorationTests.journeys.count)
        #expect(Set(Self.saved.map(\.writer)) == ["0.1.0", "unreleased"])
    }

    @Test(arguments: saved)
    func aSavedStringRestoresToWhatItsRequestsShow(saved: Saved) throws {
        let expected = Router(tree: try MonarchExample.tree(), presenter: HeadlessPresenter())
        for request in saved.requests { try expected.dispatch(request) }
        let fresh = Router(tree: try MonarchExample.tree(), presenter: HeadlessPresenter())
        let warning = try fresh.restore(restoring: saved.string)
        #expect(warning == nil)
        #expect(fresh.state.presented == expected.state.presented)
        #expect(fresh.state.request == expected.state.request)
        #expect(fresh.rootPresentable?.rendered() == expected.rootPresentable?.rendered())
    }

    @Test func format2HasItsJourneys() {
        #expect(Self.savedV2.count == 4)
        #expect(Self.savedV2.allSatisfy { $0.string.contains("\"v\":2") })
        #expect(Self.savedV2.contains { $0.string.contains("\"res\":{\"picked\":\"7\"}") })
    }

    @Test(arguments: savedV2)
    func aSavedStringWithPushedScreensRestoresToWhatItsStepsShow(saved: Saved) throws {
        let expected = Router(tree: try MonarchExample.tree(), presenter: HeadlessPresenter())
        for step in saved.requests {
            if step.hasPrefix("push ") {
                try expected.push(String(step.dropFirst(5)))
            } else if step == "back" {
                try expected.back()
            } else if step.hasPrefix("back ") {
                // `back KEY=VALUE`: a result (strings).
                var result: [String: AttributeValue] = [:]
                for pair in step.dropFirst(5).split(separator: " ") {
                    let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                    if parts.count == 2 { result[parts[0]] = .string(parts[1]) }
                }
                try expected.back(result: result)
            } else {
                try expected.dispatch(step)
            }
        }
        let fresh = Router(tree: try MonarchExample.tree(), presenter: HeadlessPresenter())
        let warning = try fresh.restore(restoring: saved.string)
        #expect(warning == nil)
        #expect(fresh.state == expected.state)
        #expect(fresh.rootPresentable?.rendered() == expected.rootPresentable?.rendered())
    }
}

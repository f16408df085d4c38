import LunaLive
import RouteCore
import RouteScript

/// `NAME.verify` beside `NAME.lua`: `luna test` runs `luna verify` on the script
/// (docs/verify.md), each finding a failed case with its counterexample, so CI fails on a new
/// one. The file holds comments (`#`) and, optionally, `limit N` (the states explored).
enum VerifyFile {
    static func run(_ file: String, runner: TestRunner) -> TestRunner.FileResult {
        let text: String
        do { text = try runner.readText(file) } catch {
            return TestRunner.FileResult(file: file, loadError: "\(error)", cases: [])
        }
        var limit = 5_000
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            if words.isEmpty { continue }
            guard words.count == 2, words[0] == "limit", let value = Int(words[1]), value > 0 else {
                return TestRunner.FileResult(
                    file: file, loadError: "\(file):\(number + 1): a .verify file says `limit N` (and # comments)",
                    cases: [])
            }
            limit = value
        }
        let folder = file.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let base = String(file.split(separator: "/").last ?? Substring(file)).dropLast(".verify".count)
        let script = (folder.isEmpty ? "" : folder + "/") + base + ".lua"
        let clock = ContinuousClock()
        let start = clock.now
        let verification: Verification
        do {
            let host = try RouteScriptHost(
                contentsOf: script, options: Verification.options(runner.options.scriptOptions))
            verification = try Verification.run(host, limit: limit)
        } catch {
            return TestRunner.FileResult(file: file, loadError: Failure(error).message, cases: [])
        }
        let milliseconds = LiveSession.milliseconds(clock.now - start)
        var cases: [TestRunner.CaseResult] = []
        if verification.findings.isEmpty {
            cases.append(
                TestRunner.CaseResult(
                    name: "verify \(script): \(verification.states) states, no finding", line: "\(file):1",
                    status: verification.bounded ? .failed : .passed,
                    message: verification.bounded
                        ? "the bound (limit \(limit)) cut the walk short: raise it in \(file)" : nil,
                    milliseconds: milliseconds))
        }
        for finding in verification.findings {
            var message = finding.message
            if let steps = finding.steps, !steps.isEmpty {
                message += "\n  counterexample: " + steps.map(CommandSpec.line).joined(separator: " ; ")
            }
            cases.append(
                TestRunner.CaseResult(
                    name: "verify \(finding.check.rawValue) \(finding.node ?? "")", line: "\(file):1",
                    status: .failed, message: message,
                    location: finding.location.map { ScriptPaths.relocate($0, script: script).description },
                    milliseconds: milliseconds))
        }
        return TestRunner.FileResult(file: file, loadError: nil, cases: cases)
    }
}

import LunaLive
import RouteCore
import RouteScript

/// A link corpus (`*.links`): one link per line and the route it must open, checked by
/// `luna test` like a test file — each line a case — with the script's linkable routes no
/// line reaches reported after.
///
/// ```text
/// # shop.links — links the shop app must open (script: shop.lua beside this file)
/// https://shop.example/product/42?ref=mail   product/:id
/// myshop://account/orders/7                  account/orders/:id
/// https://shop.example/checkout              -
/// https://evil.example/product/42            -
/// ```
///
/// The expected column is the route the link opens, as `luna routes` shows it (`/` for the
/// root), or `-` when the link must not open the app: a host or scheme the script does not
/// declare, no match, a guard that refuses it, or a route with `link = false`. Each link is
/// dispatched on a fresh start of the script (an app launched by the link). `script: PATH`
/// names the script (relative to the file); without it, the file's name with `.lua`.
enum LinkCorpus {
    static func run(_ file: String, runner: TestRunner) -> TestRunner.FileResult {
        let text: String
        do { text = try runner.readText(file) } catch {
            return TestRunner.FileResult(file: file, loadError: "\(error)", cases: [])
        }
        let folder = file.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        func beside(_ name: String) -> String { folder.isEmpty || name.hasPrefix("/") ? name : folder + "/" + name }
        let base = String(file.split(separator: "/").last ?? Substring(file)).dropLast(".links".count)
        var script = beside(base + ".lua")
        var lines: [(number: Int, link: String, expected: String)] = []
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: " \t\r")
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            if line.hasPrefix("script:") {
                script = beside(String(line.dropFirst("script:".count)).trimmingCharacters(in: " \t"))
                continue
            }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard fields.count == 2 else {
                return TestRunner.FileResult(
                    file: file,
                    loadError:
                        "\(file):\(offset + 1): a line is a link and the route it opens, or - (got \(fields.count) fields)",
                    cases: [])
            }
            lines.append((offset + 1, fields[0], fields[1]))
        }
        let host: RouteScriptHost
        do { host = try RouteScriptHost(contentsOf: script, options: runner.options.scriptOptions) } catch {
            return TestRunner.FileResult(file: file, loadError: Failure(error).message, cases: [])
        }
        guard let tree = host.routeTree else {
            return TestRunner.FileResult(file: file, loadError: "\(script): no tree", cases: [])
        }
        var reached: Set<Int> = []
        var cases: [TestRunner.CaseResult] = []
        let clock = ContinuousClock()
        for (number, link, expected) in lines {
            if let filter = runner.options.filter, !link.contains(filter) { continue }
            let start = clock.now
            var result = TestRunner.CaseResult(
                name: "link \(link)", line: "\(file):\(number)", status: .passed, milliseconds: 0)
            let opened: String
            do {
                _ = try host.restore(.initial)
                let outcome = try host.dispatch(link)
                let route = outcome.resolution.route
                if tree[route].linkable {
                    opened = outcome.route
                    reached.insert(route.index)
                } else {
                    opened = "- (\(outcome.route) has link = false)"
                }
            } catch {
                let failure = Failure(error)
                opened = "- (\(failure.kind): \(failure.message))"
            }
            let opens = !opened.hasPrefix("-")
            let matches = expected == "-" ? !opens : opened == expected
            if !matches {
                result.status = .failed
                result.location = "\(file):\(number)"
                result.message =
                    "\(link): expected " + (expected == "-" ? "not to open the app" : expected) + ", got "
                    + (opens ? opened : "not opened " + opened.dropFirst(2))
            }
            result.milliseconds = LiveSession.milliseconds(clock.now - start)
            cases.append(result)
        }
        var notes: [String] = []
        let linkable = tree.endpoints.indices.filter { tree.endpoints[$0].linkable }
        let missed = linkable.filter { !reached.contains($0) }.map {
            tree.nodes[tree.endpoints[$0].node].routeText ?? ""
        }
        notes.append(
            "links reach \(linkable.count - missed.count) of \(linkable.count) linkable routes"
                + (missed.isEmpty ? "" : "; no line opens " + missed.joined(separator: ", ")))
        return TestRunner.FileResult(file: file, loadError: nil, cases: cases, notes: notes)
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var text = Substring(self)
        while let first = text.first, set.contains(first) { text = text.dropFirst() }
        while let last = text.last, set.contains(last) { text = text.dropLast() }
        return String(text)
    }
}

import LunaLive
import RouteCore
import RouteScript

/// A link corpus (`*.links`): one link per line and the route it must open, checked by
/// `luna test` like a test file — each line a case — with the script's linkable routes no
/// line reaches reported after.
///
/// ```text
/// # shop.links — links the shop app must open (script: shop.lua beside this file)
/// flags: signedIn=yes
/// https://shop.example/product/42?ref=mail   product/:id   id=42 ref=mail
/// myshop://account/orders/7                  account/orders/:id
/// https://shop.example/checkout              -
/// https://evil.example/product/42            -
/// ```
///
/// The expected column is the route the link itself matches, as `luna routes` shows it (`/`
/// for the root) — the route iOS opens the app for and `link = false` is judged on — or `-`
/// when the link is refused: a host or scheme the script does not declare, no match, a
/// route with `link = false`, or a guard that refuses it with no fallback. A guard's
/// fallback does not change the line's route; the case prints it (`account/orders/:id →
/// signin (fallback of junction 'shop' at shop.lua:17)`). Each link is dispatched on a
/// fresh start of the script (an app launched by the link), with the flags of the corpus's
/// `flags: NAME=VALUE …` line on top of `luna test --flag`. `script: PATH` names the script
/// (relative to the file); without it, the file's name with `.lua`. `KEY=VALUE` fields after the
/// route state values the screen shown must have: a path parameter, or a query item as the
/// request gives it (a query schema's defaults filled in: `page=1`).
enum LinkCorpus {
    struct Line {
        var number: Int
        var link: String
        var expected: String
        /// Values the screen shown must have (its parameters, then its query), by name.
        var values: [(name: String, value: String)] = []
    }

    /// A corpus that cannot be read: its message names the file and line.
    struct Malformed: Error {
        var message: String
    }

    /// The corpus's lines, `script:` and `flags:`; or the load error.
    static func parse(
        _ text: String, file: String
    ) -> Result<(lines: [Line], script: String?, flags: [(String, String)]), Malformed> {
        var lines: [Line] = []
        var script: String?
        var flags: [(String, String)] = []
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: " \t\r")
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            if line.hasPrefix("script:") {
                script = String(line.dropFirst("script:".count)).trimmingCharacters(in: " \t")
                continue
            }
            if line.hasPrefix("flags:") {
                for pair in line.dropFirst("flags:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }) {
                    let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    guard parts.count == 2, !parts[0].isEmpty else {
                        return .failure(
                            Malformed(message: "\(file):\(offset + 1): flags: takes NAME=VALUE pairs (got '\(pair)')"))
                    }
                    flags.append((String(parts[0]), String(parts[1])))
                }
                continue
            }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard fields.count >= 2 else {
                return .failure(
                    Malformed(
                        message:
                            "\(file):\(offset + 1): a line is a link and the route it opens, or - (got \(fields.count) fields)"
                    ))
            }
            var values: [(String, String)] = []
            for field in fields.dropFirst(2) {
                let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, !parts[0].isEmpty, fields[1] != "-" else {
                    let why =
                        fields[1] == "-" ? "a refused link has no values" : "values are KEY=VALUE (got '\(field)')"
                    return .failure(Malformed(message: "\(file):\(offset + 1): \(why)"))
                }
                values.append((String(parts[0]), String(parts[1])))
            }
            lines.append(Line(number: offset + 1, link: fields[0], expected: fields[1], values: values))
        }
        return .success((lines, script, flags))
    }

    static func run(_ file: String, runner: TestRunner) -> TestRunner.FileResult {
        let text: String
        do { text = try runner.readText(file) } catch {
            return TestRunner.FileResult(file: file, loadError: "\(error)", cases: [])
        }
        let folder = file.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        func beside(_ name: String) -> String { folder.isEmpty || name.hasPrefix("/") ? name : folder + "/" + name }
        let base = String(file.split(separator: "/").last ?? Substring(file)).dropLast(".links".count)
        let parsed: (lines: [Line], script: String?, flags: [(String, String)])
        switch parse(text, file: file) {
        case .success(let value): parsed = value
        case .failure(let error): return TestRunner.FileResult(file: file, loadError: error.message, cases: [])
        }
        let script = beside(parsed.script ?? base + ".lua")
        var options = runner.options.scriptOptions
        for (name, value) in parsed.flags { options.flags[name] = value }
        let host: RouteScriptHost
        do { host = try RouteScriptHost(contentsOf: script, options: options) } catch {
            return TestRunner.FileResult(file: file, loadError: Failure(error).message, cases: [])
        }
        guard let tree = host.routeTree else {
            return TestRunner.FileResult(file: file, loadError: "\(script): no tree", cases: [])
        }
        var reached: Set<Int> = []
        var cases: [TestRunner.CaseResult] = []
        let clock = ContinuousClock()
        for line in parsed.lines {
            if let filter = runner.options.filter, !line.link.contains(filter) { continue }
            let start = clock.now
            var result = TestRunner.CaseResult(
                name: "link \(line.link)", line: "\(file):\(line.number)", status: .passed, milliseconds: 0)
            // The route the line is judged on (nil: refused), and what the app then shows.
            var matched: String?
            var opened: String
            var wrongValues: [String] = []
            do {
                _ = try host.restore(.initial)
                let outcome = try host.dispatch(line.link)
                let route = try tree.routeMatched(by: line.link) ?? outcome.resolution.route
                let shown = Lint.show(tree[route].definition.displayText)
                matched = shown
                reached.insert(route.index)
                opened = shown
                if route != outcome.resolution.route {
                    opened += " → \(outcome.route) (\(detour(of: route, to: outcome.resolution, in: tree)))"
                }
                let params = outcome.resolution.params
                let query = outcome.resolution.request.query
                for (name, value) in line.values {
                    let got = params[name] ?? query[name]
                    if got != value { wrongValues.append("\(name)=\(value) (got \(got.map { "'\($0)'" } ?? "none"))") }
                }
            } catch {
                let failure = Failure(error)
                opened = "not opened (\(failure.kind): \(failure.locatedMessage))"
            }
            let matches = line.expected == "-" ? matched == nil : matched == line.expected
            if matches, !wrongValues.isEmpty {
                result.status = .failed
                result.location = "\(file):\(line.number)"
                result.message = "\(line.link): expected " + wrongValues.joined(separator: ", ")
            } else if !matches {
                result.status = .failed
                result.location = "\(file):\(line.number)"
                result.message =
                    "\(line.link): expected " + (line.expected == "-" ? "not to open the app" : line.expected)
                    + ", got " + opened
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

    /// Why a link that matched `route` shows another: the fallback of the guard that refused
    /// it, or a redirect, named with its node and place (`fallback of junction 'shop' at
    /// shop.lua:17`).
    static func detour(of route: RouteID, to resolution: Resolution, in tree: RouteTree) -> String {
        let firstHop = resolution.redirects.count > 1 ? resolution.redirects[1] : resolution.request.original
        let guards = tree.endpoints[route.index].guards
        let sender = guards.first { $0.fallback == firstHop } ?? guards.first { $0.redirect != nil }
        guard let sender else { return "redirected" }
        let node = tree.nodes[sender.node]
        let what = sender.fallback == firstHop ? "fallback" : "redirect"
        return "\(what) of \(node.kind.rawValue) '\(node.id)'" + (node.location.map { " at \($0)" } ?? "")
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

/// The order of the `apple-app-site-association` components, and the exclusions that make
/// Apple's matching agree with the router.
///
/// Apple takes the first component whose pattern matches the link's path, and its patterns
/// know only `*` (any characters, `/` included) and `?` (one character). A route's parameter is
/// written `?*`, which also takes several segments: `/accounts/?*` takes `/accounts/7/dispute`.
/// So rank order alone is not enough — an exclusion nested under an included route would come
/// after it and never be reached. The components are ordered from what each must decide:
/// every route's own paths (its parameters filled with values the router gives it) and the
/// paths where a parameter spans two segments are probes; the first component that matches a
/// probe must decide it as the router does (the link opens the app exactly when the route the
/// router picks has no `link = false`). Where a route's pattern takes a deeper path the router
/// decides otherwise, a component for that depth (`/accounts/?*/?*`, excluded) is added. The
/// order is then built from the front, keeping the router's rank order wherever that decides
/// every probe right.
extension RouteTree {
    /// A component before ordering: its pattern, the route it stands for, and whether it is
    /// one of the route's own patterns or an exclusion of deeper paths.
    struct AppLinkCandidate {
        var component: AppLinkComponent
        var route: Int
        /// The first constant bytes of the pattern up to a wildcard (`/accounts/`): only
        /// paths starting with them can match.
        var prefix: [UInt8]
        /// The pattern's bytes.
        var glob: [UInt8]
    }

    /// A path whose decision is known: whether a link to it opens the app, by the router.
    struct AppLinkProbe {
        var path: String
        var opens: Bool
        /// The route the router gives the path (nil: none).
        var route: Int?
    }

    /// Whether Apple's pattern `glob` matches `path`: `*` any run of characters (`/`
    /// included), `?` one character, anything else itself (compared as bytes; the paths
    /// are ASCII or percent-encoded). Linear for one `*`, O(n·m) at worst.
    package static func appLinkPatternMatches(_ glob: some Collection<UInt8>, _ path: some Collection<UInt8>) -> Bool {
        let pattern = Array(glob)
        let text = Array(path)
        return appLinkPatternMatches(pattern, text)
    }

    static func appLinkPatternMatches(_ pattern: [UInt8], _ text: [UInt8]) -> Bool {
        var p = 0
        var t = 0
        var star = -1
        var resume = 0
        while t < text.count {
            if p < pattern.count,
                pattern[p] == UInt8(ascii: "?") || (pattern[p] != UInt8(ascii: "*") && pattern[p] == text[t])
            {
                p += 1
                t += 1
            } else if p < pattern.count, pattern[p] == UInt8(ascii: "*") {
                star = p
                resume = t
                p += 1
            } else if star >= 0 {
                p = star + 1
                resume += 1
                t = resume
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == UInt8(ascii: "*") { p += 1 }
        return p == pattern.count
    }

    /// Whether a link to `path` opens the app, by the router: the route its path matches
    /// (before any guard) may be opened by a link.
    func appLinkDecision(_ path: String) -> (opens: Bool, route: Int?) {
        guard let route = (try? routeMatched(by: path)) ?? nil else { return (false, nil) }
        return (endpoints[route.index].linkable, route.index)
    }

    /// Apple's pattern for `segments`: a parameter is `?*`, a catch-all adds nothing (the
    /// caller writes it).
    static func appLinkPattern(_ segments: [Pattern.Segment]) -> String {
        var path = ""
        for segment in segments {
            switch segment {
            case .constant(let text): path += "/" + escapedForAppLinks(text)
            case .parameter, .wildcard: path += "/?*"
            case .catchAll, .optional, .oneOrMore: break
            }
        }
        return path
    }

    /// The path `segments` give with a parameter's value from `values` (by position), and a
    /// catch-all's `remainder`.
    static func appLinkPath(_ segments: [Pattern.Segment], values: [String], remainder: String? = nil) -> String {
        var parts: [String] = []
        for (position, segment) in segments.enumerated() {
            switch segment {
            case .constant(let text): parts.append(text)
            case .parameter, .wildcard: parts.append(values[position])
            case .catchAll, .optional, .oneOrMore: if let remainder, !remainder.isEmpty { parts.append(remainder) }
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// The paths the router gives `pattern`'s route (each parameter takes the first of a few
    /// values with which it does), and the values chosen, by position.
    func appLinkProbePaths(_ pattern: Pattern, route: Int) -> (own: [String], values: [String]) {
        let candidates = ["7", "x", "a1", "0", "A", "-"]
        var values = pattern.segments.map { $0.isParameterLike ? candidates[0] : "" }
        for (position, segment) in pattern.segments.enumerated() where segment.isParameterLike {
            for value in candidates {
                var fill = values
                fill[position] = value
                if appLinkDecision(Self.appLinkPath(pattern.segments, values: fill, remainder: "a")).route == route
                    || appLinkDecision(Self.appLinkPath(pattern.segments, values: fill)).route == route
                {
                    values = fill
                    break
                }
            }
        }
        var own: [String] = []
        for remainder in pattern.endsInCatchAll ? ["", "a", "a/b"] : [""] {
            let path = Self.appLinkPath(pattern.segments, values: values, remainder: remainder)
            if appLinkDecision(path).route == route { own.append(path) }
        }
        return (own, values)
    }

    /// Orders `candidates` (in rank order) so that every probe is decided by the first
    /// candidate that matches it as the router decides it, keeping rank order where that
    /// allows: the order is built from the front, each step placing the earliest candidate
    /// that decides no probe still undecided the wrong way (placing it decides every
    /// undecided probe it matches). When none is left, the candidate with the fewest such
    /// probes goes next, and those probes come back as wrong.
    ///
    /// - Complexity: O((n + m) log n + k) for n candidates, m probes and k matching pairs,
    ///   after the matching, which checks a probe only against the candidates whose constant
    ///   prefix it starts with (one lookup per prefix of the path).
    static func orderedAppLinks(
        _ candidates: [AppLinkCandidate], probes: [AppLinkProbe]
    ) -> (order: [Int], wrong: [AppLinkProbe]) {
        // Candidates by their constant prefix (the bytes before the first wildcard): a path is
        // checked only against those whose prefix it starts with, found by looking up each of
        // its own prefixes.
        var byPrefix: [[UInt8]: [Int]] = [:]
        for (index, candidate) in candidates.enumerated() { byPrefix[candidate.prefix, default: []].append(index) }
        // For each candidate, the probes it matches, and how many of those it would decide
        // wrongly that are still undecided.
        var matches = [[Int]](repeating: [], count: candidates.count)
        var wrongFor = [[Int]](repeating: [], count: probes.count)
        var blocking = [Int](repeating: 0, count: candidates.count)
        for (number, probe) in probes.enumerated() {
            let bytes = Array(probe.path.utf8)
            var possible: [Int] = []
            for length in 0...bytes.count {
                if let found = byPrefix[Array(bytes[..<length])] { possible += found }
            }
            for index in possible.sorted() {
                let candidate = candidates[index]
                // A component that needs query items matches no probe (probes have none).
                guard candidate.component.query.isEmpty, appLinkPatternMatches(candidate.glob, bytes) else {
                    continue
                }
                matches[index].append(number)
                if candidate.component.exclude == probe.opens {
                    wrongFor[number].append(index)
                    blocking[index] += 1
                }
            }
        }
        var decided = [Bool](repeating: false, count: probes.count)
        var placed = [Bool](repeating: false, count: candidates.count)
        var order: [Int] = []
        var wrong: [AppLinkProbe] = []
        var ready = MinHeap(candidates.indices.filter { blocking[$0] == 0 })
        while order.count < candidates.count {
            var next = ready.pop()
            if let found = next, placed[found] { continue }
            if next == nil {
                // No candidate is safe: the one that decides the fewest paths wrongly.
                next = candidates.indices.filter { !placed[$0] }.min { blocking[$0] < blocking[$1] }
            }
            guard let index = next else { break }
            placed[index] = true
            order.append(index)
            for number in matches[index] where !decided[number] {
                decided[number] = true
                if candidates[index].component.exclude == probes[number].opens { wrong.append(probes[number]) }
                for other in wrongFor[number] where !placed[other] {
                    blocking[other] -= 1
                    if blocking[other] == 0 { ready.push(other) }
                }
            }
        }
        // A path no component matches is left to the browser: wrong when the router opens it.
        for (number, probe) in probes.enumerated() where !decided[number] && probe.opens { wrong.append(probe) }
        return (order, wrong)
    }
}

extension Pattern.Segment {
    var isParameterLike: Bool {
        switch self {
        case .parameter, .wildcard: true
        case .constant, .catchAll, .optional, .oneOrMore: false
        }
    }
}

/// A binary min-heap of indexes (the ready candidates, earliest first).
private struct MinHeap {
    private var items: [Int] = []

    init(_ items: [Int]) {
        for item in items { push(item) }
    }

    mutating func push(_ item: Int) {
        items.append(item)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child] < items[parent] else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Int? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        var parent = 0
        while true {
            let left = parent * 2 + 1
            let right = left + 1
            var smallest = parent
            if left < items.count, items[left] < items[smallest] { smallest = left }
            if right < items.count, items[right] < items[smallest] { smallest = right }
            guard smallest != parent else { break }
            items.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }
}

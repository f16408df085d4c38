/// Why each route did or did not match a request: the REPL's `explain` and the message of
/// a `noMatch` error. Computed on demand, never on the matching path.
public struct RouteAttempt: Equatable, Sendable {
    /// How the route fared.
    public enum Outcome: Equatable, Sendable {
        case matched
        /// A constant segment differed.
        case constantMismatch(segment: Int, expected: String, found: String)
        /// A validator rejected a parameter.
        case rejected(segment: Int, parameter: String, value: String, validator: String)
        /// The request ended before the pattern did.
        case tooShort(segment: Int, expected: String)
        /// The request has segments the pattern does not.
        case tooLong(segment: Int, found: String)
        /// A whole-path regex did not match.
        case regexMismatch
        /// The path matched, but a query key its schema declares does not fit and has no
        /// default: the key, its value (nil when missing) and why.
        case queryMismatch(key: String, value: String?, reason: String)
    }

    public var route: RouteID
    public var pattern: String
    /// How many request segments the route accepted before it failed.
    public var matchedSegments: Int
    public var outcome: Outcome

    /// The 0-based request segment where it failed, if any.
    public var failingSegment: Int? {
        switch outcome {
        case .constantMismatch(let s, _, _), .rejected(let s, _, _, _), .tooShort(let s, _), .tooLong(let s, _): s
        case .matched, .regexMismatch, .queryMismatch: nil
        }
    }

    /// Why, in words.
    public var reason: String {
        switch outcome {
        case .matched: "matches"
        case .constantMismatch(let s, let expected, let found) where expected == found:
            // Equal as Swift strings, not as bytes (docs/dsl.md, "Requests"): show the scalars.
            "segment \(s + 1): expected '\(Self.scalars(expected))', got '\(Self.scalars(found))' (the same text in other Unicode scalars; constants match by their bytes)"
        case .constantMismatch(let s, let expected, let found):
            "segment \(s + 1): expected '\(expected)', got '\(found)'"
        case .rejected(let s, let name, let value, let validator):
            "segment \(s + 1): '\(value)' does not pass the validator of '\(name)' ('\(validator)')"
        case .tooShort(let s, let expected): "segment \(s + 1): the request ends where '\(expected)' was expected"
        case .tooLong(let s, let found): "segment \(s + 1): '\(found)' is past the end of the pattern"
        case .regexMismatch: "the regular expression does not match the whole path"
        case .queryMismatch(let key, let value?, let reason): "query '\(key)': '\(value)' \(reason)"
        case .queryMismatch(let key, nil, let reason): "query '\(key)' \(reason)"
        }
    }
}

extension RouteAttempt {
    /// `text` with every non-ASCII scalar written `\u{…}`.
    static func scalars(_ text: String) -> String {
        var shown = ""
        for scalar in text.unicodeScalars {
            if scalar.isASCII {
                shown.unicodeScalars.append(scalar)
            } else {
                shown += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return shown
    }
}

extension RouteTree {
    /// Tries every route on its own against the segments, and a route with a query schema
    /// against `query`'s query too (nil: no query).
    public func attempts(_ segments: [String], query: Request? = nil) -> [RouteAttempt] {
        endpoints.indices.map { index in
            let attempt = attempt(endpoints[index].definition, index: index, segments)
            guard attempt.outcome == .matched, let schema = endpoints[index].definition.querySchema,
                case .misfit(let key, let value, let reason)? = try? schema.verdict(query)
            else { return attempt }
            return RouteAttempt(
                route: attempt.route, pattern: attempt.pattern, matchedSegments: segments.count,
                outcome: .queryMismatch(key: key, value: value, reason: reason))
        }
    }

    private func attempt(_ route: RouteDefinition, index: Int, _ segments: [String]) -> RouteAttempt {
        let text = route.displayText
        guard let pattern = route.pattern else {
            // The regex on its own: whether it matches, not whether it wins.
            let matched = route.regex?.match(segments.joined(separator: "/")) != nil
            return RouteAttempt(
                route: RouteID(index), pattern: text, matchedSegments: matched ? segments.count : 0,
                outcome: matched ? .matched : .regexMismatch)
        }
        for (position, segment) in pattern.segments.enumerated() {
            if let (minimum, maximum) = segment.restArity {
                let left = segments.count - position
                if let maximum, left > maximum {
                    return RouteAttempt(
                        route: RouteID(index), pattern: text, matchedSegments: position + maximum,
                        outcome: .tooLong(segment: position + maximum, found: segments[position + maximum]))
                }
                if left < minimum {
                    return RouteAttempt(
                        route: RouteID(index), pattern: text, matchedSegments: position,
                        outcome: .tooShort(segment: position, expected: segment.text))
                }
                let absent = left == 0 && maximum == 1
                if let name = segment.parameterName, !absent, let validator = route.validators[name] {
                    let rest = segments[min(position, segments.count)...].joined(separator: "/")
                    if (try? validator.accepts(rest)) != true {
                        return RouteAttempt(
                            route: RouteID(index), pattern: text, matchedSegments: position,
                            outcome: .rejected(
                                segment: position, parameter: name, value: rest, validator: validator.source))
                    }
                }
                return RouteAttempt(
                    route: RouteID(index), pattern: text, matchedSegments: segments.count, outcome: .matched)
            }
            guard position < segments.count else {
                return RouteAttempt(
                    route: RouteID(index), pattern: text, matchedSegments: position,
                    outcome: .tooShort(segment: position, expected: segment.text))
            }
            let value = segments[position]
            switch segment {
            case .constant(let expected) where !Pattern.sameBytes(expected, value):
                return RouteAttempt(
                    route: RouteID(index), pattern: text, matchedSegments: position,
                    outcome: .constantMismatch(segment: position, expected: expected, found: value))
            case .parameter(let name):
                if let validator = route.validators[name], (try? validator.accepts(value)) != true {
                    return RouteAttempt(
                        route: RouteID(index), pattern: text, matchedSegments: position,
                        outcome: .rejected(
                            segment: position, parameter: name, value: value, validator: validator.source))
                }
            default: break
            }
        }
        if segments.count > pattern.segments.count {
            let position = pattern.segments.count
            return RouteAttempt(
                route: RouteID(index), pattern: text, matchedSegments: position,
                outcome: .tooLong(segment: position, found: segments[position]))
        }
        return RouteAttempt(route: RouteID(index), pattern: text, matchedSegments: segments.count, outcome: .matched)
    }

    /// The routes that came closest (most segments accepted, then declaration order).
    public func closest(_ segments: [String], query: Request? = nil, limit: Int = 3) -> [RouteAttempt] {
        let failed = attempts(segments, query: query).filter { $0.outcome != .matched }
        let sorted = failed.enumerated().sorted { a, b in
            a.element.matchedSegments != b.element.matchedSegments
                ? a.element.matchedSegments > b.element.matchedSegments : a.offset < b.offset
        }
        return sorted.prefix(limit).map(\.element)
    }
}

extension RouteTree {
    /// The message of a `noMatch` error: the request and the closest routes with why each
    /// failed.
    public func explainMiss(_ request: Request) -> String {
        let shown = request.path.isEmpty ? "/" : request.path
        let closest = closest(request.segments, query: request)
        guard !closest.isEmpty else { return "no route matches '\(shown)' (the tree has no routes that could)" }
        let lines = closest.map { "\($0.pattern.isEmpty ? "/" : $0.pattern) (\($0.reason))" }
        return "no route matches '\(shown)'; closest: " + lines.joined(separator: "; ")
    }
}

import RouteCore

/// `luna check`: problems a tree can have that still load.
public struct Lint {
    /// One problem, with where it is.
    public struct Finding: Equatable, Sendable {
        /// Errors fail `check` (status 1); warnings do not.
        public enum Severity: String, Sendable { case error, warning }
        public var severity: Severity
        /// `books.lua:12`, when the node has one.
        public var location: String?
        public var message: String

        public var line: String {
            (location.map { "\($0): " } ?? "") + severity.rawValue + ": " + message
        }
    }

    public let tree: RouteTree

    public init(tree: RouteTree) { self.tree = tree }

    /// Values validators are tried with, to find one that rejects everything.
    static let samples = [
        "0", "1", "7", "42", "2024", "007", "123456789", "a", "x", "abc", "Dune", "ABC", "a1", "x-y", "a_b", "a.b",
        "hello-world", "é", "über", "123e4567-e89b-12d3-a456-426614174000", "2024-01-31", "true", "en", "fr",
        String(repeating: "a", count: 64), " ", "%", "~",
    ]

    public func findings() -> [Finding] {
        var findings: [Finding] = []
        let endpoints = tree.endpoints
        var neverWins = Set<Int>()
        for (index, endpoint) in endpoints.enumerated() {
            guard let pattern = endpoint.definition.pattern else { continue }
            for (other, rival) in endpoints.enumerated() where other != index {
                guard let rivalPattern = rival.definition.pattern,
                    Self.covers(rivalPattern, rival.definition, pattern, endpoint.definition)
                else { continue }
                let mine = endpoint.definition.rankVector
                let theirs = rival.definition.rankVector
                let equal = mine == theirs
                guard theirs.lexicographicallyPrecedes(mine) || (equal && other < index) else { continue }
                let node = tree.nodes[endpoint.node]
                let rivalText = Self.show(rival.definition.displayText)
                let rivalWhere = tree.nodes[rival.node].location.map { " (\($0))" } ?? ""
                if pattern == rivalPattern && validatorsEqual(endpoint.definition, rival.definition) {
                    findings.append(
                        Finding(
                            severity: .error, location: node.location,
                            message: "route '\(Self.show(pattern.description))' duplicates '\(rivalText)'\(rivalWhere)")
                    )
                } else {
                    let why = equal ? "an earlier route of the same rank" : "a more specific route"
                    findings.append(
                        Finding(
                            severity: .warning, location: node.location,
                            message:
                                "route '\(Self.show(pattern.description))' can never win: '\(rivalText)'\(rivalWhere) matches everything it matches and is \(why)"
                        ))
                }
                neverWins.insert(index)
                break
            }
        }
        for endpoint in endpoints {
            for (name, validator) in endpoint.definition.validators.sorted(by: { $0.key < $1.key })
            where !validator.isPredicate {
                if !Self.samples.contains(where: { (try? validator.accepts($0)) == true }) {
                    findings.append(
                        Finding(
                            severity: .warning, location: tree.nodes[endpoint.node].location,
                            message:
                                "validator of '\(name)' ('\(validator.source)') rejects every value it was tried with; check the regex"
                        ))
                }
            }
        }
        for node in tree.nodes where node.kind != .endpoint || node.relation == .modal {
            let routes = reachableRoutes(below: node.index)
            guard !routes.isEmpty, routes.allSatisfy(neverWins.contains) else { continue }
            let what =
                node.relation == .modal
                ? "modal '\(node.id)' can never be presented"
                : "\(node.kind.rawValue) '\(node.id)' has no reachable endpoint"
            findings.append(
                Finding(
                    severity: .warning, location: node.location, message: what + ": every route under it can never win")
            )
        }
        return findings
    }

    private func validatorsEqual(_ a: RouteDefinition, _ b: RouteDefinition) -> Bool {
        a.validators.mapValues(\.source) == b.validators.mapValues(\.source)
    }

    /// Route indexes of the endpoints under a node (the node included).
    private func reachableRoutes(below index: Int) -> [Int] {
        let node = tree.nodes[index]
        var result = node.route.map { [$0] } ?? []
        for child in node.children + node.modals { result += reachableRoutes(below: child) }
        return result
    }

    static func show(_ pattern: String) -> String { pattern.isEmpty ? "/" : pattern }

    /// Whether every request `inner` matches is also matched by `outer`.
    static func covers(
        _ outer: Pattern, _ outerRoute: RouteDefinition, _ inner: Pattern, _ innerRoute: RouteDefinition
    )
        -> Bool
    {
        for (position, segment) in outer.segments.enumerated() {
            if case .catchAll(let name) = segment {
                if let name, outerRoute.validators[name] != nil { return false }
                return true
            }
            guard position < inner.segments.count else { return false }
            let other = inner.segments[position]
            if case .catchAll = other { return false }
            switch segment {
            case .constant(let text):
                guard case .constant(let same) = other, same == text else { return false }
            case .parameter(let name):
                if let validator = outerRoute.validators[name] {
                    switch other {
                    case .constant(let text): if (try? validator.accepts(text)) != true { return false }
                    case .parameter(let innerName):
                        guard let innerValidator = innerRoute.validators[innerName],
                            innerValidator.source == validator.source,
                            !validator.isPredicate
                        else { return false }
                    default: return false
                    }
                }
            case .wildcard: break
            case .catchAll: break
            }
        }
        return outer.segments.count == inner.segments.count
    }
}

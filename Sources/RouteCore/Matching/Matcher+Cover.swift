/// Which routes could cover which, read from the compiled trie (the lint's candidates): a
/// route covers another when it matches everything the other matches (docs/cli.md, `luna check`).
/// Both queries give a superset in declaration order; ``Lint/covers(_:_:_:_:)`` decides.
extension Matcher {
    /// The routes that could cover `pattern`: along its segments, every rest route on the way,
    /// then the routes that end where it ends. A constant segment is covered by the same
    /// constant or by a parameter or `:_`; a parameter or `:_` only by a parameter or `:_`;
    /// `...` only by a rest route on the way.
    func routes(couldCover pattern: Pattern) -> [Int] {
        var result: [Int] = []
        var work: [(node: Int32, depth: Int)] = [(0, 0)]
        let segments = pattern.segments
        while let (position, depth) = work.popLast() {
            let node = node(at: position)
            let (terminal, rest) = Self.routeCounts(node, position, large: largeCounts)
            forEachRoute(of: node, skipping: terminal, count: rest) { result.append($0) }
            guard depth < segments.count else {
                forEachRoute(of: node, skipping: 0, count: terminal) { result.append($0) }
                continue
            }
            switch segments[depth] {
            case .constant(let text):
                let child = constantChild(node, text)
                if child >= 0 { work.append((child, depth + 1)) }
                fallthrough
            case .parameter, .wildcard:
                for child in [node.validated, node.parameter, node.wildcard] where child >= 0 {
                    work.append((child, depth + 1))
                }
            case .catchAll, .optional, .oneOrMore:
                break
            }
        }
        result.sort()
        return result
    }

    /// The routes `pattern` could cover, or nil when they are more than `limit`: along its
    /// segments, a constant follows the same constant, a parameter every edge (constants may
    /// pass its validator), `:_` every edge; where it ends, the routes that end there; at its
    /// `...`, every route below.
    func routes(couldBeCoveredBy pattern: Pattern, limit: Int) -> [Int]? {
        var result: [Int] = []
        var work: [(node: Int32, depth: Int)] = [(0, 0)]
        let segments = pattern.segments
        func children(of node: Node) -> [Int32] {
            var children: [Int32] = []
            forEachEdge(of: node) { children.append($0.child) }
            for child in [node.validated, node.parameter, node.wildcard] where child >= 0 { children.append(child) }
            return children
        }
        while let (position, depth) = work.popLast() {
            let node = node(at: position)
            let (terminal, _) = Self.routeCounts(node, position, large: largeCounts)
            if depth == segments.count {
                forEachRoute(of: node, skipping: 0, count: terminal) { result.append($0) }
            } else if segments[depth].isRest {
                // Everything below.
                var below: [Int32] = [position]
                while let next = below.popLast() {
                    let inner = self.node(at: next)
                    let counts = Self.routeCounts(inner, next, large: largeCounts)
                    forEachRoute(of: inner, skipping: 0, count: counts.terminal + counts.rest) { result.append($0) }
                    if result.count > limit { return nil }
                    below += children(of: inner)
                }
            } else if case .constant(let text) = segments[depth] {
                let child = constantChild(node, text)
                if child >= 0 { work.append((child, depth + 1)) }
            } else {
                work += children(of: node).map { ($0, depth + 1) }
            }
            if result.count > limit { return nil }
        }
        result.sort()
        return result
    }

    /// Calls `body` with the routes of `count` entries of `node`, after `skipped`.
    private func forEachRoute(of node: Node, skipping skipped: Int, count: Int, _ body: (Int) -> Void) {
        var entry = Int(node.routeStart)
        for _ in 0..<skipped { entry += entryUnits(at: entry) }
        for _ in 0..<count {
            body(Int(self.entry(at: entry).route))
            entry += entryUnits(at: entry)
        }
    }

    /// The child of `node` along the constant `text` (by bytes), or -1.
    private func constantChild(_ node: Node, _ text: String) -> Int32 {
        var text = text
        return text.withUTF8 { bytes in
            guard !bytes.isEmpty, bytes.count <= Int(UInt16.max) else { return -1 }
            let segment = SegmentRange(start: 0, end: UInt16(bytes.count), hash: Self.hash(bytes))
            return constantChild(node, bytes, segment)
        }
    }
}

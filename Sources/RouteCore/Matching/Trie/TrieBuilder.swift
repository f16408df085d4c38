/// Builds the matcher's flat trie straight from the patterns, with no intermediate node
/// objects: the routes are sorted by their segment keys, so the routes below any trie node
/// form one contiguous run, and each run splits into contiguous groups, one per edge.
///
/// A node's children are numbered together (constants, then the validated parameter, the
/// parameter and `:_`; `Flat.children`), which the matcher's layout walks in pre-order.
/// Work is kept on an explicit stack: a pattern's length never becomes recursion depth.
struct TrieBuilder {
    /// One step of a route through the trie, as a number: a constant's number in `interner`,
    /// or one of the reserved values below. Only grouping needs an order (equal keys must
    /// be adjacent); ranking comes from how `visit` walks a node's edges.
    typealias Key = UInt32
    static let validated: Key = .max - 3
    static let parameter: Key = .max - 2
    static let wildcard: Key = .max - 1
    /// `...`: the route ends here as a rest route (always its last key).
    static let rest: Key = .max

    /// A route: its index and its keys' place in ``keys`` (all routes' keys in one array, so
    /// sorting moves 12-byte values and compares integers in place).
    struct Route {
        var index: Int32
        var start: Int32
        var count: Int32
    }

    /// Constants by id (interned while the keys are made, so sorting compares integers).
    private var interner = StringInterner()
    /// Every route's keys, one after another.
    private(set) var keys: [Key] = []
    private(set) var routes: [Route] = []

    init(capacity: Int = 0) { routes.reserveCapacity(capacity) }

    /// Adds a pattern route; parameters named in `validated` take the validated edge.
    mutating func add(route index: Int32, _ pattern: Pattern, validated: (String) -> Bool) {
        let start = Int32(keys.count)
        loop: for segment in pattern.segments {
            switch segment {
            case .constant(let text): keys.append(Key(interner.number(of: text)))
            case .parameter(let name): keys.append(validated(name) ? Self.validated : Self.parameter)
            case .wildcard: keys.append(Self.wildcard)
            case .catchAll, .optional, .oneOrMore:
                keys.append(Self.rest)
                break loop
            }
        }
        routes.append(Route(index: index, start: start, count: Int32(keys.count) - start))
    }

    struct Flat {
        var nodes: [Matcher.Node] = []
        var edges: [Matcher.Edge] = []
        var keys: [UInt8] = []
        var slots: [Matcher.Edge] = []
        /// Each node's terminal routes, then its rest routes, in declaration order.
        var routeLists: [Int32] = []
        /// Each edge's key hash, for laying out hash tables (not kept by the matcher).
        var edgeHashes: [UInt32] = []
        /// Each node's children: consecutive node indexes (constants, then the validated
        /// parameter, the parameter and `:_`), from `children[node].start`.
        var children: [(start: Int32, count: Int32)] = []
        /// Route counts too large for a node's 16-bit fields (65,535 identical patterns and
        /// more), by node index.
        var largeCounts: [Int32: (terminal: Int32, rest: Int32)] = [:]
    }

    /// Routes sort by keys; a route that ends sorts before one that goes on; ties keep
    /// declaration order (so each node's route lists come out sorted).
    private static func precedes(_ a: Route, _ b: Route, _ keys: UnsafeBufferPointer<Key>) -> Bool {
        let count = Int(min(a.count, b.count))
        let first = Int(a.start)
        let second = Int(b.start)
        for k in 0..<count where keys[first + k] != keys[second + k] { return keys[first + k] < keys[second + k] }
        if a.count != b.count { return a.count < b.count }
        return a.index < b.index
    }

    /// The flat trie of the routes added.
    func build(linearScanLimit: Int) -> Flat {
        keys.withUnsafeBufferPointer { keys in build(keys, linearScanLimit: linearScanLimit) }
    }

    private func build(_ keys: UnsafeBufferPointer<Key>, linearScanLimit: Int) -> Flat {
        let routes = self.routes.sorted { Self.precedes($0, $1, keys) }
        /// The key of `route` at `depth` (which is below its count).
        func keyAt(_ route: Route, _ depth: Int) -> Key { keys[Int(route.start) + depth] }
        var flat = Flat()
        flat.nodes.reserveCapacity(routes.count + 1)
        flat.routeLists.reserveCapacity(routes.count)
        flat.nodes.append(Matcher.Node())
        flat.children.reserveCapacity(routes.count + 1)
        flat.children.append((0, 0))
        var work: [(node: Int32, range: Range<Int>, depth: Int)] = [(0, 0..<routes.count, 0)]
        var groups: [(key: Key, range: Range<Int>)] = []
        while let (node, range, depth) = work.popLast() {
            var index = range.lowerBound
            var flatNode = Matcher.Node()
            // Routes that end here come first in the run.
            flatNode.routeStart = Int32(flat.routeLists.count)
            while index < range.upperBound && Int(routes[index].count) == depth {
                flat.routeLists.append(routes[index].index)
                index += 1
            }
            let terminalCount = Int32(flat.routeLists.count) - flatNode.routeStart
            var restCount: Int32 = 0
            // Then one group per distinct key at this depth.
            groups.removeAll(keepingCapacity: true)
            while index < range.upperBound {
                let key = keyAt(routes[index], depth)
                var end = index + 1
                while end < range.upperBound && keyAt(routes[end], depth) == key { end += 1 }
                if key == Self.rest {
                    for k in index..<end { flat.routeLists.append(routes[k].index) }
                    restCount = Int32(end - index)
                } else {
                    groups.append((key, index..<end))
                }
                index = end
            }
            // Children, numbered together; constant edges laid out in one block.
            let firstChild = Int32(flat.nodes.count)
            flatNode.edgeStart = Int32(flat.edges.count)
            flat.children[Int(node)] = (firstChild, Int32(groups.count))
            for (offset, group) in groups.enumerated() {
                let child = firstChild + Int32(offset)
                flat.nodes.append(Matcher.Node())
                flat.children.append((0, 0))
                switch group.key {
                case Self.validated: flatNode.validated = child
                case Self.parameter: flatNode.parameter = child
                case Self.wildcard: flatNode.wildcard = child
                default:
                    var text = interner.strings[Int(group.key)]
                    let edge = text.withUTF8 { bytes in
                        // Short keys live in their edge; only longer ones take room in `keys`.
                        let start = Int32(flat.keys.count)
                        if bytes.count > Matcher.Edge.shortKeyLimit { flat.keys.append(contentsOf: bytes) }
                        let hash = Matcher.hash(bytes)
                        flat.edgeHashes.append(hash)
                        return Matcher.Edge(key: bytes, hash: hash, keyStart: start, child: child)
                    }
                    flat.edges.append(edge)
                }
                work.append((child, group.range, depth + 1))
            }
            flatNode.edgeCount = Int32(flat.edges.count) - flatNode.edgeStart
            if Int(flatNode.edgeCount) > linearScanLimit {
                // The table holds the edges themselves (key words and children), so a lookup
                // reads its slot and nothing else; the node's block of edges is not kept.
                let capacity = Matcher.tableCapacity(Int(flatNode.edgeCount))
                flatNode.tableStart = Int32(flat.slots.count)
                var table = [Matcher.Edge](repeating: .empty, count: capacity)
                for k in 0..<Int(flatNode.edgeCount) {
                    let edgeIndex = Int(flatNode.edgeStart) + k
                    var slot = Int(flat.edgeHashes[edgeIndex]) & (capacity - 1)
                    while table[slot].keyLength >= 0 { slot = (slot + 1) & (capacity - 1) }
                    table[slot] = flat.edges[edgeIndex]
                }
                flat.slots.append(contentsOf: table)
                flat.edges.removeSubrange(Int(flatNode.edgeStart)...)
                flat.edgeHashes.removeSubrange(Int(flatNode.edgeStart)...)
            }
            if terminalCount < Int32(Matcher.Node.countOverflow) && restCount < Int32(Matcher.Node.countOverflow) {
                flatNode.terminalCount = UInt16(terminalCount)
                flatNode.restCount = UInt16(restCount)
            } else {
                flatNode.terminalCount = Matcher.Node.countOverflow
                flatNode.restCount = Matcher.Node.countOverflow
                flat.largeCounts[node] = (terminalCount, restCount)
            }
            flat.nodes[Int(node)] = flatNode
        }
        return flat
    }
}

/// A reload that changed a few routes compiles only the parts of the trie those routes are in.
///
/// The routes below one edge of the root are exactly the routes whose pattern starts with that
/// edge's step (a constant, a validated parameter, a parameter or `:_`), and in the trie's
/// depth-first layout each such subtree is one run of units. A patch compiles the subtrees of
/// the steps a changed route starts with again, copies every other subtree from the previous
/// matcher (moving its positions and renumbering its routes), and lays out a new root over
/// them. What matching reads is the same as a whole compilation's; only the order of the
/// root's subtrees in memory may differ.
extension Matcher {
    /// The most changed routes (removed plus added) a patch takes on, or an eighth of the
    /// routes when that is more (at most 64): beyond it the whole matcher is compiled again.
    static let patchLimit = 16

    /// Compiles `routes`, keeping what `previous` (compiled from `previousRoutes`) has for the
    /// first steps no changed route starts with: a route table rebuilt with a few routes
    /// changed costs about what those routes' subtrees do. A route is unchanged when its
    /// pattern text (by bytes) and its validated parameters' names are the same; its
    /// validators are taken from `routes` all the same (a predicate may belong to a new Lua
    /// state). With more changes the whole matcher is compiled, as ``init(routes:)`` does;
    /// either way it matches exactly what `Matcher(routes: routes)` matches.
    ///
    /// ```swift
    /// let old = [try RouteDefinition(pattern: Pattern("books/:id")), try RouteDefinition(pattern: Pattern("authors"))]
    /// let new = [old[0], try RouteDefinition(pattern: Pattern("authors/:name"))]
    /// let matcher = Matcher(routes: new, patching: Matcher(routes: old), from: old)
    /// ```
    public convenience init(
        routes: [RouteDefinition], patching previous: Matcher, from previousRoutes: [RouteDefinition]
    ) {
        self.init(Self.patch(previous, from: previousRoutes, to: routes) ?? Self.compile(routes))
    }

    /// As ``init(routes:patching:from:)``, with the routes kept already known — a reload's
    /// change set (``TreeChange/routes``: each new route's unchanged old route, in order, or
    /// -1) — instead of worked out again from the two lists.
    package convenience init(
        routes: [RouteDefinition], patching previous: Matcher, from previousRoutes: [RouteDefinition], kept: [Int32]
    ) {
        let diff = RouteDiff(keptByNew: kept, oldCount: previousRoutes.count)
        self.init(Self.patch(previous, from: previousRoutes, to: routes, diff: diff) ?? Self.compile(routes))
    }

    /// A route's first step through the trie.
    enum FirstStep: Hashable {
        /// An empty pattern: the route ends at the root.
        case end
        /// `...`: one of the root's rest routes.
        case rest
        /// A constant, by its bytes (as requests are matched).
        case constant([UInt8])
        case validated
        case parameter
        case wildcard

        init(_ pattern: Pattern, _ validators: [String: Validator]) {
            guard let first = pattern.segments.first else {
                self = .end
                return
            }
            switch first {
            case .constant(let text): self = .constant(Array(text.utf8))
            case .parameter(let name): self = validators[name] != nil ? .validated : .parameter
            case .wildcard: self = .wildcard
            case .catchAll, .optional, .oneOrMore: self = .rest
            }
        }
    }

    /// Whether two definitions compile to the same trie route: the same shape, the same pattern
    /// bytes and the same validated names (the validators themselves are read anew).
    static func sameForTrie(_ a: RouteDefinition, _ b: RouteDefinition) -> Bool {
        if a.isIdentical(to: b) { return true }
        guard (a.pattern == nil) == (b.pattern == nil), Pattern.sameBytes(a.displayText, b.displayText) else {
            return false
        }
        // A query schema is one more check: with or without one, the entry's count differs.
        guard (a.querySchema == nil) == (b.querySchema == nil) else { return false }
        let (x, y) = (a.validators, b.validators)
        return x.count == y.count && x.keys.allSatisfy { y[$0] != nil }
    }

    /// A root subtree: its step, where it starts, and the root's edge to it (constants).
    private struct Branch {
        var step: FirstStep
        var position: Int32
        var edge: Edge?
    }

    /// A subtree to lay out under the new root: units `start..<end` of the previous trie or of
    /// a build, the root's edge to it (a constant's), and how its routes are renumbered.
    private struct Part {
        enum Source {
            case previous
            case build(Int)
        }
        var source: Source
        var step: FirstStep
        var start: Int
        var end: Int
        var edge: Edge?
        var renumber: (inout RouteEntry) -> Bool
    }

    /// A touched step's subtree compiled again: its units (the built root, then the subtree)
    /// and long keys, and its routes' numbers by their place in the build.
    private struct Build {
        var units: [UInt8]
        var count: Int
        var keys: [UInt8]
        var members: [Int32]
    }

    /// The patched matcher's parts, or nil when a whole compilation is the way (too many
    /// changes, no previous routes, counts beyond a node's 16-bit fields).
    static func patch(
        _ previous: Matcher, from previousRoutes: [RouteDefinition], to routes: [RouteDefinition],
        diff given: RouteDiff? = nil
    ) -> Compiled? {
        let oldCount = previousRoutes.count
        let count = routes.count
        guard oldCount > 0, count > 0, previous.parameterNames.routeCount == oldCount, previous.largeCounts.isEmpty
        else { return nil }
        // Which routes stayed, and their new numbers: in order, so each node's routes stay in
        // declaration order — given (a reload's change set), or the shortest edit script
        // between the two lists.
        let maxEdits = min(max(patchLimit, count / 8), 64)
        guard
            let diff = given
                ?? RouteDiff(
                    from: oldCount, to: count, maxEdits: maxEdits,
                    same: { sameForTrie(previousRoutes[$0], routes[$1]) }),
            diff.removed.count + diff.added.count <= maxEdits
        else { return nil }
        let removed = diff.removed
        let added = diff.added
        /// An unchanged route's new number (nil: a removed route).
        func renumbered(_ route: Int32) -> Int32? {
            let new = diff.kept[Int(route)]
            return new >= 0 ? new : nil
        }

        // Checks and validators of every route, as a whole compilation makes them (so
        // predicates are the new script's), and each validated route's range of them.
        var checks: [Check] = []
        var validators: [Validator] = []
        var querySchemas: [QuerySchema] = []
        var checkRanges: [Int32: (start: Int32, count: UInt8)] = [:]
        for index in routes.indices where routes[index].hasChecks {
            guard let pattern = routes[index].pattern else { continue }
            let start = Int32(checks.count)
            appendChecks(
                of: pattern, routes[index].validators, query: routes[index].querySchema, to: &checks, &validators,
                &querySchemas)
            checkRanges[Int32(index)] = (start, UInt8(clamping: Int32(checks.count) - start))
        }
        // A kept regex route takes its query schema from the new definition (it may differ).
        var regexRoutes = previous.regexRoutes.compactMap { old in
            renumbered(Int32(old.route)).map { (route: Int($0), regex: old.regex, query: routes[Int($0)].querySchema) }
        }
        for index in added {
            if let regex = routes[index].regex { regexRoutes.append((index, regex, routes[index].querySchema)) }
        }
        regexRoutes.sort { $0.route < $1.route }
        let names = previous.parameterNames.renumbered(diff.kept, count: count, adding: added.map { routes[$0] })

        // The steps a changed route starts with; the added routes by step.
        var touched = Set<FirstStep>()
        var addedBySteps: [FirstStep: [Int32]] = [:]
        for index in removed {
            guard let pattern = previousRoutes[index].pattern else { continue }
            touched.insert(FirstStep(pattern, previousRoutes[index].validators))
        }
        for index in added {
            guard let pattern = routes[index].pattern else { continue }
            let step = FirstStep(pattern, routes[index].validators)
            touched.insert(step)
            addedBySteps[step, default: []].append(Int32(index))
        }

        // The previous root: its branches (each subtree runs to the next one's start) and
        // its own routes.
        let root = previous.node(at: 0)
        var branches: [Branch] = []
        previous.forEachEdge(of: root) { edge in
            branches.append(Branch(step: .constant(previous.keyBytes(edge)), position: edge.child, edge: edge))
        }
        for (step, child) in [
            (FirstStep.validated, root.validated), (.parameter, root.parameter), (.wildcard, root.wildcard),
        ]
        where child >= 0 {
            branches.append(Branch(step: step, position: child, edge: nil))
        }
        let starts = branches.map { Int($0.position) }.sorted()
        func end(of position: Int32) -> Int {
            let next = starts.firstIndex { $0 > Int(position) }
            return next.map { starts[$0] } ?? previous.unitCount
        }
        var terminal: [Int32] = addedBySteps[.end] ?? []
        var rest: [Int32] = addedBySteps[.rest] ?? []
        let (oldTerminalCount, oldRestCount) = routeCounts(root, 0, large: previous.largeCounts)
        var entry = Int(root.routeStart)
        for k in 0..<(oldTerminalCount + oldRestCount) {
            if let route = renumbered(previous.entry(at: entry).route) {
                if k < oldTerminalCount { terminal.append(route) } else { rest.append(route) }
            }
            entry += previous.entryUnits(at: entry)
        }
        terminal.sort()
        rest.sort()

        // The touched steps' subtrees, compiled again from their routes' new definitions.
        var parts: [Part] = []
        var builds: [Build] = []
        for step in touched where step != .end && step != .rest {
            var members = addedBySteps[step] ?? []
            if let branch = branches.first(where: { $0.step == step }) {
                let complete = previous.forEachEntry(from: Int(branch.position), to: end(of: branch.position)) { old in
                    if let route = renumbered(old.route) { members.append(route) }
                }
                guard complete else { return nil }
            }
            guard !members.isEmpty else { continue }  // the branch is gone
            members.sort()
            var builder = TrieBuilder(capacity: members.count)
            var facts: [RouteFacts] = []
            var captures: [UInt8] = []
            var noNames: ParameterNames.Builder? = nil
            for (local, route) in members.enumerated() {
                guard let pattern = routes[Int(route)].pattern else { return nil }
                let routeValidators = routes[Int(route)].validators
                let validated = !routeValidators.isEmpty
                builder.add(route: Int32(local), pattern) { validated && routeValidators[$0] != nil }
                let checkRange = checkRanges[route] ?? (0, 0)
                facts.append(
                    routeFacts(
                        of: pattern, checkStart: checkRange.start, checkEnd: checkRange.start + Int32(checkRange.count),
                        captures: &captures, names: &noNames))
            }
            let flat = builder.build(linearScanLimit: linearScanLimit)
            guard flat.largeCounts.isEmpty else { return nil }
            let laid = interleave(flat, facts: facts, captures: captures)
            // The built root's one child is the subtree; a constant's edge leads to it.
            var edge: Edge?
            var child: Int32 = -1
            let node = laid.bytes.withUnsafeBytes { $0.load(as: Node.self) }
            switch step {
            case .constant:
                guard node.edgeCount == 1, node.tableStart < 0 else { return nil }
                edge = laid.bytes.withUnsafeBytes { $0.load(fromByteOffset: Int(node.edgeStart) * unit, as: Edge.self) }
                child = edge?.child ?? -1
            case .validated: child = node.validated
            case .parameter: child = node.parameter
            case .wildcard: child = node.wildcard
            case .end, .rest: return nil
            }
            guard child > 0 else { return nil }
            parts.append(
                Part(
                    source: .build(builds.count), step: step, start: Int(child), end: laid.count, edge: edge,
                    renumber: { entry in
                        entry.route = members[Int(entry.route)]
                        return true
                    }))
            builds.append(Build(units: laid.bytes, count: laid.count, keys: flat.keys, members: members))
        }
        for branch in branches where !touched.contains(branch.step) {
            parts.append(
                Part(
                    source: .previous, step: branch.step, start: Int(branch.position), end: end(of: branch.position),
                    edge: branch.edge,
                    renumber: { entry in
                        guard let route = renumbered(entry.route) else { return false }
                        entry.route = route
                        if entry.checkCount > 0 { entry.checkStart = checkRanges[route]?.start ?? 0 }
                        return true
                    }))
        }

        // The new trie: the root (its edges or table, then its routes' entries), then every
        // subtree.
        var rootEdges: [(hash: UInt32, part: Int)] = []
        for (index, part) in parts.enumerated() {
            guard part.edge != nil, case .constant(let key) = part.step else { continue }
            rootEdges.append((key.withUnsafeBufferPointer { hash($0) }, index))
        }
        let table = rootEdges.count > linearScanLimit
        let edgeUnits = table ? tableCapacity(rootEdges.count) : rootEdges.count
        var rootRoutes: [(route: Int32, facts: RouteFacts)] = []
        var rootCaptures: [UInt8] = []
        var noNames: ParameterNames.Builder? = nil
        for route in terminal + rest {
            guard let pattern = routes[Int(route)].pattern else { return nil }
            let checkRange = checkRanges[route] ?? (0, 0)
            let facts = routeFacts(
                of: pattern, checkStart: checkRange.start, checkEnd: checkRange.start + Int32(checkRange.count),
                captures: &rootCaptures, names: &noNames)
            rootRoutes.append((route, facts))
        }
        guard terminal.count < Int(Node.countOverflow), rest.count < Int(Node.countOverflow) else { return nil }
        var rootSize = nodeUnits + edgeUnits
        for (_, facts) in rootRoutes { rootSize += RouteEntry.units(spanCount: Int(facts.captureCount)) }
        var bases: [Int] = []
        var unitCount = rootSize
        for part in parts {
            bases.append(unitCount)
            unitCount += part.end - part.start
        }
        var units = [UInt8](repeating: 0, count: unitCount * unit)
        var keys: [UInt8] = []
        var nodeCount = 1
        let complete = units.withUnsafeMutableBytes { raw -> Bool in
            guard let target = raw.baseAddress else { return false }
            // The subtrees, moved to their new places; the root's edges to them, with their
            // keys copied.
            var edges = parts.map(\.edge)
            for (index, part) in parts.enumerated() {
                func move(_ units: UnsafeRawPointer, _ sourceKeys: UnsafeBufferPointer<UInt8>) -> Int? {
                    if var edge = part.edge, Int(edge.keyLength) > Edge.shortKeyLimit {
                        edge.word = copyKey(of: edge, from: sourceKeys, to: &keys)
                        edges[index] = edge
                    }
                    return relocate(part, from: units, keys: sourceKeys, into: target, at: bases[index], newKeys: &keys)
                }
                let nodes: Int?
                switch part.source {
                case .previous:
                    nodes = move(previous.trie, UnsafeBufferPointer(previous.keys))
                case .build(let number):
                    nodes = builds[number].units.withUnsafeBytes { built in
                        builds[number].keys.withUnsafeBufferPointer { builtKeys in
                            built.baseAddress.flatMap { move($0, builtKeys) }
                        }
                    }
                }
                guard let nodes else { return false }
                nodeCount += nodes
            }
            // The root's edges, their keys copied and children moved; a table when they are many.
            var root = Node()
            var placed = [Edge](repeating: .empty, count: edgeUnits)
            for (position, item) in rootEdges.enumerated() {
                guard var edge = edges[item.part] else { return false }
                edge.child = Int32(bases[item.part])
                if table {
                    var slot = Int(item.hash) & (edgeUnits - 1)
                    while placed[slot].keyLength >= 0 { slot = (slot + 1) & (edgeUnits - 1) }
                    placed[slot] = edge
                } else {
                    placed[position] = edge
                }
            }
            for (slot, edge) in placed.enumerated() {
                raw.storeBytes(of: edge, toByteOffset: (nodeUnits + slot) * unit, as: Edge.self)
            }
            root.edgeCount = Int32(rootEdges.count)
            root.edgeStart = table ? 0 : Int32(nodeUnits)
            root.tableStart = table ? Int32(nodeUnits) : -1
            for (index, part) in parts.enumerated() {
                switch part.step {
                case .validated: root.validated = Int32(bases[index])
                case .parameter: root.parameter = Int32(bases[index])
                case .wildcard: root.wildcard = Int32(bases[index])
                default: break
                }
            }
            // The root's routes: terminal ones, then rest ones, in declaration order.
            root.routeStart = Int32(nodeUnits + edgeUnits)
            root.terminalCount = UInt16(terminal.count)
            root.restCount = UInt16(rest.count)
            var entry = Int(root.routeStart)
            for (route, facts) in rootRoutes {
                writeEntry(route: route, facts: facts, captures: rootCaptures, into: raw, at: entry)
                entry += RouteEntry.units(spanCount: Int(facts.captureCount))
            }
            raw.storeBytes(of: root, toByteOffset: 0, as: Node.self)
            return true
        }
        guard complete else { return nil }
        return Compiled(
            units: units, unitCount: unitCount, nodeCount: nodeCount, keys: keys, checks: checks, largeCounts: [:],
            validators: validators, querySchemas: querySchemas, regexRoutes: regexRoutes, names: names)
    }

    /// Copies `part`'s units from `source` to `target` at `base`, every position in it moved
    /// by the same distance (a subtree's positions all point inside it), its long keys copied
    /// to `newKeys` and its routes renumbered. Returns the subtree's node count, or nil when a
    /// route cannot be renumbered or a node's counts overflowed.
    private static func relocate(
        _ part: Part, from source: UnsafeRawPointer, keys sourceKeys: UnsafeBufferPointer<UInt8>,
        into target: UnsafeMutableRawPointer, at base: Int, newKeys: inout [UInt8]
    ) -> Int? {
        let length = part.end - part.start
        (target + base * unit).copyMemory(from: source + part.start * unit, byteCount: length * unit)
        let distance = Int32(base - part.start)
        func moved(_ position: Int32) -> Int32 { position >= 0 ? position + distance : position }
        var position = base
        var nodes = 0
        while position < base + length {
            var node = target.load(fromByteOffset: position * unit, as: Node.self)
            guard node.terminalCount != Node.countOverflow else { return nil }
            let edgeUnits = node.tableStart >= 0 ? tableCapacity(Int(node.edgeCount)) : Int(node.edgeCount)
            if node.tableStart >= 0 { node.tableStart += distance } else { node.edgeStart += distance }
            node.validated = moved(node.validated)
            node.parameter = moved(node.parameter)
            node.wildcard = moved(node.wildcard)
            node.routeStart += distance
            target.storeBytes(of: node, toByteOffset: position * unit, as: Node.self)
            for k in 0..<edgeUnits {
                let offset = (position + nodeUnits + k) * unit
                var edge = target.load(fromByteOffset: offset, as: Edge.self)
                guard edge.keyLength >= 0 else { continue }  // an empty slot
                edge.child += distance
                if Int(edge.keyLength) > Edge.shortKeyLimit {
                    edge.word = copyKey(of: edge, from: sourceKeys, to: &newKeys)
                }
                target.storeBytes(of: edge, toByteOffset: offset, as: Edge.self)
            }
            var entry = position + nodeUnits + edgeUnits
            for _ in 0..<(Int(node.terminalCount) + Int(node.restCount)) {
                var info = target.load(fromByteOffset: entry * unit, as: RouteEntry.self)
                guard part.renumber(&info) else { return nil }
                target.storeBytes(of: info, toByteOffset: entry * unit, as: RouteEntry.self)
                entry += RouteEntry.units(spanCount: Int(info.spanCount))
            }
            position = entry
            nodes += 1
        }
        return position == base + length ? nodes : nil
    }

    /// A long key's edge word after its bytes are copied from `source` to the end of `keys`:
    /// the same hash, the new offset.
    private static func copyKey(
        of edge: Edge, from source: UnsafeBufferPointer<UInt8>, to keys: inout [UInt8]
    ) -> UInt64 {
        let start = Int(edge.word >> 32)
        let offset = UInt64(keys.count)
        keys.append(contentsOf: source[start..<start + Int(edge.keyLength)])
        return edge.word & 0xFFFF_FFFF | offset << 32
    }

    /// Writes a route's entry and its capture bytes at `position`.
    private static func writeEntry(
        route: Int32, facts: RouteFacts, captures: [UInt8], into raw: UnsafeMutableRawBufferPointer, at position: Int
    ) {
        raw.storeBytes(
            of: RouteEntry(
                route: route, checkStart: facts.checkStart, checkCount: facts.checkCount, spanCount: facts.captureCount,
                isBareCatchAll: facts.isBareCatchAll),
            toByteOffset: position * unit, as: RouteEntry.self)
        let first = Int(facts.captureStart)
        for (k, capture) in captures[first..<first + Int(facts.captureCount)].enumerated() {
            raw.storeBytes(of: capture, toByteOffset: position * unit + RouteEntry.captureOffset + k, as: UInt8.self)
        }
    }

    // MARK: Reading a compiled trie

    /// Calls `body` with each constant edge of `node` (its list, or its table's filled slots).
    func forEachEdge(of node: Node, _ body: (Edge) -> Void) {
        if node.tableStart >= 0 {
            for k in 0..<Self.tableCapacity(Int(node.edgeCount)) {
                let edge = edge(at: Int(node.tableStart) + k)
                if edge.keyLength >= 0 { body(edge) }
            }
        } else {
            for k in 0..<Int(node.edgeCount) { body(edge(at: Int(node.edgeStart) + k)) }
        }
    }

    /// An edge's key bytes.
    func keyBytes(_ edge: Edge) -> [UInt8] {
        let length = Int(edge.keyLength)
        if length <= Edge.shortKeyLimit {
            return (0..<length).map { UInt8(truncatingIfNeeded: edge.word >> UInt64(8 * $0)) }
        }
        let start = Int(edge.word >> 32)
        return Array(keys[start..<start + length])
    }

    /// Calls `body` with every route entry in units `start..<end` (a run of whole nodes);
    /// false when the run does not end at a node's end.
    func forEachEntry(from start: Int, to end: Int, _ body: (RouteEntry) -> Void) -> Bool {
        var position = start
        while position < end {
            let node = node(at: Int32(position))
            let counts = Self.routeCounts(node, Int32(position), large: largeCounts)
            var entry =
                position + Self.nodeUnits
                + (node.tableStart >= 0 ? Self.tableCapacity(Int(node.edgeCount)) : Int(node.edgeCount))
            for _ in 0..<(counts.terminal + counts.rest) {
                body(self.entry(at: entry))
                entry += entryUnits(at: entry)
            }
            position = entry
        }
        return position == end
    }
}

/// Which routes of a previous list a new list kept: the shortest edit script between them
/// (E. W. Myers, "An O(ND) Difference Algorithm and Its Variations", 1986), after the common
/// first and last routes are set aside. Kept routes keep their order, so renumbering them
/// keeps every trie node's routes in declaration order.
struct RouteDiff {
    /// Each previous route's new number, or -1 when it was removed.
    var kept: [Int32]
    /// Previous routes that were removed, and new routes that were added, in order.
    var removed: [Int] = []
    var added: [Int] = []

    /// From each new route's kept old route (-1: added), in order.
    init(keptByNew: [Int32], oldCount: Int) {
        kept = [Int32](repeating: -1, count: oldCount)
        for (new, old) in keptByNew.enumerated() {
            if old >= 0 { kept[Int(old)] = Int32(new) } else { added.append(new) }
        }
        removed = (0..<oldCount).filter { kept[$0] < 0 }
    }

    /// nil when more than `maxEdits` removals and additions are needed.
    init?(from oldCount: Int, to newCount: Int, maxEdits: Int, same: (Int, Int) -> Bool) {
        kept = [Int32](repeating: -1, count: oldCount)
        var prefix = 0
        while prefix < min(oldCount, newCount), same(prefix, prefix) {
            kept[prefix] = Int32(prefix)
            prefix += 1
        }
        var suffix = 0
        while suffix < min(oldCount, newCount) - prefix, same(oldCount - 1 - suffix, newCount - 1 - suffix) {
            kept[oldCount - 1 - suffix] = Int32(newCount - 1 - suffix)
            suffix += 1
        }
        // The middle: a[0..<n] against b[0..<m].
        let n = oldCount - prefix - suffix
        let m = newCount - prefix - suffix
        guard abs(n - m) <= maxEdits else { return nil }
        func equal(_ x: Int, _ y: Int) -> Bool { same(prefix + x, prefix + y) }
        // v[k + offset]: how far along `a` the furthest path with d edits reaches on diagonal
        // k (x - y); each step's v is kept to walk the path back.
        let offset = maxEdits + 1
        var v = [Int](repeating: 0, count: 2 * offset + 1)
        var trace: [[Int]] = []
        var found: Int?
        search: for d in 0...maxEdits {
            trace.append(v)
            for k in stride(from: -d, through: d, by: 2) {
                var x =
                    k == -d || (k != d && v[k - 1 + offset] < v[k + 1 + offset])
                    ? v[k + 1 + offset] : v[k - 1 + offset] + 1
                var y = x - k
                while x < n, y < m, equal(x, y) {
                    x += 1
                    y += 1
                }
                v[k + offset] = x
                if x >= n, y >= m {
                    found = d
                    break search
                }
            }
        }
        guard let edits = found else { return nil }
        // Back from the end: each step's diagonal run is kept, its one edit is not.
        var x = n
        var y = m
        var addedMiddle: [Int] = []
        for d in stride(from: edits, to: 0, by: -1) {
            let v = trace[d]
            let k = x - y
            let down = k == -d || (k != d && v[k - 1 + offset] < v[k + 1 + offset])
            let previousK = down ? k + 1 : k - 1
            let previousX = v[previousK + offset]
            let previousY = previousX - previousK
            while x > previousX, y > previousY {
                x -= 1
                y -= 1
                kept[prefix + x] = Int32(prefix + y)
            }
            if down { addedMiddle.append(prefix + previousY) } else { removed.append(prefix + previousX) }
            x = previousX
            y = previousY
        }
        while x > 0, y > 0 {
            x -= 1
            y -= 1
            kept[prefix + x] = Int32(prefix + y)
        }
        removed.reverse()
        added = addedMiddle.reversed()
    }
}

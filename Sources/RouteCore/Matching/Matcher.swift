#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Matches request paths against every route at once: a trie compiled from the patterns,
/// walked depth-first in rank order.
///
/// Ranking (docs/dsl.md, "Ranking"): the most specific route wins, segment by segment from the left:
/// constant > validated parameter > parameter > `:_` > `...`; a pattern that ends beats one
/// that continues with `...`; whole-path regex routes come after every pattern route but a
/// bare `...`; equal ranks go to the earlier declaration. Trying a node's edges in that order
/// makes the first complete match the winner, and each trie node is visited at most once per
/// lookup. Validators run only once a route has matched structurally.
///
/// ```swift
/// let matcher = try Matcher(routes: [
///     RouteDefinition(pattern: Pattern("teams/:id")),
///     RouteDefinition(pattern: Pattern("teams/new")),
/// ])
/// try matcher.match("teams/new")?.route   // 1: a constant beats a parameter
/// ```
///
/// - Complexity: O(request length + visited trie nodes); a constant-only match allocates
///   nothing.
// Unchecked: the compiled arrays live behind raw pointers (one allocation, see `storage`),
// written once in `init` and only read afterwards; nothing mutates a matcher once it exists,
// so sharing one between threads is safe.
public final class Matcher: @unchecked Sendable {
    /// Each route's parameter names, in pattern order.
    public let parameterNames: ParameterNames

    /// A trie node: 32 bytes (two units of the trie). Its constant edges (or its table of them)
    /// follow it in the trie, then the routes that end at it (``RouteEntry``), so a lookup reads
    /// a node, its edges and its routes from adjacent memory. `edgeStart`, `tableStart`,
    /// `routeStart`, `validated`, `parameter`, `wildcard` and an edge's `child` are unit
    /// positions in the trie.
    struct Node {
        /// `terminalCount` and `restCount` read this when the real counts are in `largeCounts`.
        static let countOverflow = UInt16.max

        var edgeStart: Int32 = 0
        var edgeCount: Int32 = 0
        /// The node's open-addressing table of edges in `slots` (more than `linearScanLimit`
        /// edges; then `edgeStart` is unused), or -1; its capacity follows from `edgeCount`
        /// (``Matcher/tableCapacity(_:)``).
        var tableStart: Int32 = -1
        var validated: Int32 = -1
        var parameter: Int32 = -1
        var wildcard: Int32 = -1
        /// Where the node's route entries start: its terminal routes, then its rest routes.
        var routeStart: Int32 = 0
        var terminalCount: UInt16 = 0
        var restCount: UInt16 = 0
    }

    /// A constant edge: 16 bytes. A key of at most 8 bytes is kept in the edge itself
    /// (``Matcher/shortKey(_:_:available:)``), so matching it reads no other memory; a longer
    /// key keeps its hash (low 32 bits) and its offset in `keys` (high 32 bits).
    struct Edge {
        var word: UInt64
        var keyLength: Int32
        var child: Int32

        static let shortKeyLimit = 8

        /// An empty slot of a node's table.
        static let empty = Edge(word: 0, keyLength: -1, child: -1)

        private init(word: UInt64, keyLength: Int32, child: Int32) {
            self.word = word
            self.keyLength = keyLength
            self.child = child
        }

        init(key: UnsafeBufferPointer<UInt8>, hash: UInt32, keyStart: Int32, child: Int32) {
            keyLength = Int32(key.count)
            self.child = child
            if key.count <= Self.shortKeyLimit {
                var word: UInt64 = 0
                for (offset, byte) in key.enumerated() { word |= UInt64(byte) << UInt64(8 * offset) }
                self.word = word
            } else {
                word = UInt64(hash) | UInt64(UInt32(bitPattern: keyStart)) << 32
            }
        }
    }

    /// A segment of at most 8 bytes as an edge keeps a short key: its bytes in one word, the
    /// first byte lowest, zero-padded. `available` is how many bytes may be read from `base`.
    @inline(__always)
    static func shortKey(_ base: UnsafePointer<UInt8>, _ length: Int, available: Int) -> UInt64 {
        if available >= 8 {
            let raw = UInt64(littleEndian: UnsafeRawPointer(base).loadUnaligned(as: UInt64.self))
            return length == 8 ? raw : raw & ((1 << UInt64(8 * length)) - 1)
        }
        var word: UInt64 = 0
        for offset in 0..<length { word |= UInt64(base[offset]) << UInt64(8 * offset) }
        return word
    }

    /// A validator to run on a route's segment once the route matched structurally, or (with
    /// a negative `validator`) the count of segments a rest segment takes: 12 bytes.
    struct Check {
        var segment: Int32
        var isRest: Bool
        /// An optional parameter's validator: not run when the parameter is absent.
        var skipsAbsent = false
        var validator: Int32

        /// `validator` of a check that at most one segment is left (`:name?`).
        static let atMostOne: Int32 = -1
        /// `validator` of a check that at least one segment is left (`:name+`).
        static let atLeastOne: Int32 = -2
        /// `segment` of a check of the request's query: `validator` is the schema's index.
        static let query: Int32 = -1
    }

    /// A route's compiled facts, kept in the trie right after the node the route ends at (each
    /// pattern route ends at exactly one node): a lookup that reaches the node finds the route,
    /// its checks and its captures in the same few cache lines. One unit: these 11 bytes, then
    /// one byte per capture (its segment position, the high bit set for a `...name` rest; a
    /// pattern has at most 128 segments, so a position fits seven bits), five in the entry's
    /// unit and the rest in the units that follow it.
    struct RouteEntry {
        var route: Int32
        var checkStart: Int32
        var checkCount: UInt8
        var spanCount: UInt8
        var isBareCatchAll: Bool

        /// Where an entry's capture bytes start, from the entry's first byte.
        static let captureOffset = 11

        /// The units an entry takes with `spanCount` captures.
        static func units(spanCount: Int) -> Int {
            1 + (max(0, captureOffset + spanCount - Matcher.unit) + Matcher.unit - 1) / Matcher.unit
        }
    }

    /// A route's facts while the trie is built: the entry's, its capture bytes (as in
    /// ``RouteEntry``) in one array for all routes.
    struct RouteFacts {
        var checkStart: Int32
        var checkCount: UInt8
        var isBareCatchAll: Bool
        var captureStart: Int32
        var captureCount: UInt8
    }

    /// Every compiled array lives in one allocation (`storage`): fewer allocator headers and
    /// one free.
    private let storage: UnsafeMutableRawPointer
    /// The trie in 16-byte units: each node (two units) followed by its constant edges (one
    /// unit each) or, with more than `linearScanLimit` of them, by its open-addressing table
    /// of them (the edges themselves at their hash's slot), then its route entries; nodes in
    /// depth-first pre-order (``preorder(_:)``). A node's position is the unit it starts at;
    /// the root's is 0.
    let trie: UnsafeRawPointer
    let unitCount: Int
    public let nodeCount: Int
    let keys: UnsafeMutableBufferPointer<UInt8>
    let checks: UnsafeMutableBufferPointer<Check>
    /// Node route counts over 65,534 (see ``Node/countOverflow``).
    let largeCounts: [Int32: (terminal: Int32, rest: Int32)]
    let validators: [Validator]
    /// The query schemas of the routes that declare one (a check's `validator` indexes them).
    let querySchemas: [QuerySchema]
    /// Whole-path regex routes, in declaration order, with their query schemas.
    let regexRoutes: [(route: Int, regex: PathRegex, query: QuerySchema?)]

    /// Nodes with more constant edges than this get a hash table.
    static let linearScanLimit = 6

    /// Compiles the routes. The matcher keeps only what matching needs (the trie, the
    /// validators, the regexes and the parameter names), not the definitions.
    public convenience init(routes: [RouteDefinition]) {
        self.init(Self.compile(routes))
    }

    /// What a matcher holds, before it is copied into its arena.
    struct Compiled {
        /// The trie: `unitCount` units of ``unit`` bytes.
        var units: [UInt8]
        var unitCount: Int
        var nodeCount: Int
        var keys: [UInt8]
        var checks: [Check]
        var largeCounts: [Int32: (terminal: Int32, rest: Int32)]
        var validators: [Validator]
        var querySchemas: [QuerySchema]
        var regexRoutes: [(route: Int, regex: PathRegex, query: QuerySchema?)]
        var names: ParameterNames
    }

    init(_ compiled: Compiled) {
        // One allocation: the trie and the 4-byte-aligned arrays first, then the byte arrays.
        var layout = ArenaLayout()
        let trieOffset = layout.reserve(Edge.self, compiled.unitCount)
        let checkOffset = layout.reserve(Check.self, compiled.checks.count)
        let keyOffset = layout.reserve(UInt8.self, compiled.keys.count)
        let storage = Self.allocateArena(byteCount: max(1, layout.size))
        self.storage = storage
        (storage + trieOffset).copyMemory(from: compiled.units, byteCount: compiled.unitCount * Self.unit)
        self.trie = UnsafeRawPointer(storage + trieOffset)
        self.unitCount = compiled.unitCount
        self.nodeCount = compiled.nodeCount
        self.checks = .copying(compiled.checks, into: storage, at: checkOffset)
        self.keys = .copying(compiled.keys, into: storage, at: keyOffset)
        self.largeCounts = compiled.largeCounts
        self.validators = compiled.validators
        self.querySchemas = compiled.querySchemas
        self.regexRoutes = compiled.regexRoutes
        self.parameterNames = compiled.names
    }

    /// Compiles every route.
    static func compile(_ routes: [RouteDefinition]) -> Compiled {
        var builder = TrieBuilder(capacity: routes.count)
        var regexRoutes: [(route: Int, regex: PathRegex, query: QuerySchema?)] = []
        var allChecks: [Check] = []
        var querySchemas: [QuerySchema] = []
        var facts: [RouteFacts] = []
        facts.reserveCapacity(routes.count)
        var captures: [UInt8] = []
        var validators: [Validator] = []
        var names: ParameterNames.Builder? = ParameterNames.Builder()
        // By position: an enumerated loop copied every definition.
        for index in routes.indices {
            let checkStart = Int32(allChecks.count)
            switch routes[index].shape {
            case .regex(let regex):
                regexRoutes.append((index, regex, routes[index].querySchema))
                names?.endRoute()
                facts.append(
                    RouteFacts(
                        checkStart: checkStart, checkCount: 0, isBareCatchAll: false,
                        captureStart: Int32(captures.count), captureCount: 0))
            case .pattern(let pattern):
                let routeValidators = routes[index].validators
                // Most routes have none: no lookup (and no hashing) then.
                let validated = !routeValidators.isEmpty
                builder.add(route: Int32(index), pattern) { validated && routeValidators[$0] != nil }
                if routes[index].hasChecks {
                    appendChecks(
                        of: pattern, routeValidators, query: routes[index].querySchema, to: &allChecks, &validators,
                        &querySchemas)
                }
                facts.append(
                    routeFacts(
                        of: pattern, checkStart: checkStart, checkEnd: Int32(allChecks.count), captures: &captures,
                        names: &names))
                names?.endRoute()
            }
        }
        let flat = builder.build(linearScanLimit: Self.linearScanLimit)
        let units = Self.interleave(flat, facts: facts, captures: captures)
        return Compiled(
            units: units.bytes, unitCount: units.count, nodeCount: flat.nodes.count, keys: flat.keys,
            checks: allChecks, largeCounts: units.largeCounts, validators: validators, querySchemas: querySchemas,
            regexRoutes: regexRoutes,
            names: names?.finish() ?? ParameterNames(unique: [], indexes: [], starts: [0]))
    }

    /// Whether a pattern's last segment takes a bounded count of segments (`:name?`, `:name+`),
    /// which a check counts.
    static func needsCount(_ pattern: Pattern) -> Bool {
        switch pattern.segments.last {
        case .optional, .oneOrMore: true
        default: false
        }
    }

    /// A pattern route's checks: the count a `:name?` or `:name+` takes, then one per
    /// validated parameter, in pattern order, its validator appended to `validators`, then its
    /// query's (the schema appended to `schemas`).
    static func appendChecks(
        of pattern: Pattern, _ routeValidators: [String: Validator], query: QuerySchema?, to checks: inout [Check],
        _ validators: inout [Validator], _ schemas: inout [QuerySchema]
    ) {
        defer {
            if let query {
                checks.append(Check(segment: Check.query, isRest: false, validator: Int32(schemas.count)))
                schemas.append(query)
            }
        }
        let last = Int32(pattern.segments.count - 1)
        switch pattern.segments.last {
        case .optional: checks.append(Check(segment: last, isRest: true, validator: Check.atMostOne))
        case .oneOrMore: checks.append(Check(segment: last, isRest: true, validator: Check.atLeastOne))
        default: break
        }
        for (position, segment) in pattern.segments.enumerated() {
            guard let name = segment.parameterName, let validator = routeValidators[name] else { continue }
            var isOptional = false
            if case .optional = segment { isOptional = true }
            checks.append(
                Check(
                    segment: Int32(position), isRest: segment.isRest, skipsAbsent: isOptional,
                    validator: Int32(validators.count)))
            validators.append(validator)
        }
    }

    /// A pattern route's facts, its capture bytes appended to `captures` (and its parameter
    /// names to `names`, when given); its checks are `checkStart..<checkEnd`.
    static func routeFacts(
        of pattern: Pattern, checkStart: Int32, checkEnd: Int32, captures: inout [UInt8],
        names: inout ParameterNames.Builder?
    ) -> RouteFacts {
        let captureStart = Int32(captures.count)
        for (position, segment) in pattern.segments.enumerated() {
            guard let name = segment.parameterName else { continue }
            let isRest = segment.isRest
            // A pattern has at most 128 segments (Pattern refuses more): seven bits.
            captures.append(UInt8(truncatingIfNeeded: position) & 0x7F | (isRest ? 0x80 : 0))
            var isOptional = false
            if case .optional = segment { isOptional = true }
            names?.add(name, optional: isOptional)
        }
        // A pattern has at most 128 segments (Pattern refuses more), so the counts fit.
        return RouteFacts(
            checkStart: checkStart, checkCount: UInt8(clamping: checkEnd - checkStart),
            isBareCatchAll: pattern.isBareCatchAll, captureStart: captureStart,
            captureCount: UInt8(clamping: Int32(captures.count) - captureStart))
    }

    deinit {
        storage.deallocate()
    }

    /// The arena. One of 2 MiB and more (about 10k routes and up) is aligned to 2 MiB and asks
    /// Linux for transparent huge pages (advice: without them it works as before): a lookup's
    /// nodes are spread over the whole trie, 14 MB at 100k routes, which 4 KiB pages cover with
    /// thousands of TLB entries. Measured (docs/performance.md): 0.85–0.90× the lookup time
    /// at 100k routes in paired runs.
    private static func allocateArena(byteCount: Int) -> UnsafeMutableRawPointer {
        #if os(Linux)
            let hugePage = 2 << 20
            if byteCount >= hugePage {
                let rounded = (byteCount + hugePage - 1) / hugePage * hugePage
                let storage = UnsafeMutableRawPointer.allocate(byteCount: rounded, alignment: hugePage)
                _ = madvise(storage, rounded, MADV_HUGEPAGE)
                return storage
            }
        #endif
        return UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 16)
    }

    /// A node's terminal and rest route counts: its own, or `large[key]` when they overflowed
    /// (`key`: the node's position in the trie, or its index in the builder's arrays).
    @inline(__always)
    static func routeCounts(
        _ node: Node, _ key: Int32, large: [Int32: (terminal: Int32, rest: Int32)]
    ) -> (terminal: Int, rest: Int) {
        if node.terminalCount != Node.countOverflow { return (Int(node.terminalCount), Int(node.restCount)) }
        let counts = large[key] ?? (0, 0)
        return (Int(counts.terminal), Int(counts.rest))
    }

    /// Bytes held by the compiled trie (not counting the route definitions).
    public var compiledBytes: Int {
        unitCount * Self.unit + keys.count + checks.count * MemoryLayout<Check>.stride
    }

    /// The trie's unit: an edge's size (16 bytes); a node takes as many as it needs (two).
    static let unit = MemoryLayout<Edge>.stride
    static let nodeUnits = (MemoryLayout<Node>.size + unit - 1) / unit

    /// The builder's arrays laid out as the trie: each node, then its edges or its table, then
    /// its route entries; every reference (children, edge, table and route starts, large
    /// counts) turned into unit positions.
    static func interleave(
        _ flat: TrieBuilder.Flat, facts: [RouteFacts], captures: [UInt8]
    ) -> (bytes: [UInt8], count: Int, largeCounts: [Int32: (terminal: Int32, rest: Int32)]) {
        /// A builder node's routes (terminal, then rest) in `flat.routeLists`.
        func routes(_ index: Int, _ node: Node) -> ArraySlice<Int32> {
            let counts = routeCounts(node, Int32(index), large: flat.largeCounts)
            let start = Int(node.routeStart)
            return flat.routeLists[start..<start + counts.terminal + counts.rest]
        }
        func edgeUnits(_ node: Node) -> Int {
            node.tableStart >= 0 ? tableCapacity(Int(node.edgeCount)) : Int(node.edgeCount)
        }
        var position = [Int32](repeating: 0, count: flat.nodes.count)
        var count = 0
        for index in preorder(flat) {
            let node = flat.nodes[index]
            position[index] = Int32(count)
            count += nodeUnits + edgeUnits(node)
            for route in routes(index, node) {
                count += RouteEntry.units(spanCount: Int(facts[Int(route)].captureCount))
            }
        }
        var bytes = [UInt8](repeating: 0, count: count * unit)
        bytes.withUnsafeMutableBytes { raw in
            func moved(_ edge: Edge) -> Edge {
                var edge = edge
                if edge.child >= 0 { edge.child = position[Int(edge.child)] }
                return edge
            }
            for (index, old) in flat.nodes.enumerated() {
                let at = Int(position[index])
                var node = old
                node.validated = old.validated >= 0 ? position[Int(old.validated)] : -1
                node.parameter = old.parameter >= 0 ? position[Int(old.parameter)] : -1
                node.wildcard = old.wildcard >= 0 ? position[Int(old.wildcard)] : -1
                let first = at + nodeUnits
                if old.tableStart >= 0 {
                    node.tableStart = Int32(first)
                    node.edgeStart = 0
                    for k in 0..<tableCapacity(Int(old.edgeCount)) {
                        raw.storeBytes(
                            of: moved(flat.slots[Int(old.tableStart) + k]), toByteOffset: (first + k) * unit,
                            as: Edge.self)
                    }
                } else {
                    node.edgeStart = Int32(first)
                    for k in 0..<Int(old.edgeCount) {
                        raw.storeBytes(
                            of: moved(flat.edges[Int(old.edgeStart) + k]), toByteOffset: (first + k) * unit,
                            as: Edge.self)
                    }
                }
                var entry = first + edgeUnits(old)
                node.routeStart = Int32(entry)
                for route in routes(index, old) {
                    let fact = facts[Int(route)]
                    raw.storeBytes(
                        of: RouteEntry(
                            route: route, checkStart: fact.checkStart, checkCount: fact.checkCount,
                            spanCount: fact.captureCount,
                            isBareCatchAll: fact.isBareCatchAll),
                        toByteOffset: entry * unit, as: RouteEntry.self)
                    let first = Int(fact.captureStart)
                    for (k, capture) in captures[first..<first + Int(fact.captureCount)].enumerated() {
                        raw.storeBytes(
                            of: capture, toByteOffset: entry * unit + RouteEntry.captureOffset + k, as: UInt8.self)
                    }
                    entry += RouteEntry.units(spanCount: Int(fact.captureCount))
                }
                raw.storeBytes(of: node, toByteOffset: at * unit, as: Node.self)
            }
        }
        var largeCounts: [Int32: (terminal: Int32, rest: Int32)] = [:]
        for (index, counts) in flat.largeCounts { largeCounts[position[Int(index)]] = counts }
        return (bytes, count, largeCounts)
    }

    /// The builder's nodes in depth-first pre-order, each node's children in the order a
    /// lookup tries them (constants, the validated parameter, the parameter, `:_`): every
    /// subtree is one run of the trie, a node's first child comes right after it, and the
    /// small subtrees near the leaves share cache lines.
    static func preorder(_ flat: TrieBuilder.Flat) -> [Int] {
        var order: [Int] = []
        order.reserveCapacity(flat.nodes.count)
        var work: [Int32] = [0]
        while let index = work.popLast() {
            order.append(Int(index))
            let children = flat.children[Int(index)]
            // Pushed last to first, so the first is laid out next.
            var child = children.start + children.count
            while child > children.start {
                child -= 1
                work.append(child)
            }
        }
        return order
    }

    @inline(__always)
    func entry(at position: Int) -> RouteEntry {
        trie.load(fromByteOffset: position &* Self.unit, as: RouteEntry.self)
    }

    /// The units taken by the entry at `position`.
    @inline(__always)
    func entryUnits(at position: Int) -> Int {
        RouteEntry.units(spanCount: Int(entry(at: position).spanCount))
    }

    /// Capture `k` of the entry at `position`: its segment and whether it is a rest.
    @inline(__always)
    func capture(_ position: Int, _ k: Int) -> (segment: Int, isRest: Bool) {
        let byte = trie.load(
            fromByteOffset: position &* Self.unit &+ RouteEntry.captureOffset &+ k, as: UInt8.self)
        return (Int(byte & 0x7F), byte & 0x80 != 0)
    }

    @inline(__always)
    func node(at position: Int32) -> Node {
        trie.load(fromByteOffset: Int(position) &* Self.unit, as: Node.self)
    }

    @inline(__always)
    func edge(at position: Int) -> Edge {
        trie.load(fromByteOffset: position &* Self.unit, as: Edge.self)
    }

    /// The open-addressing table size for a node with `edgeCount` constant edges: the
    /// smallest power of two at least twice the count.
    @inline(__always)
    static func tableCapacity(_ edgeCount: Int) -> Int {
        1 << (Int.bitWidth - (edgeCount * 2 - 1).leadingZeroBitCount)
    }

    // MARK: Matching

    /// A segment's bytes: offset and length in the buffer being matched, and its hash
    /// (computed once, while splitting: a segment can meet several nodes' edges). 8 bytes,
    /// so 128 of them fit a 1 KiB stack buffer (buffers must hold 64 KiB at most).
    struct SegmentRange {
        var start: UInt16
        var end: UInt16
        var hash: UInt32
    }

    /// The FNV-1a offset basis (the hash of no bytes).
    static let hashBasis: UInt32 = 0x811c_9dc5

    /// The bytes that end a segment or the path, or send a request to the slow path, as bits
    /// of a 64-bit mask (all are below 0x40): `/`, `?`, `#`, `%` and `:` (a scheme).
    private static let specialBytes: UInt64 =
        1 << UInt64(Bytes.slash) | 1 << UInt64(Bytes.question) | 1 << UInt64(Bytes.hash)
        | 1 << UInt64(Bytes.percent) | 1 << UInt64(Bytes.colon)

    /// Matches a raw request string (path, optional scheme and host, query and fragment).
    ///
    /// - Returns: the winning route and its parameters, or nil when nothing matches.
    /// - Throws: ``RouteError`` for a malformed request or a failing predicate.
    public func match(_ request: String) throws(RouteError) -> Match? {
        var request = request
        let outcome: FastOutcome = request.withUTF8 { bytes in fastMatch(bytes) }
        switch outcome {
        case .matched(let route, let spans): return Match(route: route, storage: .raw(request, spans))
        case .matchedPacked(let route, let packed, let count):
            return Match(route: route, storage: .packed(request, packed, count))
        case .noMatch: return nil
        case .regexNeeded, .slowPath: return try match(Request(parsing: request))
        case .failure(let error): throw error
        }
    }

    /// Matches a parsed request: its segments, and its query where a route declares a query
    /// schema.
    public func match(_ request: Request) throws(RouteError) -> Match? {
        try match(segments: request.segments, query: request, filled: nil)
    }

    /// ``match(_:)``, and the winner's query with its schema's defaults filled in (nil when it
    /// declares none): the schema's checks — a script's `where` functions among them — run
    /// once, here, not again by the resolution.
    func match(_ request: Request, filledQuery: inout [String: String]?) throws(RouteError) -> Match? {
        let filled = FilledQuery()
        let match = try match(segments: request.segments, query: request, filled: filled)
        filledQuery = filled.query
        return match
    }

    /// Matches decoded path segments (a route with a query schema sees no query).
    public func match(segments: [String]) throws(RouteError) -> Match? {
        try match(segments: segments, query: nil, filled: nil)
    }

    private func match(segments: [String], query: Request?, filled: FilledQuery?) throws(RouteError) -> Match? {
        // A request's limits (no request has more), which also keep offsets within 16 bits.
        guard segments.count <= Request.maximumSegments else {
            throw RouteError(.invalidRequest, "the path has more than \(Request.maximumSegments) segments")
        }
        var bytes: [UInt8] = []
        var ranges: [SegmentRange] = []
        for segment in segments {
            let start = bytes.count
            bytes.append(contentsOf: segment.utf8)
            guard bytes.count <= Request.maximumPathBytes else {
                throw RouteError(.invalidRequest, "the path is longer than \(Request.maximumPathBytes) bytes")
            }
            let hash = bytes.withUnsafeBufferPointer { Self.hash(UnsafeBufferPointer(rebasing: $0[start...])) }
            ranges.append(SegmentRange(start: UInt16(start), end: UInt16(bytes.count), hash: hash))
        }
        var found: Int32 = -1
        var failure: RouteError?
        bytes.withUnsafeBufferPointer { buffer in
            ranges.withUnsafeBufferPointer { ranges in
                do throws(RouteError) {
                    found =
                        if let query {
                            try search(buffer, ranges, ParsedQuery(request: query, filled: filled))
                        } else {
                            try search(buffer, ranges, NoQuery())
                        }
                } catch { failure = error }
            }
        }
        if let failure { throw failure }
        let winner = found >= 0 ? entry(at: Int(found)) : nil
        if let winner, !winner.isBareCatchAll {
            return Match(
                route: Int(winner.route), storage: .decoded(segments, spans(found, segmentCount: segments.count)))
        }
        if let (route, pairs) = try matchRegex(segments.joined(separator: "/"), query: query, filled: filled) {
            return Match(route: route, storage: .named(pairs))
        }
        if let winner {
            return Match(
                route: Int(winner.route), storage: .decoded(segments, spans(found, segmentCount: segments.count)))
        }
        return nil
    }

    private func matchRegex(
        _ path: String, query: Request?, filled: FilledQuery?
    ) throws(RouteError) -> (Int, [(String, String)])? {
        for (route, regex, schema) in regexRoutes {
            guard let pairs = regex.match(path) else { continue }
            if let schema {
                guard case .fits(let query) = try schema.verdict(query) else { continue }
                filled?.query = query
            }
            return (route, pairs)
        }
        return nil
    }

    /// Segment-index spans of a decoded match (`found`: the winner's entry).
    private func spans(_ found: Int32, segmentCount: Int) -> [Match.Span] {
        let spanCount = Int(entry(at: Int(found)).spanCount)
        var result: [Match.Span] = []
        result.reserveCapacity(spanCount)
        for k in 0..<spanCount {
            let (segment, isRest) = capture(Int(found), k)
            let position = Int32(segment)
            result.append(
                Match.Span(start: position, end: isRest ? Int32(segmentCount) : position + 1, isRest: isRest))
        }
        return result
    }

    enum FastOutcome {
        case matched(Int, [Match.Span])
        /// Up to two spans in one word (``Match/Storage/packed(_:_:_:)``): no allocation.
        case matchedPacked(Int, UInt64, UInt8)
        case noMatch
        case regexNeeded
        /// Escapes to decode, too many segments or bytes, or a query that a route's query
        /// schema must read.
        case slowPath
        case failure(RouteError)
    }

    /// The allocation-free path: one pass over the request bytes finds the path's end (a
    /// `?` or `#`), splits it into segments and hashes each; a `%` (escapes to decode) goes to
    /// the slow path, a `:` to the scheme check.
    private func fastMatch(_ bytes: UnsafeBufferPointer<UInt8>) -> FastOutcome {
        // Longer requests (a long query) take the slow path: offsets are 16 bits.
        guard bytes.count <= Int(UInt16.max) else { return .slowPath }
        return withUnsafeTemporaryAllocation(of: SegmentRange.self, capacity: Request.maximumSegments) { ranges in
            var count = 0
            var segmentStart = 0
            // Locals: statics would be read through their lazy accessors in the loop.
            let basis = Self.hashBasis
            let specials = Self.specialBytes
            let maximumSegments = Request.maximumSegments
            var hash = basis
            var sawColon = false
            var position = 0
            let length = bytes.count
            guard let base = bytes.baseAddress else { return outcome(bytes, UnsafeBufferPointer(start: nil, count: 0)) }
            while position < length {
                let byte = base[position]
                if byte < 0x40 && (specials >> UInt64(byte)) & 1 != 0 {
                    if byte == Bytes.slash {
                        if position > segmentStart {
                            guard count < maximumSegments else { return .slowPath }
                            ranges[count] = SegmentRange(
                                start: UInt16(truncatingIfNeeded: segmentStart),
                                end: UInt16(truncatingIfNeeded: position), hash: hash)
                            count += 1
                        }
                        segmentStart = position + 1
                        hash = basis
                        position += 1
                        continue
                    }
                    if byte == Bytes.percent { return .slowPath }
                    if byte != Bytes.colon { break }  // `?` or `#`: the path ends
                    sawColon = true
                }
                hash = (hash ^ UInt32(byte)) &* 0x0100_0193
                position += 1
            }
            let end = position
            if end > segmentStart {
                guard count < maximumSegments else { return .slowPath }
                ranges[count] = SegmentRange(
                    start: UInt16(truncatingIfNeeded: segmentStart), end: UInt16(truncatingIfNeeded: end), hash: hash)
                count += 1
            }
            var start = 0
            if sawColon, end > 0, let pathStart = Bytes.pathStart(afterSchemeIn: bytes, end: end) {
                // A deep link (`myapp://books/42`): split again from where the path starts.
                start = pathStart
                count = Self.split(bytes, from: start, to: end, into: ranges) ?? -1
                if count < 0 { return .slowPath }
            }
            guard end - start <= Request.maximumPathBytes else { return .slowPath }
            // A query schema reads the parsed query: a request with one goes the parsed way.
            if end < length, base[end] == Bytes.question, !querySchemas.isEmpty { return .slowPath }
            return outcome(bytes, UnsafeBufferPointer(rebasing: ranges[0..<count]))
        }
    }

    /// Searches split segments: the winner, or what the slow path must try (regex routes).
    @inline(__always)
    private func outcome(
        _ bytes: UnsafeBufferPointer<UInt8>, _ segments: UnsafeBufferPointer<SegmentRange>
    ) -> FastOutcome {
        let found: Int32
        do throws(RouteError) { found = try search(bytes, segments, NoQuery()) } catch { return .failure(error) }
        if found < 0 { return regexRoutes.isEmpty ? .noMatch : .regexNeeded }
        if entry(at: Int(found)).isBareCatchAll && !regexRoutes.isEmpty { return .regexNeeded }
        return rawOutcome(found, segments)
    }

    /// The outcome of a raw match (`found`: the winner's entry): spans packed in a word when
    /// there are at most two.
    @inline(__always)
    private func rawOutcome(_ found: Int32, _ segments: UnsafeBufferPointer<SegmentRange>) -> FastOutcome {
        let winner = entry(at: Int(found))
        guard winner.spanCount <= 2 else { return .matched(Int(winner.route), rawSpans(found, segments)) }
        var packed: UInt64 = 0
        for k in 0..<Int(winner.spanCount) {
            packed |= Match.pack(rawSpan(found, k, segments)) << UInt64(32 * k)
        }
        return .matchedPacked(Int(winner.route), packed, winner.spanCount)
    }

    /// The byte span of capture `k` of the entry at `found`.
    @inline(__always)
    private func rawSpan(_ found: Int32, _ k: Int, _ segments: UnsafeBufferPointer<SegmentRange>) -> Match.Span {
        let (position, isRest) = capture(Int(found), k)
        if isRest {
            let last = Int32(segments.last?.end ?? 0)
            let first = position < segments.count ? Int32(segments[position].start) : last
            return Match.Span(start: first, end: max(first, last), isRest: true)
        }
        let segment = segments[position]
        return Match.Span(start: Int32(segment.start), end: Int32(segment.end), isRest: false)
    }

    /// Splits `bytes[start..<end]` into hashed segments; nil when there are too many.
    private static func split(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int,
        into ranges: UnsafeMutableBufferPointer<SegmentRange>
    ) -> Int? {
        var count = 0
        var segmentStart = start
        var hash = hashBasis
        for position in start...end {
            if position == end || bytes[position] == Bytes.slash {
                if position > segmentStart {
                    guard count < ranges.count else { return nil }
                    ranges[count] = SegmentRange(
                        start: UInt16(truncatingIfNeeded: segmentStart), end: UInt16(truncatingIfNeeded: position),
                        hash: hash)
                    count += 1
                }
                segmentStart = position + 1
                hash = hashBasis
            } else {
                hash = (hash ^ UInt32(bytes[position])) &* 0x0100_0193
            }
        }
        return count
    }

    /// Byte spans of a raw match (one allocation when the route has parameters).
    private func rawSpans(_ found: Int32, _ segments: UnsafeBufferPointer<SegmentRange>) -> [Match.Span] {
        let count = Int(entry(at: Int(found)).spanCount)
        guard count > 0 else { return [] }
        // (reserve + append: `init(unsafeUninitializedCapacity:)` looks up generic metadata
        // at run time, which costs more than the match.)
        var spans: [Match.Span] = []
        spans.reserveCapacity(count)
        for k in 0..<count { spans.append(rawSpan(found, k, segments)) }
        return spans
    }

    // MARK: The search

    /// The depth-first search over the trie; returns the winning route's entry or -1.
    /// `query`: what a route's query schema is checked against (``NoQuery`` for a request
    /// without one: a type of no size, so the search's recursion carries nothing more).
    private func search<Query: QueryInput>(
        _ bytes: UnsafeBufferPointer<UInt8>, _ segments: UnsafeBufferPointer<SegmentRange>, _ query: Query
    )
        throws(RouteError) -> Int32
    {
        try visit(0, 0, bytes, segments, query)
    }

    private func visit<Query: QueryInput>(
        _ nodeIndex: Int32, _ depth: Int, _ bytes: UnsafeBufferPointer<UInt8>,
        _ segments: UnsafeBufferPointer<SegmentRange>, _ query: Query
    ) throws(RouteError) -> Int32 {
        let node = node(at: nodeIndex)
        let (terminalCount, restCount) = Self.routeCounts(node, nodeIndex, large: largeCounts)
        if depth == segments.count {
            // The common end: a first terminal route without validators wins at once.
            if terminalCount > 0 {
                if entry(at: Int(node.routeStart)).checkCount == 0 { return node.routeStart }
                let found = try firstPassing(
                    Int(node.routeStart), skipping: 0, count: terminalCount, bytes, segments, query)
                if found >= 0 { return found }
            }
            if restCount == 0 { return -1 }
        } else {
            let segment = segments[depth]
            let child = constantChild(node, bytes, segment)
            if child >= 0 {
                let found = try visit(child, depth + 1, bytes, segments, query)
                if found >= 0 { return found }
            }
            if node.validated >= 0 {
                let found = try visit(node.validated, depth + 1, bytes, segments, query)
                if found >= 0 { return found }
            }
            if node.parameter >= 0 {
                let found = try visit(node.parameter, depth + 1, bytes, segments, query)
                if found >= 0 { return found }
            }
            if node.wildcard >= 0 {
                let found = try visit(node.wildcard, depth + 1, bytes, segments, query)
                if found >= 0 { return found }
            }
            if restCount == 0 { return -1 }
        }
        return try firstPassing(
            Int(node.routeStart), skipping: terminalCount, count: restCount, bytes, segments, query)
    }

    /// The first of `count` route entries, after skipping `skipped` from `start`, whose route
    /// passes its validators, or -1. (Kept out of `visit`, which stays small enough for
    /// `constantChild` to be inlined into it.)
    @inline(never)
    private func firstPassing<Query: QueryInput>(
        _ start: Int, skipping skipped: Int, count: Int, _ bytes: UnsafeBufferPointer<UInt8>,
        _ segments: UnsafeBufferPointer<SegmentRange>, _ query: Query
    ) throws(RouteError) -> Int32 {
        var entry = start
        for _ in 0..<skipped { entry += entryUnits(at: entry) }
        for _ in 0..<count {
            if try passes(entry, bytes, segments, query) { return Int32(entry) }
            entry += entryUnits(at: entry)
        }
        return -1
    }

    @inline(__always)
    func constantChild(_ node: Node, _ bytes: UnsafeBufferPointer<UInt8>, _ segment: SegmentRange) -> Int32 {
        guard node.edgeCount > 0 else { return -1 }
        let length = Int(segment.end - segment.start)
        let base = bytes.baseAddress! + Int(segment.start)
        let hash = segment.hash
        // The edge test: a short key compares one word; a long one its hash, then its bytes.
        let isShort = length <= Edge.shortKeyLimit
        let word =
            isShort ? Self.shortKey(base, length, available: bytes.count - Int(segment.start)) : UInt64(hash)
        @inline(__always) func matches(_ edge: Edge) -> Bool {
            guard Int(edge.keyLength) == length else { return false }
            if isShort { return edge.word == word }
            return UInt32(truncatingIfNeeded: edge.word) == hash
                && memoryEqual(keys.baseAddress! + Int(edge.word >> 32), base, length)
        }
        if node.tableStart < 0 {
            for k in 0..<Int(node.edgeCount) {
                let edge = edge(at: Int(node.edgeStart) + k)
                if matches(edge) { return edge.child }
            }
            return -1
        }
        let mask = UInt32(Self.tableCapacity(Int(node.edgeCount)) - 1)
        var slot = hash & mask
        while true {
            let edge = edge(at: Int(node.tableStart) + Int(slot))
            if edge.keyLength < 0 { return -1 }
            if matches(edge) { return edge.child }
            slot = (slot + 1) & mask
        }
    }

    /// Runs the validators of a structurally matched route (its entry at `entryPosition`).
    private func passes<Query: QueryInput>(
        _ entryPosition: Int, _ bytes: UnsafeBufferPointer<UInt8>, _ segments: UnsafeBufferPointer<SegmentRange>,
        _ query: Query
    )
        throws(RouteError) -> Bool
    {
        let info = entry(at: entryPosition)
        guard info.checkCount > 0 else { return true }
        for k in 0..<Int(info.checkCount) {
            let check = checks[Int(info.checkStart) + k]
            if check.segment == Check.query {
                if try !query.fits(querySchemas[Int(check.validator)]) { return false }
                continue
            }
            let position = Int(check.segment)
            if check.validator < 0 {
                let left = segments.count - position
                if check.validator == Check.atMostOne ? left > 1 : left < 1 { return false }
                continue
            }
            if check.skipsAbsent && position >= segments.count { continue }
            let validator = validators[Int(check.validator)]
            if !check.isRest {
                let segment = segments[position]
                let value = UnsafeBufferPointer(
                    start: bytes.baseAddress! + Int(segment.start), count: Int(segment.end - segment.start))
                if let verdict = validator.fastVerdict(value) {
                    if !verdict { return false }
                    continue
                }
                if try !accepts(validator, String(decoding: value, as: UTF8.self)) { return false }
            } else {
                let parts = (position..<segments.count).map { index in
                    let s = segments[index]
                    return String(
                        decoding: UnsafeBufferPointer(
                            start: bytes.baseAddress! + Int(s.start), count: Int(s.end - s.start)),
                        as: UTF8.self)
                }
                if try !accepts(validator, parts.joined(separator: "/")) { return false }
            }
        }
        return true
    }

    private func accepts(_ validator: Validator, _ value: String) throws(RouteError) -> Bool {
        do { return try validator.accepts(value) } catch let error as RouteError { throw error } catch {
            throw RouteError(.script, "\(error)", location: (error as? any LunaError)?.location)
        }
    }

    /// FNV-1a, 32 bits.
    @inline(__always)
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var hash = hashBasis
        for byte in bytes { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
        return hash
    }
}

/// Offsets of several arrays in one allocation.
private struct ArenaLayout {
    var size = 0

    /// The offset of `count` elements of `T`, aligned for `T`.
    mutating func reserve<T>(_ type: T.Type, _ count: Int) -> Int {
        let alignment = MemoryLayout<T>.alignment
        let offset = (size + alignment - 1) / alignment * alignment
        size = offset + MemoryLayout<T>.stride * count
        return offset
    }
}

extension UnsafeMutableBufferPointer {
    /// A buffer over `array.count` elements at `offset` in `storage`, holding a copy of
    /// `array` (trivial element types only; the storage is freed as a whole).
    fileprivate static func copying(
        _ array: [Element], into storage: UnsafeMutableRawPointer, at offset: Int
    )
        -> Self
    {
        let start = (storage + offset).bindMemory(to: Element.self, capacity: array.count)
        let buffer = Self(start: start, count: array.count)
        _ = buffer.initialize(from: array)
        return buffer
    }
}

@inline(__always)
private func memoryEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ length: Int) -> Bool {
    for k in 0..<length where a[k] != b[k] { return false }
    return true
}

/// The parameter names of every route (`matcher.parameterNames[route]`): each distinct name
/// stored once, each route's names as indexes into them. A class: a route's names hold one
/// reference, not one per array.
public final class ParameterNames: Sendable {
    private let unique: [String]
    private let indexes: [Int32]
    private let starts: [Int32]

    init(unique: [String], indexes: [Int32], starts: [Int32]) {
        self.unique = unique
        self.indexes = indexes
        self.starts = starts
    }

    /// The names of route `route`'s parameters, in pattern order.
    /// The names of a tree's route.
    @inlinable
    public subscript(route: RouteID) -> RouteParameterNames { self[route.index] }

    public subscript(route: Int) -> RouteParameterNames {
        RouteParameterNames(table: self, range: Int(starts[route])..<Int(starts[route + 1]))
    }

    /// The names of one route, indexed from 0.
    public struct RouteParameterNames: RandomAccessCollection, Sendable {
        let table: ParameterNames
        let range: Range<Int>

        public var startIndex: Int { 0 }
        public var endIndex: Int { range.count }
        public subscript(position: Int) -> String {
            let number = table.indexes[range.lowerBound + position]
            return table.unique[Int(number < 0 ? ~number : number)]
        }

        /// Whether the last name is an optional parameter's (`:name?`), which is not bound
        /// when the request leaves it out.
        var lastIsOptional: Bool { !range.isEmpty && table.indexes[range.upperBound - 1] < 0 }

        /// The names without the last.
        var droppingLast: RouteParameterNames {
            RouteParameterNames(
                table: table, range: range.lowerBound..<Swift.max(range.lowerBound, range.upperBound - 1))
        }
    }

    /// How many routes the table has names for.
    var routeCount: Int { starts.count - 1 }

    /// The table for a new list of routes: route `r`'s names are those of previous route
    /// `k` when `kept[k] == r`, else those of the next of `added` (by their patterns).
    func renumbered(_ kept: [Int32], count: Int, adding added: [RouteDefinition]) -> ParameterNames {
        var previousOf = [Int32](repeating: -1, count: count)
        for (old, new) in kept.enumerated() where new >= 0 { previousOf[Int(new)] = Int32(old) }
        var builder = Builder(continuing: self)
        builder.indexes.reserveCapacity(indexes.count)
        builder.starts.reserveCapacity(count + 1)
        var next = added.makeIterator()
        for route in 0..<count {
            let old = Int(previousOf[route])
            if old >= 0 {
                builder.indexes.append(contentsOf: indexes[Int(starts[old])..<Int(starts[old + 1])])
            } else {
                for segment in next.next()?.pattern?.segments ?? [] {
                    guard let name = segment.parameterName else { continue }
                    var isOptional = false
                    if case .optional = segment { isOptional = true }
                    builder.add(name, optional: isOptional)
                }
            }
            builder.endRoute()
        }
        let result = builder.finish()
        // Names no route uses any more stay in the table; when they are many, it starts anew.
        guard result.unique.count > 64 + 2 * result.indexes.count else { return result }
        var fresh = Builder()
        for route in 0..<result.routeCount {
            let names = result[route]
            for (position, name) in names.enumerated() {
                fresh.add(name, optional: position == names.count - 1 && names.lastIsOptional)
            }
            fresh.endRoute()
        }
        return fresh.finish()
    }

    struct Builder {
        private var unique = StringInterner()
        fileprivate var indexes: [Int32] = []
        fileprivate var starts: [Int32] = [0]

        init() {}

        /// A builder whose names are numbered as in `table` (no routes yet).
        init(continuing table: ParameterNames) {
            for name in table.unique { _ = unique.number(of: name) }
        }

        /// Adds a route's next name; an optional one (`:name?`) is stored as its number's
        /// complement (negative).
        mutating func add(_ name: String, optional: Bool = false) {
            let number = unique.number(of: name)
            indexes.append(optional ? ~number : number)
        }
        mutating func endRoute() { starts.append(Int32(indexes.count)) }
        mutating func append(_ routeNames: [String]) {
            for name in routeNames { add(name) }
            endRoute()
        }
        func finish() -> ParameterNames { ParameterNames(unique: unique.strings, indexes: indexes, starts: starts) }
    }
}

/// What a route's query schema is checked against during a search.
protocol QueryInput {
    func fits(_ schema: QuerySchema) throws(RouteError) -> Bool
}

/// A request without a query (the raw-string path's, which takes a request with one the
/// parsed way when a route has a schema).
struct NoQuery: QueryInput {
    func fits(_ schema: QuerySchema) throws(RouteError) -> Bool { try schema.accepts(nil) }
}

/// A parsed request's query; the query a fitting schema filled in goes to `filled` (the
/// query check is a route's last, so the last fitting one is the winner's).
struct ParsedQuery: QueryInput {
    let request: Request
    let filled: FilledQuery?
    func fits(_ schema: QuerySchema) throws(RouteError) -> Bool {
        guard case .fits(let query) = try schema.verdict(request) else { return false }
        filled?.query = query
        return true
    }
}

/// Where a search leaves the winner's filled-in query.
final class FilledQuery {
    var query: [String: String]?
}

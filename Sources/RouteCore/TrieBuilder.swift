/// Builds the matcher's trie from patterns, then flattens it into arrays.
struct TrieBuilder {
    final class BuildNode {
        var constants: [String: BuildNode] = [:]
        var constantOrder: [String] = []
        var validated: BuildNode?
        var parameter: BuildNode?
        var wildcard: BuildNode?
        var terminals: [Int32] = []
        var rests: [Int32] = []
    }

    let root = BuildNode()

    /// Adds a pattern; parameters named in `validated` go on the validated-parameter edge.
    mutating func insert(_ pattern: Pattern, validated: Set<String>, route: Int32) {
        var node = root
        for segment in pattern.segments {
            switch segment {
            case .constant(let text):
                if let next = node.constants[text] {
                    node = next
                } else {
                    let next = BuildNode()
                    node.constants[text] = next
                    node.constantOrder.append(text)
                    node = next
                }
            case .parameter(let name):
                if validated.contains(name) {
                    let next = node.validated ?? BuildNode()
                    node.validated = next
                    node = next
                } else {
                    let next = node.parameter ?? BuildNode()
                    node.parameter = next
                    node = next
                }
            case .wildcard:
                let next = node.wildcard ?? BuildNode()
                node.wildcard = next
                node = next
            case .catchAll:
                node.rests.append(route)
                return
            }
        }
        node.terminals.append(route)
    }

    struct Flat {
        var nodes: [Matcher.Node] = []
        var edges: [Matcher.Edge] = []
        var keys: [UInt8] = []
        var slots: [Int32] = []
        var terminals: [Int32] = []
        var rests: [Int32] = []
    }

    /// Numbers the nodes breadth-first and lays out edges, hash tables and route lists.
    func flatten(linearScanLimit: Int) -> Flat {
        var flat = Flat()
        var order: [BuildNode] = [root]
        var ids: [ObjectIdentifier: Int32] = [ObjectIdentifier(root): 0]
        var cursor = 0
        while cursor < order.count {
            let node = order[cursor]
            cursor += 1
            let children =
                node.constantOrder.compactMap { node.constants[$0] }
                + [node.validated, node.parameter, node.wildcard]
                .compactMap { $0 }
            for child in children {
                ids[ObjectIdentifier(child)] = Int32(order.count)
                order.append(child)
            }
        }
        func id(_ node: BuildNode?) -> Int32 { node.map { ids[ObjectIdentifier($0)]! } ?? -1 }
        for node in order {
            var flatNode = Matcher.Node()
            flatNode.edgeStart = Int32(flat.edges.count)
            flatNode.edgeCount = Int32(node.constantOrder.count)
            for text in node.constantOrder {
                let bytes = Array(text.utf8)
                let hash = bytes.withUnsafeBufferPointer {
                    Matcher.hash($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, $0.count)
                }
                flat.edges.append(
                    Matcher.Edge(
                        hash: hash, keyStart: Int32(flat.keys.count), keyLength: Int32(bytes.count),
                        child: id(node.constants[text])))
                flat.keys.append(contentsOf: bytes)
            }
            if node.constantOrder.count > linearScanLimit {
                var capacity = 1
                while capacity < node.constantOrder.count * 2 { capacity <<= 1 }
                flatNode.tableStart = Int32(flat.slots.count)
                flatNode.tableMask = UInt64(capacity - 1)
                var table = [Int32](repeating: -1, count: capacity)
                for k in 0..<node.constantOrder.count {
                    let edgeIndex = Int(flatNode.edgeStart) + k
                    var slot = Int(flat.edges[edgeIndex].hash & flatNode.tableMask)
                    while table[slot] >= 0 { slot = (slot + 1) & (capacity - 1) }
                    table[slot] = Int32(edgeIndex)
                }
                flat.slots.append(contentsOf: table)
            }
            flatNode.validated = id(node.validated)
            flatNode.parameter = id(node.parameter)
            flatNode.wildcard = id(node.wildcard)
            flatNode.terminalStart = Int32(flat.terminals.count)
            flatNode.terminalCount = Int32(node.terminals.count)
            flat.terminals.append(contentsOf: node.terminals.sorted())
            flatNode.restStart = Int32(flat.rests.count)
            flatNode.restCount = Int32(node.rests.count)
            flat.rests.append(contentsOf: node.rests.sorted())
            flat.nodes.append(flatNode)
        }
        return flat
    }
}

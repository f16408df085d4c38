/// Runs a ``RegexProgram`` over UTF-8 bytes as a Pike VM: every live thread advances in
/// lock-step one scalar at a time, threads at the same instruction merge (the one of higher
/// priority wins, as a backtracking engine's first success would), and each thread carries its
/// capture slots.
///
/// - Complexity: O(instructions × scalars) time, O(instructions × slots) memory.
struct PikeVM {
    private let program: RegexProgram
    private let slotCount: Int
    /// The explicit stack of the closure walk: `pc >= 0` explores an instruction, `pc < 0`
    /// restores slot `-pc - 1` to `value`.
    private var stack: [(pc: Int32, value: Int)] = []
    private var scratch: [Int]

    init(_ program: RegexProgram, captures: Bool) {
        self.program = program
        slotCount = captures ? program.slotCount : 0
        scratch = Array(repeating: -1, count: slotCount)
    }

    /// The capture slots (byte offsets, -1 when a group did not take part) when the program
    /// matches the whole of `bytes`, else nil.
    mutating func wholeMatch(_ bytes: UnsafeBufferPointer<UInt8>) -> [Int]? {
        var current = ThreadList(size: program.instructions.count, slotCount: slotCount)
        var following = ThreadList(size: program.instructions.count, slotCount: slotCount)
        for k in 0..<slotCount { scratch[k] = -1 }
        addThread(to: &current, 0, at: 0, bytes)
        var position = 0
        let end = bytes.count
        while true {
            var scalar: UInt32 = 0
            var width = 0
            if position < end { (scalar, width) = UTF8Scalars.decode(bytes, at: position) }
            following.clear()
            var k = 0
            while k < current.count {
                let pc = Int(current.dense[k])
                let instruction = program.instructions[pc]
                switch instruction.op {
                case .match:
                    if position == end {
                        // The thread of highest priority that ends here is the match.
                        return Array(current.slots[(k * slotCount)..<((k + 1) * slotCount)])
                    }
                case .scalar, .set:
                    if width > 0, program.consumes(pc, scalar) {
                        for s in 0..<slotCount { scratch[s] = current.slots[k * slotCount + s] }
                        addThread(to: &following, Int32(pc + 1), at: position + width, bytes)
                    }
                default: break
                }
                k += 1
            }
            if position == end || following.count == 0 { return nil }
            swap(&current, &following)
            position += width
        }
    }

    /// Adds the thread at `pc` with the slots in `scratch`, following every instruction that
    /// consumes nothing, in priority order.
    private mutating func addThread(
        to list: inout ThreadList, _ start: Int32, at position: Int, _ bytes: UnsafeBufferPointer<UInt8>
    ) {
        stack.append((start, 0))
        while let (top, value) = stack.popLast() {
            if top < 0 {
                scratch[Int(-top - 1)] = value
                continue
            }
            var pc = top
            walk: while true {
                var instruction = program.instructions[Int(pc)]
                // A loop's back edge is not a state of its own: whether it goes back to the
                // head or, after an empty iteration, on to the exit depends on the head alone
                // (so a second empty iteration through it still reaches the exit).
                while instruction.op == .loop || instruction.op == .splitLoop {
                    if instruction.op == .splitLoop, !list.contains(instruction.b) {
                        stack.append((instruction.b, 0))
                    }
                    pc = list.contains(instruction.a) ? instruction.b : instruction.a
                    instruction = program.instructions[Int(pc)]
                }
                if list.contains(pc) { break walk }
                let index = list.insert(pc)
                switch instruction.op {
                case .jump:
                    pc = instruction.a
                case .split:
                    stack.append((instruction.b, 0))
                    pc = instruction.a
                case .loop, .splitLoop:
                    break walk  // handled above
                case .save:
                    let slot = Int(instruction.a)
                    if slot < slotCount {
                        stack.append((-Int32(slot) - 1, scratch[slot]))
                        scratch[slot] = position
                    }
                    pc += 1
                case .assert:
                    guard Self.holds(instruction.a, at: position, bytes) else { break walk }
                    pc += 1
                case .scalar, .set, .match:
                    for s in 0..<slotCount { list.slots[index * slotCount + s] = scratch[s] }
                    break walk
                }
            }
        }
    }

    /// Whether assertion `kind` (a ``RegexAssertion`` raw value) holds at `position`.
    static func holds(_ kind: Int32, at position: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let end = bytes.count
        switch RegexAssertion(rawValue: UInt8(kind)) {
        case .start: return position == 0
        case .end: return position == end
        case .endBeforeFinalNewline: return position == end || (position == end - 1 && bytes[position] == 10)
        case .wordBoundary, .notWordBoundary:
            let before = position > 0 && UTF8Scalars.isWord(bytes[position - 1])
            let after = position < end && UTF8Scalars.isWord(bytes[position])
            return (before != after) == (kind == Int32(RegexAssertion.wordBoundary.rawValue))
        case nil: return false
        }
    }
}

/// A sparse set of instruction indices in insertion (priority) order, with each member's
/// capture slots.
struct ThreadList {
    var dense: [Int32]
    var sparse: [Int32]
    var count = 0
    var slots: [Int]

    init(size: Int, slotCount: Int) {
        dense = Array(repeating: 0, count: size)
        sparse = Array(repeating: 0, count: size)
        slots = Array(repeating: -1, count: size * slotCount)
    }

    @inline(__always)
    func contains(_ pc: Int32) -> Bool {
        let index = Int(sparse[Int(pc)])
        return index < count && dense[index] == pc
    }

    /// Inserts `pc` (not a member) and returns its index.
    @inline(__always)
    mutating func insert(_ pc: Int32) -> Int {
        sparse[Int(pc)] = Int32(count)
        dense[count] = pc
        count += 1
        return count - 1
    }

    mutating func clear() { count = 0 }
}

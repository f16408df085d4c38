/// A regular expression compiled to a Thompson NFA: a list of instructions that the Pike VM
/// (``PikeVM``) and the DFA builder (``RegexDFA``) run.
///
/// Threads at the same instruction and position are merged, so a run is O(instructions ×
/// input scalars) whatever the pattern: `(a+)+$` cannot backtrack because nothing backtracks.
struct RegexProgram: Sendable {
    /// The most instructions a program may have once counted repetitions are written out.
    static let maximumInstructions = 20_000

    enum Op: UInt8, Sendable {
        /// Consumes the scalar `a`.
        case scalar
        /// Consumes a scalar of `sets[a]`.
        case set
        /// Goes on at `a`, then (lower priority) at `b`.
        case split
        /// Goes on at `a`.
        case jump
        /// The back edge of a loop: goes on at the loop head `a`, or, when the head was already
        /// reached at this position (the iteration matched the empty string), leaves the loop at `b`.
        case loop
        /// A greedy `+`'s test: repeat at the head `a` (with ``loop``'s rule), else leave at `b`.
        case splitLoop
        /// Records the position in capture slot `a`.
        case save
        /// Goes on when ``RegexAssertion`` `a` holds at the position.
        case assert
        /// The end of the expression.
        case match
    }

    struct Instruction: Sendable {
        var op: Op
        var a: Int32 = 0
        var b: Int32 = 0
    }

    var instructions: [Instruction] = []
    var sets: [ScalarSet] = []
    /// Two slots (start, end) per capturing group.
    var slotCount = 0
    /// Which assertions the program uses.
    var usesWordBoundaries = false
    var usesFinalNewline = false

    /// Compiles a parsed expression.
    ///
    /// - Throws: when the program would pass ``maximumInstructions``.
    init(_ node: RegexNode, captureCount: Int) throws(RegexSyntaxError) {
        slotCount = 2 * captureCount
        try emit(node)
        try append(Instruction(op: .match))
    }

    private mutating func append(_ instruction: Instruction) throws(RegexSyntaxError) {
        guard instructions.count < Self.maximumInstructions else {
            throw RegexSyntaxError(
                message: "the expression is too large once its repetitions are written out "
                    + "(more than \(Self.maximumInstructions) steps); use smaller counts", offset: 0)
        }
        instructions.append(instruction)
    }

    private var next: Int32 { Int32(instructions.count) }

    private mutating func emit(_ node: RegexNode) throws(RegexSyntaxError) {
        switch node {
        case .empty: break
        case .set(let set, _):
            if set.count == 1, let only = set.ranges.first {
                try append(Instruction(op: .scalar, a: Int32(bitPattern: only.lowerBound)))
            } else {
                let index: Int
                if let existing = sets.firstIndex(of: set) {
                    index = existing
                } else {
                    index = sets.count
                    sets.append(set)
                }
                try append(Instruction(op: .set, a: Int32(index)))
            }
        case .concatenation(let items):
            for item in items { try emit(item) }
        case .alternation(let branches):
            var jumps: [Int] = []
            for (k, branch) in branches.enumerated() {
                if k == branches.count - 1 {
                    try emit(branch)
                } else {
                    let split = instructions.count
                    try append(Instruction(op: .split, a: next + 1))
                    try emit(branch)
                    jumps.append(instructions.count)
                    try append(Instruction(op: .jump))
                    instructions[split].b = next
                }
            }
            for jump in jumps { instructions[jump].a = next }
        case .group(let inner, let capture):
            guard let capture else { return try emit(inner) }
            let slot = Int32(2 * (capture - 1))
            try append(Instruction(op: .save, a: slot))
            try emit(inner)
            try append(Instruction(op: .save, a: slot + 1))
        case .repetition(let inner, let minimum, let maximum, let greedy):
            try emitRepetition(inner, minimum: minimum, maximum: maximum, greedy: greedy)
        case .assertion(let assertion):
            switch assertion {
            case .wordBoundary, .notWordBoundary: usesWordBoundaries = true
            case .endBeforeFinalNewline: usesFinalNewline = true
            case .start, .end: break
            }
            try append(Instruction(op: .assert, a: Int32(assertion.rawValue)))
        }
    }

    private mutating func emitRepetition(
        _ inner: RegexNode, minimum: Int, maximum: Int?, greedy: Bool
    )
        throws(RegexSyntaxError)
    {
        let required = maximum == nil && minimum > 0 ? minimum - 1 : minimum
        for _ in 0..<required { try emit(inner) }
        guard let maximum else {
            if minimum > 0 {
                // x+ : head: x; then repeat or leave.
                let head = next
                try emit(inner)
                // A body of no instructions (`(?:)+`) matches the empty string once: no loop.
                if head == next { return }
                if greedy {
                    try append(Instruction(op: .splitLoop, a: head, b: next + 1))
                } else {
                    try append(Instruction(op: .split, a: next + 1, b: head))
                }
            } else {
                // x* : head: split(body, exit); body; loop back.
                let head = instructions.count
                try append(Instruction(op: .split))
                let body = next
                try emit(inner)
                try append(Instruction(op: .loop, a: Int32(head), b: next + 1))
                let exit = next
                instructions[head].a = greedy ? body : exit
                instructions[head].b = greedy ? exit : body
            }
            return
        }
        // x{n,m}: m − n nested optional copies, each one's exit the end of them all.
        var splits: [Int] = []
        for _ in minimum..<max(minimum, maximum) {
            splits.append(instructions.count)
            try append(Instruction(op: .split))
            try emit(inner)
        }
        let exit = next
        for split in splits {
            let body = Int32(split + 1)
            instructions[split].a = greedy ? body : exit
            instructions[split].b = greedy ? exit : body
        }
    }

    /// Whether instruction `pc` consumes `scalar`.
    @inline(__always)
    func consumes(_ pc: Int, _ scalar: UInt32) -> Bool {
        let instruction = instructions[pc]
        switch instruction.op {
        case .scalar: return UInt32(bitPattern: instruction.a) == scalar
        case .set: return sets[Int(instruction.a)].contains(scalar)
        default: return false
        }
    }
}

/// Reads UTF-8 one scalar at a time; a malformed byte reads as U+FFFD and advances by one.
enum UTF8Scalars {
    @inline(__always)
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> (scalar: UInt32, width: Int) {
        let b0 = UInt32(bytes[position])
        if b0 < 0x80 { return (b0, 1) }
        let remaining = bytes.count - position
        func continuation(_ k: Int) -> UInt32? {
            guard k < remaining else { return nil }
            let b = UInt32(bytes[position + k])
            return b & 0xC0 == 0x80 ? b & 0x3F : nil
        }
        if b0 & 0xE0 == 0xC0, let b1 = continuation(1) {
            let value = (b0 & 0x1F) << 6 | b1
            if value >= 0x80 { return (value, 2) }
        } else if b0 & 0xF0 == 0xE0, let b1 = continuation(1), let b2 = continuation(2) {
            let value = (b0 & 0x0F) << 12 | b1 << 6 | b2
            if value >= 0x800, !(0xD800...0xDFFF).contains(value) { return (value, 3) }
        } else if b0 & 0xF8 == 0xF0, let b1 = continuation(1), let b2 = continuation(2), let b3 = continuation(3) {
            let value = (b0 & 0x07) << 18 | b1 << 12 | b2 << 6 | b3
            if value >= 0x10000, value <= 0x10FFFF { return (value, 4) }
        }
        return (0xFFFD, 1)
    }

    /// Whether a byte is an ASCII word character (`[A-Za-z0-9_]`); a byte of a multi-byte
    /// scalar never is, so the bytes on each side of a position decide `\b`.
    @inline(__always)
    static func isWord(_ byte: UInt8) -> Bool {
        (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte == 95
    }
}

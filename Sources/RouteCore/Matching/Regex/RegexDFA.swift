/// A deterministic automaton for a ``RegexProgram`` that needs no captures: each state is the
/// set of NFA instructions live at a position, built once by subset construction when the
/// program compiles, so a match is one table lookup per input scalar.
///
/// Scalars are grouped into classes that every instruction treats alike (the boundaries of
/// all the program's sets), so the table has one column per class, not per scalar. The build
/// stops, and the caller falls back to ``PikeVM``, when the automaton would pass
/// ``maximumStates`` states or ``maximumWork`` closure steps, or when the program uses an
/// assertion that looks at a neighbouring scalar (`\b`, `\Z`).
///
/// - Complexity: matching is O(scalars); building is O(states × classes × instructions),
///   bounded by ``maximumWork``.
struct RegexDFA: Sendable {
    static let maximumStates = 2_000
    static let maximumWork = 4_000_000
    static let dead: Int32 = -1

    /// The class of each ASCII scalar.
    private let asciiClasses: [UInt16]
    /// The first scalar of each class, ascending (class k is `boundaries[k]..<boundaries[k+1]`).
    private let boundaries: [UInt32]
    private let classCount: Int
    /// `transitions[state * classCount + class]`: the next state, or ``dead``.
    private let transitions: [Int32]
    private let accepting: [Bool]
    private let start: Int32

    init?(_ program: RegexProgram) {
        guard !program.usesWordBoundaries, !program.usesFinalNewline else { return nil }
        var cuts: Set<UInt32> = [0]
        for instruction in program.instructions {
            switch instruction.op {
            case .scalar:
                let scalar = UInt32(bitPattern: instruction.a)
                cuts.insert(scalar)
                if scalar < ScalarSet.maximum { cuts.insert(scalar + 1) }
            case .set:
                for range in program.sets[Int(instruction.a)].ranges {
                    cuts.insert(range.lowerBound)
                    if range.upperBound < ScalarSet.maximum { cuts.insert(range.upperBound + 1) }
                }
            default: break
            }
        }
        let sortedCuts = cuts.sorted()
        guard sortedCuts.count <= Int(UInt16.max) else { return nil }
        boundaries = sortedCuts
        classCount = sortedCuts.count
        asciiClasses = (0..<128).map { UInt16(Self.classIndex(of: UInt32($0), in: sortedCuts)) }

        var builder = Builder(program: program)
        var states: [[Int32]] = []
        var index: [[Int32]: Int32] = [:]
        var table: [Int32] = []
        var accepting: [Bool] = []
        // The start state is kept apart (its key begins with -1): only there do `^` and `\A`
        // hold, which changes what it accepts at the end.
        let startSet = builder.closure(of: [0], atStart: true)
        states.append([-1] + startSet)
        index[[-1] + startSet] = 0
        var pending = 0
        while pending < states.count {
            let key = states[pending]
            let isStart = key.first == -1
            let set = isStart ? Array(key.dropFirst()) : key
            accepting.append(builder.acceptsAtEnd(set, atStart: isStart))
            for k in 0..<classCount {
                let next = builder.step(set, on: sortedCuts[k])
                if next.isEmpty {
                    table.append(Self.dead)
                    continue
                }
                if let known = index[next] {
                    table.append(known)
                } else {
                    guard states.count < Self.maximumStates else { return nil }
                    index[next] = Int32(states.count)
                    table.append(Int32(states.count))
                    states.append(next)
                }
                guard builder.work <= Self.maximumWork else { return nil }
            }
            pending += 1
        }
        transitions = table
        self.accepting = accepting
        start = 0
    }

    /// Whether the automaton accepts the whole of `bytes`.
    func matches(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var state = Int(start)
        var position = 0
        let end = bytes.count
        while position < end {
            let byte = bytes[position]
            let column: Int
            if byte < 0x80 {
                column = Int(asciiClasses[Int(byte)])
                position += 1
            } else {
                let (scalar, width) = UTF8Scalars.decode(bytes, at: position)
                column = Self.classIndex(of: scalar, in: boundaries)
                position += width
            }
            let next = transitions[state * classCount + column]
            if next < 0 { return false }
            state = Int(next)
        }
        return accepting[state]
    }

    /// The number of states (for tests and the benchmark).
    var stateCount: Int { accepting.count }

    private static func classIndex(of scalar: UInt32, in boundaries: [UInt32]) -> Int {
        // The last boundary ≤ scalar.
        var lower = 0
        var upper = boundaries.count
        while upper - lower > 1 {
            let middle = (lower + upper) / 2
            if boundaries[middle] <= scalar { lower = middle } else { upper = middle }
        }
        return lower
    }

    /// Epsilon closures over the NFA, with a count of the work done.
    private struct Builder {
        let program: RegexProgram
        var work = 0
        private var seen: [Bool]
        private var stack: [Int32] = []

        init(program: RegexProgram) {
            self.program = program
            seen = Array(repeating: false, count: program.instructions.count)
        }

        /// The instructions reachable from `starts` without consuming: the consuming ones, the
        /// match, and end assertions still to be decided (sorted, so equal sets are equal keys).
        mutating func closure(of starts: [Int32], atStart: Bool, atEnd: Bool = false) -> [Int32] {
            var result: [Int32] = []
            for k in seen.indices { seen[k] = false }
            work += seen.count
            stack.append(contentsOf: starts.reversed())
            while let top = stack.popLast() {
                var pc = top
                walk: while !seen[Int(pc)] {
                    seen[Int(pc)] = true
                    work += 1
                    let instruction = program.instructions[Int(pc)]
                    switch instruction.op {
                    case .jump: pc = instruction.a
                    case .split, .splitLoop, .loop:
                        // Without captures the loop rule changes nothing: both ways are taken.
                        stack.append(instruction.b)
                        pc = instruction.a
                    case .save: pc += 1
                    case .assert:
                        switch RegexAssertion(rawValue: UInt8(instruction.a)) {
                        case .start:
                            guard atStart else { break walk }
                            pc += 1
                        case .end:
                            if atEnd {
                                pc += 1
                            } else {
                                result.append(pc)
                                break walk
                            }
                        default: break walk
                        }
                    case .scalar, .set, .match:
                        result.append(pc)
                        break walk
                    }
                }
            }
            return result.sorted()
        }

        mutating func step(_ set: [Int32], on scalar: UInt32) -> [Int32] {
            var next: [Int32] = []
            for pc in set where program.consumes(Int(pc), scalar) { next.append(pc + 1) }
            work += set.count
            return next.isEmpty ? [] : closure(of: next, atStart: false)
        }

        mutating func acceptsAtEnd(_ set: [Int32], atStart: Bool) -> Bool {
            let ends = set.filter {
                let op = program.instructions[Int($0)].op
                return op == .match || op == .assert
            }
            guard !ends.isEmpty else { return false }
            return closure(of: ends, atStart: atStart, atEnd: true).contains {
                program.instructions[Int($0)].op == .match
            }
        }
    }
}

/// A set of Unicode scalar values as sorted, disjoint, non-adjacent closed ranges, with the
/// ASCII part also kept as a 128-bit map for a one-instruction membership test.
///
/// ```swift
/// let hex = ScalarSet(ranges: [48...57, 65...70, 97...102])
/// hex.contains(0x41)   // true ("A")
/// hex.inverted.contains(0x41)   // false
/// ```
///
/// - Complexity: `contains` is O(1) for ASCII and O(log r) otherwise, r the number of ranges.
struct ScalarSet: Equatable, Hashable, Sendable {
    /// The largest Unicode scalar value.
    static let maximum: UInt32 = 0x10FFFF

    private(set) var ranges: [ClosedRange<UInt32>]
    private var low: UInt64 = 0  // scalars 0...63
    private var high: UInt64 = 0  // scalars 64...127

    static let empty = ScalarSet(ranges: [])
    static let all = ScalarSet(ranges: [0...maximum])

    init(ranges: [ClosedRange<UInt32>]) {
        self.ranges = Self.normalized(ranges)
        for range in self.ranges where range.lowerBound < 128 {
            for scalar in range.lowerBound...min(range.upperBound, 127) {
                if scalar < 64 { low |= 1 << UInt64(scalar) } else { high |= 1 << UInt64(scalar - 64) }
            }
        }
    }

    init(scalar: UInt32) { self.init(ranges: [scalar...scalar]) }

    var isEmpty: Bool { ranges.isEmpty }

    /// The number of scalars in the set.
    var count: Int { ranges.reduce(0) { $0 + Int($1.upperBound - $1.lowerBound) + 1 } }

    @inline(__always)
    func contains(_ scalar: UInt32) -> Bool {
        if scalar < 64 { return low & (1 << UInt64(scalar)) != 0 }
        if scalar < 128 { return high & (1 << UInt64(scalar - 64)) != 0 }
        var lower = 0
        var upper = ranges.count
        while lower < upper {
            let middle = (lower + upper) / 2
            let range = ranges[middle]
            if scalar < range.lowerBound {
                upper = middle
            } else if scalar > range.upperBound {
                lower = middle + 1
            } else {
                return true
            }
        }
        return false
    }

    var inverted: ScalarSet {
        var result: [ClosedRange<UInt32>] = []
        var next: UInt32 = 0
        for range in ranges {
            if range.lowerBound > next { result.append(next...(range.lowerBound - 1)) }
            if range.upperBound == Self.maximum { return ScalarSet(ranges: result) }
            next = range.upperBound + 1
        }
        result.append(next...Self.maximum)
        return ScalarSet(ranges: result)
    }

    func union(_ other: ScalarSet) -> ScalarSet { ScalarSet(ranges: ranges + other.ranges) }

    func intersection(_ other: ScalarSet) -> ScalarSet {
        var result: [ClosedRange<UInt32>] = []
        var i = 0
        var j = 0
        while i < ranges.count, j < other.ranges.count {
            let a = ranges[i]
            let b = other.ranges[j]
            let lower = max(a.lowerBound, b.lowerBound)
            let upper = min(a.upperBound, b.upperBound)
            if lower <= upper { result.append(lower...upper) }
            if a.upperBound < b.upperBound { i += 1 } else { j += 1 }
        }
        return ScalarSet(ranges: result)
    }

    func subtracting(_ other: ScalarSet) -> ScalarSet { intersection(other.inverted) }

    func symmetricDifference(_ other: ScalarSet) -> ScalarSet {
        union(other).subtracting(intersection(other))
    }

    /// The set with every letter's simple case mappings added (ASCII letters always; other
    /// scalars through their one-scalar lower-, upper- and titlecase mappings).
    var caseFolded: ScalarSet {
        var extra: [ClosedRange<UInt32>] = []
        for range in ranges {
            // ASCII letters fold by a shift of 32.
            for (from, to) in [(UInt32(65)...90, Int32(32)), (97...122, -32)] {
                let lower = max(range.lowerBound, from.lowerBound)
                let upper = min(range.upperBound, from.upperBound)
                if lower <= upper {
                    extra.append(UInt32(Int32(lower) + to)...UInt32(Int32(upper) + to))
                }
            }
            // Other scalars one by one, for ranges of a size a pattern spells out.
            guard range.upperBound >= 128, range.upperBound - range.lowerBound < 0x3000 else { continue }
            for value in max(range.lowerBound, 128)...range.upperBound {
                guard let scalar = Unicode.Scalar(value) else { continue }
                for mapped in Self.simpleMappings(scalar) { extra.append(mapped...mapped) }
            }
        }
        return extra.isEmpty ? self : ScalarSet(ranges: ranges + extra)
    }

    private static func simpleMappings(_ scalar: Unicode.Scalar) -> [UInt32] {
        let properties = scalar.properties
        var result: [UInt32] = []
        for mapping in [properties.lowercaseMapping, properties.uppercaseMapping, properties.titlecaseMapping] {
            let scalars = mapping.unicodeScalars
            if scalars.count == 1, let only = scalars.first, only != scalar { result.append(only.value) }
        }
        return result
    }

    private static func normalized(_ ranges: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
        guard ranges.count > 1 else { return ranges }
        let sorted = ranges.sorted { $0.lowerBound < $1.lowerBound }
        var result: [ClosedRange<UInt32>] = [sorted[0]]
        for range in sorted.dropFirst() {
            let last = result[result.count - 1]
            if range.lowerBound <= last.upperBound || range.lowerBound == last.upperBound + 1 {
                result[result.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                result.append(range)
            }
        }
        return result
    }
}

extension ScalarSet {
    static let digits = ScalarSet(ranges: [48...57])
    static let word = ScalarSet(ranges: [48...57, 65...90, 95...95, 97...122])
    /// `\s`: space, tab, line feed, vertical tab, form feed, carriage return.
    static let space = ScalarSet(ranges: [9...13, 32...32])
    /// `\h`: space and tab.
    static let horizontalSpace = ScalarSet(ranges: [9...9, 32...32])
    /// What `.` does not match unless the `s` flag is on: the line terminators.
    static let lineTerminators = ScalarSet(ranges: [10...13, 0x85...0x85, 0x2028...0x2029])

    /// The POSIX classes (`[[:alpha:]]`), ASCII as every class here.
    static func posix(_ name: String) -> ScalarSet? {
        switch name {
        case "alpha": ScalarSet(ranges: [65...90, 97...122])
        case "digit": digits
        case "alnum": ScalarSet(ranges: [48...57, 65...90, 97...122])
        case "upper": ScalarSet(ranges: [65...90])
        case "lower": ScalarSet(ranges: [97...122])
        case "space": space
        case "blank": horizontalSpace
        case "punct": ScalarSet(ranges: [33...47, 58...64, 91...96, 123...126])
        case "cntrl": ScalarSet(ranges: [0...31, 127...127])
        case "graph": ScalarSet(ranges: [33...126])
        case "print": ScalarSet(ranges: [32...126])
        case "xdigit": ScalarSet(ranges: [48...57, 65...70, 97...102])
        case "word": word
        case "ascii": ScalarSet(ranges: [0...127])
        default: nil
        }
    }
}

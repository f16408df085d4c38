import Foundation
import RouteCore

/// Validator regexes: Luna's linear-time engine against Swift's backtracking `Regex` (the
/// engine Luna used before), in the same run.
extension Bench {
    /// The backtracking killers, each with the input that makes it fail: `a` × n and a `!`.
    static let pathological = ["(a+)+$", "(a|aa)+b", "(.*a){12}"]
    static let regexLengths = [10, 100, 1000, 8000]
    /// Ordinary validators: two on the byte-class fast path, and the same languages spelled so
    /// that they take the engine (the DFA).
    static let ordinary: [(name: String, pattern: String, input: String)] = [
        ("digits", "[0-9]+", "12345678"),
        ("slug", "[a-z0-9-]{3,32}", "the-dune-messiah-2"),
        ("digits_engine", "(?:[0-9])+", "12345678"),
        ("slug_engine", "(?:[a-z0-9]|-){3,32}", "the-dune-messiah-2"),
        (
            "uuid_engine", "(?:[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}|[0-9]+)",
            "3f2504e0-4f89-11d3-9a0c-0305e82c3301"
        ),
    ]

    mutating func measureRegex() throws {
        for (k, pattern) in Self.pathological.enumerated() {
            let validator = try Validator(regex: pattern)
            let swift = try Regex(pattern).asciiOnlyCharacterClasses().matchingSemantics(.unicodeScalar)
            for n in Self.regexLengths {
                let input = String(repeating: "a", count: n) + "!"
                let operations = max(1, 20_000 / n)
                scalars["regex_p\(k)_\(n)_ns"] = harness.nanoseconds(operations: operations) {
                    var total = 0
                    for _ in 0..<operations where (try? validator.accepts(input)) == true { total += 1 }
                    blackHole(total)
                }
                // Swift's Regex only where it finishes: at 10 (2^10 paths; C(10,12) splits).
                guard n == 10 else { continue }
                scalars["regex_p\(k)_\(n)_swift_ns"] = harness.nanoseconds(operations: operations) {
                    var total = 0
                    for _ in 0..<operations where (try? swift.wholeMatch(in: input)) != nil { total += 1 }
                    blackHole(total)
                }
            }
        }
        for (name, pattern, input) in Self.ordinary {
            let validator = try Validator(regex: pattern)
            let swift = try Regex(pattern).asciiOnlyCharacterClasses().matchingSemantics(.unicodeScalar)
            let operations = 20_000
            scalars["regex_\(name)_ns"] = harness.nanoseconds(operations: operations) {
                var total = 0
                for _ in 0..<operations where (try? validator.accepts(input)) == true { total += 1 }
                blackHole(total)
            }
            scalars["regex_\(name)_swift_ns"] = harness.nanoseconds(operations: operations / 10) {
                var total = 0
                for _ in 0..<(operations / 10) where (try? swift.wholeMatch(in: input)) != nil { total += 1 }
                blackHole(total)
            }
        }
    }

    /// The regex table of the report.
    func regexReport() -> [String] {
        let s = scalars
        guard s["regex_p0_10_ns"] != nil else { return [] }
        var lines = [
            "",
            "Validator regexes (ns per match; input `a` × n then `!`, which none accepts; Swift's Regex only where it finishes):",
            "",
            "| pattern | n = 10 | 100 | 1,000 | 8,000 | ns per byte at 100 → 8,000 | Swift Regex at 10 | ratio at 10 |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for (k, pattern) in Self.pathological.enumerated() {
            let times = Self.regexLengths.map { s["regex_p\(k)_\($0)_ns"] ?? 0 }
            let swift = s["regex_p\(k)_10_swift_ns"] ?? 0
            lines.append(
                "| `\(pattern)` | \(times.map { f($0) }.joined(separator: " | ")) | \(f(times[1] / 101, 2)) → \(f(times[3] / 8001, 2)) | \(f(swift)) | \(r(times[0] / max(swift, 1))) |"
            )
        }
        lines.append("")
        lines.append("| validator | input | Luna (ns) | Swift Regex (ns) | ratio |")
        lines.append("|---|---|---:|---:|---:|")
        for (name, pattern, input) in Self.ordinary {
            let luna = s["regex_\(name)_ns"] ?? 0
            let swift = s["regex_\(name)_swift_ns"] ?? 0
            lines.append("| `\(pattern)` | `\(input)` | \(f(luna)) | \(f(swift)) | \(r(luna / max(swift, 1))) |")
        }
        return lines
    }
}

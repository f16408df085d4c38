// Fuzzes Luna's linear-time regex engine. Even first bytes: the rest chooses a random pattern
// of the dialect Luna and Swift's Regex share, and the two engines must agree (RegexCase).
// Odd first bytes: the rest is a raw pattern (up to the first NUL) and an input; whatever
// the pattern, compiling must not crash, and the capture-free path (the DFA) and the
// capturing one (the Pike VM) must give the same verdict. libFuzzer supplies `main`.
import Glibc
import RouteCore
import RouteCoreOracle

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if bytes[0] % 2 == 0 {
        var choices = RegexChoices(bytes: Array(bytes.dropFirst()))
        if let problem = RegexCase(&choices).disagreement() {
            print("DISAGREEMENT: \(problem)")
            abort()
        }
        return 0
    }
    let rest = bytes.dropFirst()
    let split = rest.firstIndex(of: 0) ?? rest.endIndex
    let pattern = String(decoding: rest[..<split], as: UTF8.self)
    let input = String(decoding: rest[split...].dropFirst(), as: UTF8.self)
    guard let validator = try? Validator(regex: pattern), let regex = try? PathRegex(pattern) else { return 0 }
    let verdict = (try? validator.accepts(input)) ?? false
    if verdict != (regex.match(input) != nil) {
        print("DISAGREEMENT: \(pattern.debugDescription) on \(input.debugDescription): validator says \(verdict)")
        abort()
    }
    return 0
}

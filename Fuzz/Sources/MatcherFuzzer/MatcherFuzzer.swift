// Feeds random route tables and requests to the compiled matcher and to the reference
// matcher; any disagreement or crash is a finding. libFuzzer supplies `main` (the target is
// built with --sanitize fuzzer), so this file only defines the test function.
import Glibc
import RouteCoreOracle

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let problem = FuzzCase(bytes).disagreement() {
        print("DISAGREEMENT: \(problem)")
        abort()
    }
    return 0
}

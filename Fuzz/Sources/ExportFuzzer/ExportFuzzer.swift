// Feeds text to the exported-tree reader (`RouteTree(json:)`, what an app reads at launch and
// what a linked app is sent by the session) and to the JSON parser under it. A crash, a hang
// (libFuzzer's -timeout), a refusal without a message or a round trip that does not hold
// (ExportCase) is a finding. Seeds: the examples' exports (Fuzz/seeds/export). libFuzzer
// supplies `main`.
import Glibc
import RouteCoreOracle

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let problem = ExportCase(text).problem() {
        print("FINDING: \(problem)")
        abort()
    }
    return 0
}

import Foundation
import Testing

/// What an app target compiles (RouteCore, LunaLink) names a platform's C library only behind
/// `canImport` of that library — Glibc, Musl or Darwin — so the same files build for iOS, macOS,
/// Linux and the static Linux SDK. (The iOS build itself runs in the macOS job of
/// .github/workflows/ci.yml; this machine has no iOS SDK.)
@Suite struct PlatformImportsTests {
    static let libraries = ["Glibc", "Musl", "Darwin", "WinSDK", "Android"]

    @Test(arguments: ["Sources/RouteCore", "Sources/LunaLink"])
    func platformImportsAreBehindCanImport(folder: String) throws {
        let root = RecipeTextTests.root.appendingPathComponent(folder).path
        let files = try #require(FileManager.default.enumerator(atPath: root)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        #expect(!files.isEmpty)
        for file in files {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            var conditions: [String] = []
            for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = raw.trimmingCharacters(in: .whitespaces)
                if line.hasPrefix("#if ") || line.hasPrefix("#elseif ") {
                    if line.hasPrefix("#elseif "), !conditions.isEmpty { conditions.removeLast() }
                    conditions.append(line)
                } else if line.hasPrefix("#endif"), !conditions.isEmpty {
                    conditions.removeLast()
                }
                guard line.hasPrefix("import ") else { continue }
                let module = String(line.dropFirst("import ".count))
                if module == "Foundation" {
                    Issue.record("\(folder)/\(file):\(number + 1): an app's engine imports no Foundation")
                }
                guard Self.libraries.contains(module) else { continue }
                #expect(
                    conditions.last?.contains("canImport(\(module))") == true,
                    "\(folder)/\(file):\(number + 1): import \(module) is not behind #if canImport(\(module))")
            }
        }
    }
}

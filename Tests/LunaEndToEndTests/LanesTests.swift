import Foundation
import LunaTestSupport
import Testing

/// scripts/lanes, which scripts/test asks what to run: a toolchain without libFuzzer (Xcode's)
/// skips the fuzzers with its reason; under CI=true the same machine fails, since CI runs every
/// lane. The toolchain is stood in for by a `swiftc` first on PATH that refuses
/// `-sanitize=fuzzer` and hands everything else to the real one.
@Suite struct LanesTests {
    static func lanes(ci: Bool, refusing sanitizer: String) throws -> RunResult {
        let folder = ScriptFolder()
        let real = try #require(
            (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { $0 + "/swiftc" }
                .first { FileManager.default.isExecutableFile(atPath: $0) })
        let fake = folder.write(
            "bin/swiftc",
            """
            #!/usr/bin/env bash
            for argument in "$@"; do
              [ "$argument" = "-sanitize=\(sanitizer)" ] && { echo "error: no \(sanitizer) here" >&2; exit 1; }
            done
            exec \(real) "$@"
            """)
        chmod(fake, 0o755)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: repositoryRoot + "/scripts/lanes")
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = folder.path + "/bin:" + (environment["PATH"] ?? "")
        environment["CI"] = ci ? "true" : nil
        process.environment = environment
        return try run(process)
    }

    @Test func aToolchainWithoutLibFuzzerSkipsTheFuzzersAndSaysWhy() throws {
        let result = try Self.lanes(ci: false, refusing: "fuzzer")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("skip fuzzers (this toolchain has no libFuzzer"), "\(result.stdout)")
        #expect(result.stdout.contains("run tsan\n") && result.stdout.contains("run asan\n"), "\(result.stdout)")
    }

    @Test func underCIASkippedLaneFails() throws {
        let result = try Self.lanes(ci: true, refusing: "thread")
        #expect(result.status == 1)
        #expect(result.stdout.contains("skip tsan (this toolchain cannot build with -sanitize=thread)"))
        #expect(result.stderr.contains("CI runs every lane"))
    }
}

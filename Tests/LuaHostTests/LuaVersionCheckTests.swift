import Foundation
import Testing

/// The CLua module refuses a lua.h of another version with a message that says what to install
/// (Homebrew's `lua` is 5.5 now), instead of failing later on a changed C API.
@Suite struct LuaVersionCheckTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..").standardized.path

    /// clang from the Swift toolchain (on PATH beside swift).
    static var clang: String? {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        return paths.map { $0 + "/clang" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Compiles CLua's header against `include` (first on the search path); the exit status and
    /// the compiler's messages.
    static func compileShim(_ include: String) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(clang))
        process.arguments = ["-fsyntax-only", "-x", "c", "-I", include, root + "/Sources/CLua/shim.h"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    static func headers(version: Int) throws -> String {
        let folder = NSTemporaryDirectory() + "lua-headers-\(version)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "#define LUA_VERSION_NUM \(version)\n".write(toFile: folder + "/lua.h", atomically: true, encoding: .utf8)
        try "".write(toFile: folder + "/lauxlib.h", atomically: true, encoding: .utf8)
        try "".write(toFile: folder + "/lualib.h", atomically: true, encoding: .utf8)
        return folder
    }

    @Test(.enabled(if: clang != nil, "needs clang"), arguments: [505, 503])
    func anotherLuaIsRefusedWithWhatToInstall(version: Int) throws {
        let folder = try Self.headers(version: version)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (status, messages) = try Self.compileShim(folder)
        #expect(status != 0)
        #expect(messages.contains("Luna needs Lua 5.4"), "\(messages)")
        #expect(messages.contains("brew install lua@5.4"), "\(messages)")
    }

    @Test(.enabled(if: clang != nil, "needs clang")) func luaFivePointFourPasses() throws {
        let folder = try Self.headers(version: 504)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (status, messages) = try Self.compileShim(folder)
        #expect(status == 0, "\(messages)")
    }
}

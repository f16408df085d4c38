import Foundation

/// The repository root, from this file's path.
package let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()

package func example(_ name: String) -> String { repositoryRoot + "/examples/" + name }

/// The `luna` binary next to the test bundle.
package let lunaBinary: String = {
    let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let candidates = [bundle.appendingPathComponent("luna").path, repositoryRoot + "/.build/debug/luna"]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[1]
}()

package struct RunResult {
    package var status: Int32
    package var stdout: String
    package var stderr: String
}

/// A `luna` process in the repository root, with NO_COLOR and extra environment.
package func lunaProcess(_ arguments: [String], environment: [String: String] = [:]) -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: lunaBinary)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: repositoryRoot)
    var env = ProcessInfo.processInfo.environment
    env["NO_COLOR"] = "1"
    for (key, value) in environment { env[key] = value }
    process.environment = env
    return process
}

/// Runs `luna` with arguments and optional standard input (never a terminal).
package func luna(_ arguments: [String], input: String? = nil, environment: [String: String] = [:]) throws -> RunResult
{
    try run(lunaProcess(arguments, environment: environment), input: input)
}

/// Runs a process to its end with optional standard input (never a terminal): its status and
/// both outputs.
package func run(_ process: Process, input: String? = nil) throws -> RunResult {
    let out = Pipe()
    let err = Pipe()
    let stdin = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = stdin
    try process.run()
    if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
    try stdin.fileHandleForWriting.close()
    // Drain both pipes at once: a child that fills one while we wait on the other would
    // block forever (an ASan build's leak report on stderr does).
    final class Box: @unchecked Sendable { var data = Data() }
    let errBox = Box()
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) { errBox.data = err.fileHandleForReading.readDataToEndOfFile() }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    let errData = errBox.data
    process.waitUntilExit()
    return RunResult(
        status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self))
}

/// A folder for one test's scripts, outside /tmp (some editors write in place under /tmp,
/// which would hide the rename case), removed afterwards.
package final class ScriptFolder: Sendable {
    package let path: String

    package init() {
        let base = repositoryRoot + "/.build/test-scripts"
        try? FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        path = base + "/scripts-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    @discardableResult
    package func write(_ name: String, _ text: String) -> String {
        let full = path + "/" + name
        try? FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: full, contents: Data(text.utf8))
        return full
    }

    /// Writes `name` whole at once (a new file renamed over the old): a watcher never reads
    /// half of it.
    @discardableResult
    package func replace(_ name: String, _ text: String) -> String {
        let full = path + "/" + name
        _ = FileManager.default.createFile(atPath: full + ".tmp", contents: Data(text.utf8))
        _ = rename(full + ".tmp", full)
        return full
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

extension String {
    /// The path as errors show it: relative to the working directory when below it.
    package var relativeToWorkingDirectory: String {
        let cwd = FileManager.default.currentDirectoryPath
        return hasPrefix(cwd + "/") ? String(dropFirst(cwd.count + 1)) : self
    }
}

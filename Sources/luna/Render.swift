import Foundation

/// Renders DOT through Graphviz's `dot`, found on PATH.
enum Render {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Writes `text` to the file at `path`.
    static func write(_ text: String, to path: String) throws {
        do { try text.write(toFile: path, atomically: true, encoding: .utf8) } catch {
            throw Failure(description: "cannot write '\(path)': \(error.localizedDescription)")
        }
    }

    /// Renders `dot` as `format` to standard output, or to the file `output`.
    static func throughDot(_ dot: String, format: String, to output: String? = nil) throws {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        guard
            let executable = paths.map({ "\($0)/dot" }).first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            throw Failure(description: "Graphviz's 'dot' is not on PATH (install graphviz, or use --format dot)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-T" + format] + (output.map { ["-o", $0] } ?? [])
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.standardOutput
        try process.run()
        input.fileHandleForWriting.write(Data(dot.utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "dot failed with status \(process.terminationStatus)")
        }
    }
}

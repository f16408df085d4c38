import Foundation

/// Renders DOT through Graphviz's `dot`, found on PATH.
enum Render {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func throughDot(_ dot: String, format: String) throws {
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
        process.arguments = ["-T" + format]
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

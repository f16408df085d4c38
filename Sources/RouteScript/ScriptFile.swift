import RouteCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading script files without Foundation.
enum ScriptFile {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The file's text. Invalid UTF-8 is an error (scripts are text).
    static func read(_ path: String) throws -> String {
        guard let file = fopen(path, "rb") else {
            throw Failure(description: "cannot read '\(path)': \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count > 0 { bytes.append(contentsOf: buffer[0..<count]) }
            if count < buffer.count { break }
        }
        if ferror(file) != 0 { throw Failure(description: "cannot read '\(path)'") }
        guard let text = String(validUTF8: bytes) else {
            throw Failure(description: "'\(path)' is not valid UTF-8 text")
        }
        return text
    }

    /// Whether a regular file exists at `path`.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// The canonical absolute path, resolving links, or nil.
    static func canonical(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The folder part of a path (`.` when there is none).
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// A path as errors show it: as the user gave it, or relative to the working directory
    /// when it lies below it (editors' problem matchers resolve it from there).
    static func display(_ path: String) -> String {
        var shown = path
        while shown.hasPrefix("./") { shown.removeFirst(2) }
        guard shown.hasPrefix("/"), let cwd = getcwd(nil, 0) else { return shown }
        defer { free(cwd) }
        let directory = String(cString: cwd)
        if shown.hasPrefix(directory + "/") { return String(shown.dropFirst(directory.count + 1)) }
        return shown
    }

    /// The last component of a path.
    static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}

/// Where errors point: Lua names a script and its modules relative to the script's folder
/// (`books.lua`, `tabs/books.lua`, short enough for Lua's 60-character source names); the
/// command line shows them as the user gave the script (`mod2/tabs/books.lua:2:`), relative to
/// the working directory, so editors' problem matchers can open them.
public enum ScriptPaths {
    /// A path as errors show it: relative to the working directory when below it.
    public static func display(_ path: String) -> String { ScriptFile.display(path) }

    /// `message` with each `chunk:line:` of a file beside `script` rewritten to its display path.
    public static func relocate(_ message: String, script: String) -> String {
        let folder = ScriptFile.folder(of: script)
        var result = ""
        for (offset, line) in message.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if offset > 0 { result += "\n" }
            result += relocateLine(String(line), folder: folder)
        }
        return result
    }

    private static func relocateLine(_ line: String, folder: String) -> String {
        // The location starts the line, after any tab and label words ending in ": " (as in
        // "reload failed: books.lua:3:").
        let body = line.drop { $0 == "\t" }
        let indent = line.prefix(line.count - body.count)
        guard let colon = body.firstIndex(of: ":") else { return line }
        let chunk = String(body[..<colon])
        let after = body[body.index(after: colon)...]
        guard chunk.hasSuffix(".lua"), !chunk.hasPrefix("/"), let digit = after.first, digit.isNumber else {
            return line
        }
        let path = folder == "." ? chunk : folder + "/" + chunk
        guard ScriptFile.exists(path) else { return line }
        return indent + ScriptFile.display(path) + ":" + after
    }
}

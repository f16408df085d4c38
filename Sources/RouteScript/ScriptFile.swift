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
        guard let text = String(validating: bytes, as: UTF8.self) else {
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

    /// The last component of a path.
    static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}

import RouteCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// read(2) (the name is taken by methods called `read` here).
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.read(descriptor, buffer, count)
    #else
        Darwin.read(descriptor, buffer, count)
    #endif
}

/// Reading script files without Foundation.
enum ScriptFile {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The largest script, module, test file or golden file Luna reads.
    static let maximumBytes = 16 * 1024 * 1024

    /// The file's text. Invalid UTF-8 is an error (scripts are text).
    static func read(_ path: String) throws -> String {
        guard let text = String(validUTF8: try readBytes(path)) else {
            throw Failure(description: "'\(path)' is not valid UTF-8 text")
        }
        return text
    }

    /// The bytes of a regular file of at most ``maximumBytes``. The file is opened without
    /// blocking and checked before a byte is read: a named pipe or a device is refused (it
    /// could block or never end), and so is an oversized file, up front.
    static func readBytes(_ path: String) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw Failure(description: "cannot read '\(path)': \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw Failure(description: "cannot read '\(path)': not a regular file")
        }
        guard Int(info.st_size) <= maximumBytes else {
            throw Failure(
                description: "'\(path)' is \(info.st_size) bytes (the limit is \(maximumBytes / 1024 / 1024) MiB)")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(info.st_size))
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "cannot read '\(path)': \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
            guard bytes.count <= maximumBytes else {
                throw Failure(description: "'\(path)' is over \(maximumBytes / 1024 / 1024) MiB")
            }
        }
        return bytes
    }

    /// `relative` inside `folder`, by one rule (require, luna.open): a relative path whose
    /// real location, links resolved, lies inside the folder's, and is a regular file.
    static func contained(_ relative: String, in folder: String) -> Result<String, Failure> {
        guard !relative.hasPrefix("/"), !relative.contains("\0") else {
            return .failure(Failure(description: "'\(relative)' is not a relative path"))
        }
        let path = folder == "." ? relative : folder + "/" + relative
        guard let real = canonical(path) else { return .failure(Failure(description: "no file '\(relative)'")) }
        guard let root = canonical(folder), real.hasPrefix(root == "/" ? "/" : root + "/") else {
            return .failure(Failure(description: "'\(relative)' is outside the folder (links are followed to check)"))
        }
        var info = stat()
        guard stat(real, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            return .failure(Failure(description: "'\(relative)' is not a regular file"))
        }
        return .success(path)
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

/// Reading the files a script or a test names, by one rule: inside the folder (links
/// resolved), regular files only, at most 16 MiB.
package enum ScriptFiles {
    /// A regular file's bytes (no pipes or devices; at most 16 MiB, refused up front).
    package static func readBytes(_ path: String) throws -> [UInt8] { try ScriptFile.readBytes(path) }

    /// A regular file's text (UTF-8).
    package static func readText(_ path: String) throws -> String { try ScriptFile.read(path) }

    /// `relative` resolved inside `folder`, or an error saying why not.
    package static func contained(_ relative: String, in folder: String) throws -> String {
        try ScriptFile.contained(relative, in: folder).get()
    }

    /// The canonical path (links resolved), or nil when it does not exist.
    package static func canonical(_ path: String) -> String? { ScriptFile.canonical(path) }
}

/// Where errors point: Lua names a script and its modules relative to the script's folder
/// (`books.lua`, `tabs/books.lua`, short enough for Lua's 60-character source names); the
/// command line shows them as the user gave the script (`mod2/tabs/books.lua:2:`), relative to
/// the working directory, so editors' problem matchers can open them.
package enum ScriptPaths {
    /// A path as errors show it: relative to the working directory when below it.
    package static func display(_ path: String) -> String { ScriptFile.display(path) }

    /// A location in a file beside `script`, with the file's display path.
    package static func relocate(_ location: SourceLocation, script: String) -> SourceLocation {
        let chunk = location.file
        guard chunk.hasSuffix(".lua"), !chunk.hasPrefix("/") else { return location }
        let folder = ScriptFile.folder(of: script)
        let path = folder == "." ? chunk : folder + "/" + chunk
        guard ScriptFile.exists(path) else { return location }
        return SourceLocation(file: ScriptFile.display(path), line: location.line)
    }

    /// `message` with each `chunk:line:` of a file beside `script` rewritten to its display path.
    package static func relocate(_ message: String, script: String) -> String {
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

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The repository root (for examples/), found from this file's path.
let repositoryRoot: String = {
    var path = #filePath
    for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
    return path
}()

func example(_ name: String) -> String { repositoryRoot + "/examples/" + name }

/// A folder of script files for one test, outside /tmp (some editors treat /tmp specially),
/// removed when the value goes away.
final class ScriptFolder {
    let path: String

    init() {
        let base = repositoryRoot + "/.build/test-scripts"
        mkdir(repositoryRoot + "/.build", 0o755)
        mkdir(base, 0o755)
        var template = Array((base + "/scriptXXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = made.map { String(cString: $0) } ?? base
    }

    /// Writes a file (creating folders) and returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) -> String {
        let full = path + "/" + name
        var folder = full[..<full.lastIndex(of: "/")!]
        if folder != path { mkdir(String(folder), 0o755) }
        folder = ""
        let file = fopen(full, "w")!
        fputs(text, file)
        fclose(file)
        return full
    }

    func remove(_ name: String) { unlink(path + "/" + name) }

    deinit {
        _ = system_rm(path)
    }
}

/// Removes a folder tree (test cleanup only).
private func system_rm(_ path: String) -> Int32 {
    guard let dir = opendir(path) else { return unlink(path) }
    defer { closedir(dir) }
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name == "." || name == ".." { continue }
        _ = system_rm(path + "/" + name)
    }
    return rmdir(path)
}

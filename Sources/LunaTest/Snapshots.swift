import RouteScript

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Golden files: `__snapshots__/<test file>/<name>.<kind>.txt` beside the test file, written on
/// the first run and with `--update`; a mismatch is reported as a unified diff.
enum Snapshots {
    /// Nil when the snapshot matches (or was written); otherwise the failure message.
    static func check(kind: String, name: String, actual: String, testFile: String, update: Bool) throws -> String? {
        guard !name.isEmpty, name.count <= 100,
            name.unicodeScalars.allSatisfy({
                $0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-.".unicodeScalars.contains($0)
            }),
            !name.hasPrefix(".")
        else { return "a snapshot's name is letters, digits, '_', '-' and '.', not '\(name)'" }
        let root = folderOf(testFile)
        let folder = root + "/__snapshots__/" + stem(testFile)
        let path = folder + "/" + name + "." + kind + ".txt"
        let text = actual.hasSuffix("\n") ? actual : actual + "\n"
        if update || !exists(path) {
            try write(text, to: path, folder: folder, inside: root)
            return nil
        }
        let expected = try read(path, inside: root)
        if expected == text { return nil }
        return "\(kind) snapshot '\(name)' differs from \(path) (run with --update to accept):\n"
            + unifiedDiff(expected: expected, actual: text)
    }

    static func folderOf(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return String(path[..<slash])
    }

    static func stem(_ path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return name.hasSuffix(".lua") ? String(name.dropLast(4)) : name
    }

    /// A unified diff (`-` expected, `+` actual) with two lines of context, from a longest
    /// common subsequence of lines.
    static func unifiedDiff(expected: String, actual: String) -> String {
        let a = expected.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let b = actual.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var lcs = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : max(lcs[i + 1][j], lcs[i][j + 1])
            }
        }
        var lines: [(Character, String)] = []
        var i = 0
        var j = 0
        while i < a.count || j < b.count {
            if i < a.count, j < b.count, a[i] == b[j] {
                lines.append((" ", a[i]))
                i += 1
                j += 1
            } else if i < a.count, j == b.count || lcs[i + 1][j] >= lcs[i][j + 1] {
                // Removals first, as diff(1) and git print a changed line: `-` old, then `+` new.
                lines.append(("-", a[i]))
                i += 1
            } else {
                lines.append(("+", b[j]))
                j += 1
            }
        }
        let changed = lines.indices.filter { lines[$0].0 != " " }
        var shown = Set<Int>()
        for index in changed { for near in max(0, index - 2)...min(lines.count - 1, index + 2) { shown.insert(near) } }
        var out = ["--- expected", "+++ actual"]
        var previous = -2
        for index in shown.sorted() {
            if index != previous + 1 { out.append("@@") }
            out.append(String(lines[index].0) + lines[index].1)
            previous = index
        }
        return out.joined(separator: "\n")
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// A golden file's text, when it lies inside `root` once links are resolved.
    static func read(_ path: String, inside root: String) throws -> String {
        try checkInside(path, root)
        return String(decoding: try ScriptFiles.readBytes(path), as: UTF8.self)
    }

    /// Writes `text` to `path` (in `folder`, made as needed), never through a link: the folder
    /// must lie inside `root` once links are resolved, and a link at `path` itself is refused
    /// (`O_NOFOLLOW`), so neither `--update` nor a first run writes outside the project.
    static func write(
        _ text: String, to path: String, folder: String, inside root: String, replace: Bool = true
    )
        throws
    {
        var partial = ""
        for part in folder.split(separator: "/", omittingEmptySubsequences: false) {
            partial += (partial.isEmpty && !folder.hasPrefix("/") ? "" : "/") + part
            if partial == "/" || part.isEmpty { continue }
            mkdir(partial, 0o755)
        }
        try checkInside(folder + "/.", root)
        let flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (replace ? O_TRUNC : O_EXCL)
        let descriptor = open(path, flags, 0o644)
        guard descriptor >= 0 else {
            let reason =
                errno == ELOOP ? "it is a link" : errno == EEXIST ? "it exists" : String(cString: strerror(errno))
            throw TestError("cannot write '\(path)': \(reason)")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw TestError("cannot write '\(path)': not a regular file")
        }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw TestError("cannot write '\(path)': \(String(cString: strerror(errno)))")
            }
            written += count
        }
    }

    private static func checkInside(_ path: String, _ root: String) throws {
        let folder = folderOf(path)
        guard let realRoot = ScriptFiles.canonical(root), let real = ScriptFiles.canonical(folder),
            real == realRoot || real.hasPrefix(realRoot == "/" ? "/" : realRoot + "/")
        else {
            throw TestError("'\(path)' is outside '\(root)' once links are resolved: golden files stay in the project")
        }
    }
}

/// write(2) (the name is taken by the methods called `write` here).
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.write(descriptor, buffer, count)
    #else
        Darwin.write(descriptor, buffer, count)
    #endif
}

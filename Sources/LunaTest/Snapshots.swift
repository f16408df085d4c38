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
        let folder = folderOf(testFile) + "/__snapshots__/" + stem(testFile)
        let path = folder + "/" + name + "." + kind + ".txt"
        let text = actual.hasSuffix("\n") ? actual : actual + "\n"
        if update || !exists(path) {
            try write(text, to: path, folder: folder)
            return nil
        }
        let expected = try read(path)
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
            } else if j < b.count, i == a.count || lcs[i][j + 1] >= lcs[i + 1][j] {
                lines.append(("+", b[j]))
                j += 1
            } else {
                lines.append(("-", a[i]))
                i += 1
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
        return stat(path, &info) == 0
    }

    static func read(_ path: String) throws -> String {
        String(decoding: try readBytes(path), as: UTF8.self)
    }

    static func readBytes(_ path: String) throws -> [UInt8] {
        guard let handle = fopen(path, "rb") else { throw TestError("cannot read '\(path)'") }
        defer { fclose(handle) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, handle)
            bytes += buffer[0..<count]
            if count < buffer.count { break }
        }
        return bytes
    }

    static func write(_ text: String, to path: String, folder: String) throws {
        var partial = ""
        for part in folder.split(separator: "/", omittingEmptySubsequences: false) {
            partial += (partial.isEmpty && !folder.hasPrefix("/") ? "" : "/") + part
            if partial == "/" || part.isEmpty { continue }
            mkdir(partial, 0o755)
        }
        guard let handle = fopen(path, "wb") else { throw TestError("cannot write '\(path)'") }
        defer { fclose(handle) }
        _ = text.withCString { fputs($0, handle) }
    }
}

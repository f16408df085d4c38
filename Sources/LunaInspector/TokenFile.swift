#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The token of a server on a fixed port, kept across restarts in a file only its owner can
/// read, so open pages (and linked apps) reconnect to a restarted `luna serve` instead of
/// being refused.
package enum TokenFile {
    /// `$XDG_CACHE_HOME/luna` (or `~/.cache/luna`): where tokens are kept; nil without a home.
    static var folder: String? {
        if let cache = getenv("XDG_CACHE_HOME").map({ String(cString: $0) }), cache.hasPrefix("/") {
            return cache + "/luna"
        }
        guard let home = getenv("HOME").map({ String(cString: $0) }), home.hasPrefix("/") else { return nil }
        return home + "/.cache/luna"
    }

    /// The file for a server bound to `host:port`.
    package static func path(host: String, port: Int) -> String? {
        let safe = String(host.map { $0.isLetter || $0.isNumber || $0 == "." ? $0 : "_" })
        return folder.map { $0 + "/token-\(safe)-\(port)" }
    }

    /// The token kept at `path`, or a new one written there. A file that is not a regular
    /// file of this user readable by no one else (a link, another owner, a wider mode) or that
    /// does not hold a token is not trusted: a new token replaces it. When nothing can be
    /// written the new token is simply not kept.
    static func token(at path: String, fresh: () -> String) -> String {
        if let kept = load(path) { return kept }
        let token = fresh()
        store(token, at: path)
        return token
    }

    private static func load(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == getuid(),
            info.st_mode & 0o077 == 0, info.st_size == 32
        else { return nil }
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 32)
        guard read(descriptor, &bytes, 32) == 32,
            bytes.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
        else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func store(_ token: String, at path: String) {
        guard let slash = path.lastIndex(of: "/") else { return }
        makeFolders(String(path[..<slash]))
        // Replaced whole: a new file (owner-only from its creation) renamed over the old one.
        let temporary = path + ".\(getpid()).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return }
        let bytes = Array(token.utf8)
        let written = write(descriptor, bytes, bytes.count)
        close(descriptor)
        if written == bytes.count, rename(temporary, path) == 0 { return }
        unlink(temporary)
    }

    private static func makeFolders(_ folder: String) {
        var partial = ""
        for part in folder.split(separator: "/") {
            partial += "/" + part
            mkdir(partial, 0o700)
        }
    }
}

import LuaHost
import RouteScript

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the watched files did once they settled.
package enum FileChange: Equatable, Sendable {
    /// Written (in place, truncated, renamed over, or recreated): reload once.
    case modified
    /// The script is gone: keep the last tree until it reappears.
    case deleted([String])
}

/// Watches a script and its modules. A save is reported as soon as it is complete — a watched
/// file closed after writing or renamed into place (inotify) — and otherwise once no new
/// change came for the settle interval (a file deleted, a writer that never closes, stat
/// polling): every way an editor saves gives exactly one report. Time is passed in, so tests
/// drive it without sleeping.
package protocol FileWatcher: AnyObject {
    /// A descriptor to poll for readability (inotify), or nil (stat polling).
    var descriptor: Int32? { get }
    /// The files to watch (replaces the previous set).
    func watch(_ files: [String])
    /// The files being watched.
    var watchedFiles: [String] { get }
    /// Reads what happened: inotify events, or a stat pass.
    func collect(now: ContinuousClock.Instant)
    /// When ``settled(now:)`` should next be asked, if a change is pending or polling is due.
    func nextCheck(now: ContinuousClock.Instant) -> ContinuousClock.Instant?
    /// The change once a save is complete (or things have been quiet for the settle
    /// interval); reported once.
    func settled(now: ContinuousClock.Instant) -> FileChange?
    /// After the save just reported failed to load: whether a watched script looks cut short
    /// (a save still being written), so the watcher waits for the rest of it and reports the
    /// save again (up to ``Settler/unfinishedWait`` after its first change); false when the
    /// failure stands. The REPL and `luna serve` ask only when the reload failed, so a save
    /// that loads is parsed once; `luna test --watch` asks before each run (its cases load the
    /// script many times over).
    func waitForRest(now: ContinuousClock.Instant) -> Bool
}

/// The settle logic both watchers share: remember the last change, report it at once when a
/// save is complete (closed after writing, renamed into place), or once quiet.
///
/// A save that is still being written (an editor or a generator that writes in parts, 150 ms
/// to 1 s apart) fails to load while a watched script stops mid-chunk (Lua's parser stops at
/// `<eof>`): its consumer asks ``waitForRest(files:now:)``, and the watcher waits for the rest,
/// up to ``unfinishedWait`` after the first change, so no spurious "reload failed" shows and
/// no half-written tree replaces the app. (The check runs only when a load failed: parsing
/// every save first cost 10 ms at 10,000 routes, on every save.)
struct Settler {
    let interval: Duration
    /// How long an unfinished-looking save may wait for the rest of it.
    static let unfinishedWait: Duration = .seconds(2)
    private var lastChange: ContinuousClock.Instant?
    private var firstChange: ContinuousClock.Instant?
    /// The first change of the save last reported, until the next one is.
    private var reportedFirstChange: ContinuousClock.Instant?
    /// A watched file was closed after writing or renamed into place since the last report.
    private var complete = false
    /// The files as they were when last reported (inode, size, modification time): events
    /// that arrive later for the same save find them unchanged and report nothing more.
    private var reported: [String: [Int]] = [:]
    /// Decides whether a file looks cut short (tests replace it).
    var looksUnfinished: (String) -> Bool = Settler.endsMidChunk

    init(interval: Duration) { self.interval = interval }

    /// A change: `complete` when it ends a save (a close after writing, a rename into place).
    mutating func noteChange(at now: ContinuousClock.Instant, complete: Bool = false) {
        lastChange = now
        if firstChange == nil { firstChange = now }
        if complete { self.complete = true }
    }

    mutating func settled(files: [String], now: ContinuousClock.Instant) -> FileChange? {
        guard let last = lastChange else { return nil }
        let quiet = now - last >= interval
        guard complete || quiet else { return nil }
        let missing = files.filter { access($0, F_OK) != 0 }
        // A file gone is reported only once quiet: an editor that renames the old file away
        // writes the new one right after.
        if !missing.isEmpty, !quiet { return nil }
        // Each file's inode, size and modification time, read once.
        let signatures = Dictionary(uniqueKeysWithValues: files.map { ($0, fileSignature($0)) })
        // An empty file (a save that truncates first, closed once before it is written)
        // waits for the rest at once: reloading it would fail, and the rest, written right
        // after, would be a second reload of one save.
        if missing.isEmpty, let first = firstChange, now - first < Self.unfinishedWait,
            signatures.values.contains(where: isEmptyFile)
        {
            lastChange = now
            complete = false
            return nil
        }
        reportedFirstChange = firstChange
        lastChange = nil
        firstChange = nil
        complete = false
        // The rest of a save already reported (its last close seen after the report).
        if missing.isEmpty, signatures == reported { return nil }
        reported = signatures
        return missing.isEmpty ? .modified : .deleted(missing)
    }

    /// After the save last reported failed to load: whether a file looks cut short within
    /// ``unfinishedWait`` of the save's first change; then the save is pending again (reported
    /// after another interval, or at the next complete save).
    mutating func waitForRest(files: [String], now: ContinuousClock.Instant) -> Bool {
        guard let first = reportedFirstChange, now - first < Self.unfinishedWait,
            files.contains(where: looksUnfinished)
        else { return false }
        lastChange = now
        firstChange = first
        complete = false
        // Reported again even when the file does not change (then the wait runs out).
        reported = [:]
        return true
    }

    /// Whether a Lua file stops mid-chunk: Lua's parser reports its error at `<eof>`. An empty
    /// file counts too: a save that truncates first and writes after closes it empty once.
    static func endsMidChunk(_ path: String) -> Bool {
        guard path.hasSuffix(".lua"), let text = try? ScriptFiles.readText(path) else { return false }
        if text.allSatisfy(\.isWhitespace) { return true }
        guard let vm = try? LuaVM() else { return false }
        defer { vm.close() }
        do {
            _ = try vm.load(text, chunkName: "=check")
            return false
        } catch {
            return "\(error)".contains("<eof>")
        }
    }

    /// When to ask again: at once after a complete save, else when the interval is over.
    var deadline: ContinuousClock.Instant? { lastChange.map { complete ? $0 : $0 + interval } }
}

#if os(Linux)
    /// inotify on the folders that hold the files: a watch on a file itself dies when an
    /// editor renames a new file over it. A file reached through symbolic links is watched at
    /// every path it goes through and at the file it names (its folder too): a save through
    /// the link writes the target, and so does a save at the target.
    package final class InotifyWatcher: FileWatcher {
        private let fd: Int32
        private var folders: [Int32: String] = [:]
        private var files: [String] = []
        /// Every path whose change is a change of a watched file (the files, the links they
        /// go through and the files those name), each written as its folder's real path and
        /// its name, as events are matched.
        private var aliases: Set<String> = []
        package var watchedFiles: [String] { files }
        private var settler: Settler

        /// Nil when inotify is unavailable.
        /// `settleInterval`: how long a change that does not end a save (a deletion, a writer
        /// still open) waits for more.
        package init?(settleInterval: Duration = .milliseconds(80)) {
            let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard fd >= 0 else { return nil }
            self.fd = fd
            self.settler = Settler(interval: settleInterval)
        }

        deinit { close(fd) }

        package var descriptor: Int32? { fd }

        /// Folders still needed keep their watch (adding a watched folder again returns the
        /// same watch), so a save that lands while the set is renewed is not lost.
        package func watch(_ files: [String]) {
            self.files = files.map(WatchPaths.absolute)
            aliases = Set(self.files.flatMap(WatchPaths.aliases))
            let needed = Set(aliases.map(WatchPaths.folder))
            for (watch, folder) in folders where !needed.contains(folder) {
                inotify_rm_watch(fd, watch)
                folders[watch] = nil
            }
            // Not IN_ATTRIB: a mode or owner change after a save is not another save.
            let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_MODIFY)
            for folder in needed {
                let watch = inotify_add_watch(fd, folder, mask)
                if watch >= 0 { folders[watch] = folder }
            }
        }

        package func collect(now: ContinuousClock.Instant) {
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard count > 0 else { return }
                var offset = 0
                while offset + MemoryLayout<inotify_event>.size <= count {
                    let (watch, mask, length, name) = buffer.withUnsafeBytes {
                        raw -> (Int32, UInt32, Int, String) in
                        let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                        let nameStart = offset + MemoryLayout<inotify_event>.size
                        let bytes = raw[nameStart..<min(nameStart + Int(event.len), count)].prefix { $0 != 0 }
                        return (event.wd, event.mask, Int(event.len), String(decoding: bytes, as: UTF8.self))
                    }
                    offset += MemoryLayout<inotify_event>.size + length
                    if let folder = folders[watch], aliases.contains(folder + "/" + name) {
                        // Closed after writing, or renamed into place: the save is done.
                        let complete = mask & UInt32(IN_CLOSE_WRITE | IN_MOVED_TO) != 0
                        settler.noteChange(at: now, complete: complete)
                    }
                }
            }
        }

        package func nextCheck(now: ContinuousClock.Instant) -> ContinuousClock.Instant? { settler.deadline }

        package func settled(now: ContinuousClock.Instant) -> FileChange? { settler.settled(files: files, now: now) }

        package func waitForRest(now: ContinuousClock.Instant) -> Bool { settler.waitForRest(files: files, now: now) }
    }
#endif

#if canImport(Darwin)
    /// kqueue on macOS: a vnode watch on each folder that holds a watched file or a link it
    /// goes through (an entry added, removed or renamed: a rename over the file, a new file, a
    /// deletion) and on each such file (written, extended, deleted, renamed), the same events
    /// the inotify watcher reads. kqueue says which descriptor changed, not how a save ended,
    /// so every change settles for ``Settler/interval``; a file replaced by a rename is
    /// watched again at its new inode.
    package final class KqueueWatcher: FileWatcher {
        private typealias KernelEvent = kevent
        private let queue: Int32
        private var folders: [String: Int32] = [:]
        private var fileWatches: [String: (descriptor: Int32, inode: Int)] = [:]
        private var files: [String] = []
        private var aliases: Set<String> = []
        private var signatures: [String: [Int]] = [:]
        package var watchedFiles: [String] { files }
        private var settler: Settler

        /// Nil when kqueue is unavailable.
        package init?(settleInterval: Duration = .milliseconds(30)) {
            let queue = kqueue()
            guard queue >= 0 else { return nil }
            self.queue = queue
            self.settler = Settler(interval: settleInterval)
        }

        deinit {
            for descriptor in folders.values { close(descriptor) }
            for watch in fileWatches.values { close(watch.descriptor) }
            close(queue)
        }

        package var descriptor: Int32? { queue }

        /// Watches `descriptor` for `events` (closing the descriptor removes the watch).
        private func register(_ descriptor: Int32, _ events: Int32) {
            var change = KernelEvent(
                ident: UInt(descriptor), filter: Int16(EVFILT_VNODE), flags: UInt16(EV_ADD | EV_CLEAR),
                fflags: UInt32(events), data: 0, udata: nil)
            _ = kevent(queue, &change, 1, nil, 0, nil)
        }

        package func watch(_ files: [String]) {
            self.files = files.map(WatchPaths.absolute)
            aliases = Set(self.files.flatMap(WatchPaths.aliases))
            let needed = Set(aliases.map(WatchPaths.folder))
            for (folder, descriptor) in folders where !needed.contains(folder) {
                close(descriptor)
                folders[folder] = nil
            }
            for folder in needed where folders[folder] == nil {
                let descriptor = open(folder, O_EVTONLY)
                guard descriptor >= 0 else { continue }
                folders[folder] = descriptor
                register(descriptor, NOTE_WRITE | NOTE_DELETE | NOTE_RENAME)
            }
            // A file already watched keeps its last signature: a save that lands while the set
            // is renewed is still seen as a change.
            let previous = signatures
            signatures = [:]
            for alias in aliases { signatures[alias] = previous[alias] ?? fileSignature(alias) }
            rearmFiles()
        }

        /// A watch on every watched file that exists, at its current inode.
        private func rearmFiles() {
            for (path, watch) in fileWatches where !aliases.contains(path) || fileSignature(path).first != watch.inode {
                close(watch.descriptor)
                fileWatches[path] = nil
            }
            for path in aliases where fileWatches[path] == nil {
                let descriptor = open(path, O_EVTONLY)
                guard descriptor >= 0 else { continue }
                fileWatches[path] = (descriptor, fileSignature(path).first ?? -1)
                register(descriptor, NOTE_WRITE | NOTE_EXTEND | NOTE_DELETE | NOTE_RENAME)
            }
        }

        package func collect(now: ContinuousClock.Instant) {
            var events = [KernelEvent](repeating: KernelEvent(), count: 64)
            var zero = timespec(tv_sec: 0, tv_nsec: 0)
            var changed = false
            while true {
                let count = kevent(queue, nil, 0, &events, Int32(events.count), &zero)
                guard count > 0 else { break }
                changed = true
                if count < events.count { break }
            }
            guard changed else { return }
            // A folder's event names no file: each watched file is compared with its last
            // signature (inode, size, modification time).
            for alias in aliases {
                let signature = fileSignature(alias)
                if signature != signatures[alias] {
                    signatures[alias] = signature
                    settler.noteChange(at: now)
                }
            }
            rearmFiles()
        }

        package func nextCheck(now: ContinuousClock.Instant) -> ContinuousClock.Instant? { settler.deadline }

        package func settled(now: ContinuousClock.Instant) -> FileChange? { settler.settled(files: files, now: now) }

        package func waitForRest(now: ContinuousClock.Instant) -> Bool { settler.waitForRest(files: files, now: now) }
    }
#endif

/// The fallback where neither inotify nor kqueue is available (or `LUNA_WATCHER=poll`): a stat
/// of every file every ``pollInterval`` (inode, size and modification time). A change is
/// reported once two polls ``Settler/interval`` apart find it unchanged: a save shows within
/// about 50 ms; a save written in parts further apart is waited for as the native watchers
/// wait for it (``FileWatcher/waitForRest(now:)``).
package final class PollingWatcher: FileWatcher {
    package let pollInterval: Duration
    private var signatures: [String: [Int]] = [:]
    private var lastPoll: ContinuousClock.Instant?
    private var files: [String] = []
    package var watchedFiles: [String] { files }
    private var settler: Settler

    package init(pollInterval: Duration = .milliseconds(15), settleInterval: Duration = .milliseconds(30)) {
        self.pollInterval = pollInterval
        self.settler = Settler(interval: settleInterval)
    }

    package var descriptor: Int32? { nil }

    /// A file already watched keeps its last signature, so a save that lands while the set is
    /// renewed is still seen as a change.
    package func watch(_ files: [String]) {
        self.files = files
        var next: [String: [Int]] = [:]
        for file in files { next[file] = signatures[file] ?? fileSignature(file) }
        signatures = next
    }

    package func collect(now: ContinuousClock.Instant) {
        lastPoll = now
        for file in files {
            let signature = fileSignature(file)
            if signature != signatures[file] {
                signatures[file] = signature
                settler.noteChange(at: now)
            }
        }
    }

    package func nextCheck(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        let poll = (lastPoll ?? now) + pollInterval
        guard let settle = settler.deadline else { return poll }
        return min(poll, settle)
    }

    package func settled(now: ContinuousClock.Instant) -> FileChange? { settler.settled(files: files, now: now) }

    package func waitForRest(now: ContinuousClock.Instant) -> Bool { settler.waitForRest(files: files, now: now) }
}

/// A file's inode, size and modification time (nanoseconds); empty when it does not exist.
func fileSignature(_ path: String) -> [Int] {
    var info = stat()
    guard stat(path, &info) == 0 else { return [] }
    #if os(Linux)
        let modified = Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec)
    #else
        let modified = Int(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int(info.st_mtimespec.tv_nsec)
    #endif
    return [Int(info.st_ino), Int(info.st_size), modified]
}

/// Whether a ``fileSignature(_:)`` is that of an existing, empty file.
func isEmptyFile(_ signature: [Int]) -> Bool { signature.count == 3 && signature[1] == 0 }

/// The best watcher for this system: inotify (Linux), kqueue (macOS), or stat polling — which
/// `LUNA_WATCHER=poll` in the environment forces (a file system that sends no events, such as
/// some network and container mounts; and the tests, which run the saves through it).
package func makeFileWatcher() -> any FileWatcher {
    if let forced = getenv("LUNA_WATCHER"), String(cString: forced) == "poll" { return PollingWatcher() }
    #if os(Linux)
        if let watcher = InotifyWatcher() { return watcher }
    #elseif canImport(Darwin)
        if let watcher = KqueueWatcher() { return watcher }
    #endif
    return PollingWatcher()
}

/// Paths as the native watchers match them: absolute, and every symbolic link a path goes
/// through with the file it names, each as its folder's real path and its name (a save through
/// the link writes the target, and so does a save at the target).
enum WatchPaths {
    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let cwd = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return cwd + "/" + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
    }

    static func folder(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `path` (absolute), each symbolic link it goes through and the file they name, at
    /// most 16 links deep, each as its folder's real path and its name.
    static func aliases(_ path: String) -> [String] {
        var result: [String] = []
        var current = path
        for _ in 0...16 {
            let name =
                current.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? current
            let parent = realPath(Self.folder(current)) ?? Self.folder(current)
            let canonical = (parent == "/" ? "" : parent) + "/" + name
            if result.contains(canonical) { break }
            result.append(canonical)
            guard let target = linkTarget(canonical) else { break }
            current = target.hasPrefix("/") ? target : parent + "/" + target
        }
        return result
    }

    /// The target a symbolic link names, or nil when `path` is not one.
    static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The real path of a folder (links resolved), or nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

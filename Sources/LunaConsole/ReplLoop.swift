import LunaLive
import RouteCore
import RouteScript

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The self-pipe Ctrl-C writes to, so poll wakes up: created once, before the handler.
private let interruptPipe: (read: Int32, write: Int32) = {
    var fds: [Int32] = [-1, -1]
    _ = pipe(&fds)
    for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    return (fds[0], fds[1])
}()

/// Runs a ``Session``: reads commands from a terminal (with line editing) or a pipe (no
/// prompt, no colour), and reloads the script when the watcher reports a settled change —
/// also while the user sits at the prompt.
package final class ReplLoop {
    let session: Session
    let watcher: (any FileWatcher)?
    let editor: LineEditor?
    let reader: LineReader
    private let clock = ContinuousClock()

    /// - Parameters:
    ///   - interactive: use libedit on the terminal; otherwise read lines from standard input.
    ///   - watcher: reloads on change; nil for `--no-watch`.
    /// Lines about changes another view (an inspector page) made, waiting to be printed.
    private let others = OtherViews()
    private var observer: ObserverToken?

    /// - Parameter echoPageEvents: print a line for each change an inspector page makes.
    package init(
        session: Session, interactive: Bool, watcher: (any FileWatcher)?, historyPath: String?,
        echoPageEvents: Bool = false
    ) {
        self.session = session
        self.watcher = watcher
        self.reader = LineReader(fd: STDIN_FILENO)
        if echoPageEvents {
            let others = self.others
            let json = session.json
            observer = session.live.observe { event, _ in
                guard event.origin == .page, let line = Self.describe(event, json: json) else { return }
                others.post(line)
            }
        }
        if interactive {
            // The tree is read under the session's lock (a page may be reloading the host) and,
            // being immutable and Sendable, used after it.
            let live = session.live
            editor = LineEditor(prompt: "luna> ", historyPath: historyPath) { word, before in
                Completion.candidates(for: word, after: before, tree: live.withHost { $0.routeTree })
            }
        } else {
            editor = nil
        }
        watcher?.watch(session.live.withHost { $0.files })
    }

    /// Runs `first` (if any), then commands until end of input or `quit`.
    package func run(first: String? = nil) {
        if let first {
            let result = session.execute(first)
            if let editor { editor.printAbovePrompt(result.lines.joined(separator: "\n")) } else { emit(result.lines) }
        }
        _ = interruptPipe
        // A parent may have blocked SIGINT (a test runner's thread, an IDE); the mask is
        // inherited across exec, and Ctrl-C must work here.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        signal(SIGINT) { _ in
            var byte: UInt8 = 1
            _ = write(interruptPipe.write, &byte, 1)
        }
        defer {
            signal(SIGINT, SIG_DFL)
            observer?.cancel()
            editor?.close()
        }
        while true {
            var fds = [
                pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                pollfd(fd: interruptPipe.read, events: Int16(POLLIN), revents: 0),
            ]
            if let fd = watcher?.descriptor { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
            fds.append(pollfd(fd: others.wake.read, events: Int16(POLLIN), revents: 0))
            var timeout: Int32 = -1
            if let next = watcher?.nextCheck(now: clock.now) {
                let wait = next - clock.now
                timeout = Int32(
                    max(0, wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000))
            }
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if ready < 0 && errno != EINTR { return }
            let now = clock.now
            if fds[1].revents & Int16(POLLIN) != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                _ = read(interruptPipe.read, &drain, drain.count)
                session.cancelContinuation()
                if let editor { editor.cancelLine() } else { return }
            }
            if fds[fds.count - 1].revents & Int16(POLLIN) != 0 { notify(others.take()) }
            if let watcher {
                watcher.collect(now: now)
                if let change = watcher.settled(now: now) { handle(change, watcher: watcher) }
            }
            if fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                let lines: [String]?
                if let editor { lines = editor.readAvailable() } else { lines = reader.readAvailable() }
                guard let lines else { return }
                var continuing = false
                for line in lines {
                    let result = session.execute(line)
                    emit(result.lines)
                    if result.quit { return }
                    continuing = result.continues
                }
                if !lines.isEmpty { editor?.resume(continuing: continuing) }
                if editor == nil && reader.isAtEnd { return }
            }
        }
    }

    private func handle(_ change: FileChange, watcher: any FileWatcher) {
        switch change {
        case .modified:
            let clock = ContinuousClock()
            if let result = session.reloadAfterChange(cutShort: { watcher.waitForRest(now: clock.now) }) {
                notify(result.lines)
            }
            watcher.watch(session.live.withHost { $0.files })
        case .deleted(let files):
            let names = files.map { $0.split(separator: "/").last.map(String.init) ?? $0 }.joined(separator: ", ")
            if session.json {
                notify(["{\"reload\":{\"deleted\":\(JSONWriter.quoted(names)),\"kept\":true}}"])
            } else {
                notify([session.style.yellow("\(names) was deleted; keeping the last tree until it comes back")])
            }
        }
    }

    /// A page's change as one line: `page: dispatch books/42 → books/:id  (5 ops)`.
    static func describe(_ event: LiveEvent, json: Bool) -> String? {
        let text: String
        if let entry = event.entry {
            text = entry.line
        } else if let error = event.error {
            text = "error: " + Failure(error).message
        } else if event.kind == .travelled {
            text = "travelled"
        } else {
            return nil
        }
        if json { return "{\"page\":\(JSONWriter.quoted(text))}" }
        return "page: " + text
    }

    private func notify(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        if let editor { editor.printAbovePrompt(lines.joined(separator: "\n")) } else { emit(lines) }
    }

    private func emit(_ lines: [String]) {
        for line in lines { writeAll(STDOUT_FILENO, line + "\n") }
    }
}

/// Tab completion: commands at the start of a line; then what each command takes — route
/// patterns and names (`name|{` for named requests), `phone`/`pad` after `device`, the
/// options `--keep` and `--json` where they apply.
package enum Completion {
    package static func candidates(for word: String, after before: String, tree: RouteTree?) -> [String] {
        let words = before.split(whereSeparator: \.isWhitespace).map(String.init)
        if words.isEmpty && !word.hasPrefix("/") {
            return Session.commands.map(\.word).filter { $0.hasPrefix(word) && $0 != "=" }
        }
        let typed = words.first ?? ""
        // What the command takes, from the command table (`/PATH` is `go`).
        let spec = typed.hasPrefix("/") || words.isEmpty ? CommandSpec.named("dispatch") : CommandSpec.typed(typed)
        guard let spec, !spec.arguments.contains(where: { $0.kind == .raw }) else { return [] }
        if word.hasPrefix("--") {
            let options = spec.arguments.filter { $0.kind == .option }.map { "--" + $0.key } + ["--json"]
            return options.filter { $0.hasPrefix(word) }
        }
        // The argument being typed: the words after the command's own (a `/PATH` is one).
        let position = typed.hasPrefix("/") ? 1 : max(0, words.count - 1)
        let positional = spec.arguments.filter { $0.kind != .option }
        guard let argument = positional.indices.contains(position) ? positional[position] : positional.last else {
            return []
        }
        switch argument.kind {
        case .choice(let names): return names.sorted().filter { $0.hasPrefix(word) }
        case .text where argument.key == "request":
            guard let tree else { return [] }
            let slash = word.hasPrefix("/")
            let stem = slash ? String(word.dropFirst()) : word
            return tree.completionWords.filter { $0.hasPrefix(stem) }.sorted().map { slash ? "/" + $0 : $0 }
        default: return []
        }
    }
}

/// Lines posted from the inspector's threads, and a pipe that wakes the REPL's poll.
final class OtherViews: @unchecked Sendable {
    let wake: (read: Int32, write: Int32)
    private var lines: [String] = []
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init() {
        var fds: [Int32] = [-1, -1]
        _ = pipe(&fds)
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        wake = (fds[0], fds[1])
        pthread_mutex_init(lock, nil)
    }

    deinit {
        close(wake.read)
        close(wake.write)
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    func post(_ line: String) {
        pthread_mutex_lock(lock)
        lines.append(line)
        pthread_mutex_unlock(lock)
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    func take() -> [String] {
        var drain = [UInt8](repeating: 0, count: 256)
        while read(wake.read, &drain, drain.count) > 0 {}
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        let taken = lines
        lines = []
        return taken
    }
}

import RouteScript

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Hot reload without a REPL (`luna serve`): waits for the watcher's settled changes and
/// reloads the session, reporting each outcome. Runs until the process ends.
package enum WatchLoop {
    /// Runs until `stop` returns true (checked at least every 100 ms; `luna serve` never stops).
    package static func run(
        session: LiveSession, watcher: any FileWatcher, report: (String) -> Void, until stop: () -> Bool = { false }
    ) {
        let clock = ContinuousClock()
        let files = session.withHost { $0.files }
        if watcher.watchedFiles != files { watcher.watch(files) }
        while !stop() {
            var fds = watcher.descriptor.map { [pollfd(fd: $0, events: Int16(POLLIN), revents: 0)] } ?? []
            var timeout: Int32 = 100
            if let next = watcher.nextCheck(now: clock.now) {
                let wait = next - clock.now
                timeout = min(
                    100,
                    Int32(max(0, wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000)))
            }
            _ = poll(&fds, nfds_t(fds.count), timeout)
            let now = clock.now
            watcher.collect(now: now)
            switch watcher.settled(now: now) {
            case .modified:
                do {
                    // What the REPL prints for a reload: the summary, the plan, the lint's
                    // warnings; nothing while the save is still being written.
                    let view = try session.reloadAfterSave(forms: .text) { watcher.waitForRest(now: clock.now) }
                    if let view { report(view.text(.plain).joined(separator: "\n")) }
                } catch {
                    report("reload failed: " + error.message + "\n(the previous tree is still running)")
                }
                watcher.watch(session.withHost { $0.files })
            case .deleted(let files):
                report("\(files.joined(separator: ", ")) was deleted; keeping the last tree until it comes back")
            case nil:
                break
            }
        }
    }
}

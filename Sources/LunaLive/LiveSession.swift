import RouteCore
import RouteScript

/// One live navigation session: a loaded script host, its history, and the observers that
/// show it (the REPL, any number of inspector pages). Every change goes through here, so
/// what one view does shows in all of them.
///
/// The session is thread-safe: the REPL calls it from the main thread, the inspector from
/// its server's threads. Each operation runs under one lock; observers are called under that
/// lock, in order, and must only hand the event on (never block).
///
/// ```swift
/// let session = LiveSession(host: try RouteScriptHost(contentsOf: "examples/books.lua"))
/// let token = session.observe { event in print(event.kind) }
/// _ = try session.dispatch("books/42")     // observers see .dispatched
/// try session.undo()                       // back to the state before it
/// ```
// Unchecked: every stored property is read and written only inside `lock` (the host, the
// history, the observers), which is what makes one session safe to share between the REPL's
// thread and the inspector's event loops.
package final class LiveSession: @unchecked Sendable {
    /// The host. Touch it only inside ``withHost(_:)``.
    private let host: RouteScriptHost
    /// Re-entrant: the session's operations call one another, and observers called under it may
    /// read the session.
    private let lock = ReentrantGate()
    private var observers: [(id: Int, handler: (LiveEvent) -> Void)] = []
    private var nextObserver = 0
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    /// The last ``maximumHistory`` changes (up to a tenth more), oldest first.
    private var entries: [HistoryEntry] = []
    /// Entries dropped from the front (the oldest); entry `k` is `entries[k - dropped]`.
    private var dropped = 0
    /// The history entries always kept: older ones are dropped (a tenth at a time), and counted.
    package static let maximumHistory = 1_000
    /// The entry whose state is on screen (moves with undo and goto).
    private var position: Int?
    /// Bumped by every successful reload: states of an older tree cannot be restored directly.
    private var generation = 0
    /// The entry on screen before each action, newest last (`undo` goes back to it) — as an
    /// editor's undo: after a travel, undo returns to where the travel started.
    private var undoStack: [Int?] = []
    /// Entries undone, newest last (`redo` goes back to them); any new action clears it.
    private var redoStack: [Int] = []

    package init(host: RouteScriptHost) {
        self.host = host
        self.started = clock.now
    }

    /// Runs `body` with the host, under the session's lock (the REPL's Lua evaluation,
    /// rendering, completion).
    package func withHost<T>(_ body: (RouteScriptHost) throws -> T) rethrows -> T {
        try lock.enter { try body(host) }
    }

    /// Runs `body` with the host when no other thread is working on the session; nil at once
    /// when one is (the inspector's network side never waits behind a slow dispatch).
    package func withHostIfFree<T>(_ body: (RouteScriptHost) throws -> T) rethrows -> T? {
        try lock.enterIfFree { try body(host) }
    }

    /// Registers an observer; it is called for every event until the token is cancelled.
    package func observe(_ handler: @escaping (LiveEvent) -> Void) -> ObserverToken {
        lock.enter {
            nextObserver += 1
            observers.append((nextObserver, handler))
            return ObserverToken(id: nextObserver, session: self)
        }
    }

    func removeObserver(_ id: Int) {
        lock.enter { observers.removeAll { $0.id == id } }
    }

    // MARK: Operations

    /// Dispatches a request, records it and tells the observers.
    @discardableResult
    package func dispatch(
        _ request: String, keepStack: Bool = false, from origin: LiveEvent.Origin = .repl
    ) throws
        -> RouteScriptHost.Outcome
    {
        try change(.dispatch, request: request, origin: origin, detail: keepStack ? "--keep" : nil) {
            try $0.dispatch(request, keepStack: keepStack)
        }
    }

    /// Records a change the UI already made (`sync`: the plan keeps only create, update and unwind).
    @discardableResult
    package func sync(_ request: String, from origin: LiveEvent.Origin = .repl) throws -> RouteScriptHost.Outcome {
        try change(.sync, request: request, origin: origin) { try $0.sync(request) }
    }

    /// The user went back: pops the top stack or dismisses the top modal.
    @discardableResult
    package func back(from origin: LiveEvent.Origin = .repl) throws -> RouteScriptHost.Outcome {
        try change(.back, request: nil, origin: origin) { try $0.back() }
    }

    /// Sets (nil clears) an app flag; the current request is resolved again.
    @discardableResult
    package func setFlag(
        _ name: String, _ value: String?, from origin: LiveEvent.Origin = .repl
    ) throws
        -> RouteScriptHost.Outcome?
    {
        try lock.enter {
            do {
                let outcome = try host.setFlag(name, value)
                record(
                    .flag, request: outcome?.request, outcome: outcome, summary: nil, origin: origin,
                    detail: value.map { "\(name)=\($0)" } ?? "\(name) cleared")
                return outcome
            } catch {
                notify(LiveEvent(kind: .failed, origin: origin, entry: nil, error: error))
                throw error
            }
        }
    }

    /// Re-evaluates the script for another device, keeping the state.
    @discardableResult
    package func setDevice(_ device: Device, from origin: LiveEvent.Origin = .repl) throws -> ReloadSummary {
        try reloading(.device, origin: origin, detail: device.rawValue) { try $0.setDevice(device) }
    }

    /// Reloads the script now (or because the watcher saw a save).
    @discardableResult
    package func reload(from origin: LiveEvent.Origin = .repl) throws -> ReloadSummary {
        try reloading(.reload, origin: origin, detail: nil) { try $0.reload() }
    }

    /// Explains a request; changes nothing and records nothing.
    package func explain(_ request: String) throws -> MatchExplanation {
        try lock.enter { try host.explain(request) }
    }

    /// Back to the script's initial state (nothing shown): every presentable is unwound. The
    /// history keeps going; `save-test` starts from the last reset.
    package func reset(from origin: LiveEvent.Origin = .repl) throws {
        try lock.enter {
            do {
                _ = try host.restore(.initial)
                record(.reset, request: nil, outcome: nil, summary: nil, origin: origin)
            } catch {
                notify(LiveEvent(kind: .failed, origin: origin, entry: nil, error: error))
                throw error
            }
        }
    }

    // MARK: History

    /// The history kept (the last ``maximumHistory`` entries), oldest first.
    package var history: [HistoryEntry] { lock.enter { entries } }

    /// How many entries the history has had (kept and dropped).
    package var historyCount: Int { lock.enter { dropped + entries.count } }

    /// How many of the oldest entries were dropped to keep the history bounded.
    package var historyDropped: Int { lock.enter { dropped } }

    /// The index of the entry on screen, if any.
    package var currentEntry: Int? { lock.enter { position } }

    /// Goes back to the state of entry `index` (and can be undone): the plan from the state on screen to that
    /// state, applied through the presenters like any dispatch (kept presentables are
    /// reused; `create` and `unwind` run as needed). An entry from before a reload is
    /// reached by dispatching its request on the current tree.
    @discardableResult
    package func travel(to index: Int, from origin: LiveEvent.Origin = .repl) throws -> RouteScriptHost.Outcome? {
        try lock.enter {
            let before = position
            let redo = redoStack
            undoStack.append(before)
            redoStack.removeAll()
            do { return try move(to: index, from: origin) } catch {
                undoStack.removeLast()
                redoStack = redo
                throw error
            }
        }
    }

    private func move(to index: Int, from origin: LiveEvent.Origin) throws -> RouteScriptHost.Outcome? {
        try lock.enter {
            guard index >= dropped, entries.indices.contains(index - dropped) else {
                if index >= 0, index < dropped {
                    throw LiveSessionError(
                        "history entry \(index) was dropped (the last \(Self.maximumHistory) entries are kept)")
                }
                throw LiveSessionError(
                    "there is no history entry \(index) (the history has \(dropped + entries.count))")
            }
            let target = entries[index - dropped]
            do {
                let outcome: RouteScriptHost.Outcome?
                if target.generation == generation {
                    outcome = try host.restore(target.state)
                } else if let request = target.state.requested ?? target.state.request?.original {
                    outcome = try host.dispatch(request)
                } else {
                    outcome = try host.restore(.initial)
                }
                position = index
                notify(LiveEvent(kind: .travelled, origin: origin, entry: target, outcome: outcome))
                return outcome
            } catch {
                notify(LiveEvent(kind: .failed, origin: origin, entry: nil, error: error))
                throw error
            }
        }
    }

    /// Goes back to what was on screen before the last action (a dispatch, back, flag, reload
    /// or travel), as an editor's undo does; ``redo(from:)`` goes forward again.
    @discardableResult
    package func undo(from origin: LiveEvent.Origin = .repl) throws -> RouteScriptHost.Outcome? {
        try lock.enter {
            // Entries dropped from the history cannot be gone back to.
            while let last = undoStack.last, let index = last, index < dropped { undoStack.removeLast() }
            guard let last = undoStack.last, let target = last, let current = position else {
                throw LiveSessionError("there is nothing to undo")
            }
            // The stacks change first, so the event's observers see what can be undone now.
            undoStack.removeLast()
            redoStack.append(current)
            do { return try move(to: target, from: origin) } catch {
                redoStack.removeLast()
                undoStack.append(target)
                throw error
            }
        }
    }

    /// Goes forward to what the last ``undo(from:)`` left.
    @discardableResult
    package func redo(from origin: LiveEvent.Origin = .repl) throws -> RouteScriptHost.Outcome? {
        try lock.enter {
            guard let target = redoStack.last, target >= dropped else {
                throw LiveSessionError("there is nothing to redo")
            }
            let before = position
            redoStack.removeLast()
            undoStack.append(before)
            do { return try move(to: target, from: origin) } catch {
                undoStack.removeLast()
                redoStack.append(target)
                throw error
            }
        }
    }

    /// Whether ``undo(from:)`` and ``redo(from:)`` have somewhere to go (for buttons).
    package var canUndo: Bool { lock.enter { (undoStack.last ?? nil).map { $0 >= dropped } ?? false } }
    package var canRedo: Bool { lock.enter { redoStack.last.map { $0 >= dropped } ?? false } }

    // MARK: Recording

    private func change(
        _ kind: HistoryEntry.Kind, request: String?, origin: LiveEvent.Origin, detail: String? = nil,
        _ body: (RouteScriptHost) throws -> RouteScriptHost.Outcome
    ) throws -> RouteScriptHost.Outcome {
        try lock.enter {
            do {
                let outcome = try body(host)
                // `back` names no request: the entry shows where it went.
                let shown = request ?? host.state.requested ?? host.state.request?.original ?? outcome.request
                record(kind, request: shown, outcome: outcome, summary: nil, origin: origin, detail: detail)
                return outcome
            } catch {
                notify(LiveEvent(kind: .failed, origin: origin, entry: nil, request: request, error: error))
                throw error
            }
        }
    }

    private func reloading(
        _ kind: HistoryEntry.Kind, origin: LiveEvent.Origin, detail: String?,
        _ body: (RouteScriptHost) throws -> ReloadSummary
    ) throws -> ReloadSummary {
        try lock.enter {
            do {
                let summary = try body(host)
                generation += 1
                record(
                    kind, request: host.state.requested, outcome: nil, summary: summary, origin: origin, detail: detail)
                return summary
            } catch {
                notify(LiveEvent(kind: .reloadFailed, origin: origin, entry: nil, error: error))
                throw error
            }
        }
    }

    private func record(
        _ kind: HistoryEntry.Kind, request: String?, outcome: RouteScriptHost.Outcome?, summary: ReloadSummary?,
        origin: LiveEvent.Origin, detail: String? = nil
    ) {
        let state = host.state
        let entry = HistoryEntry(
            index: dropped + entries.count, milliseconds: Self.milliseconds(clock.now - started), kind: kind,
            request: request,
            route: state.route.flatMap { route in
                host.routeTree.map { Lint.show($0.endpoints[route].definition.displayText) }
            },
            planSize: outcome?.plan.operations.count ?? summary?.plan.operations.count ?? 0, detail: detail,
            state: state, generation: generation)
        undoStack.append(position)
        redoStack.removeAll()
        if undoStack.count > Self.maximumHistory * 2 { undoStack.removeFirst(Self.maximumHistory) }
        entries.append(entry)
        // Dropped a tenth at a time, so a dispatch does not shift the whole array each time.
        if entries.count > Self.maximumHistory + Self.maximumHistory / 10 {
            let excess = entries.count - Self.maximumHistory
            entries.removeFirst(excess)
            dropped += excess
        }
        position = entry.index
        let eventKind: LiveEvent.Kind =
            switch kind {
            case .dispatch, .sync: .dispatched
            case .back: .wentBack
            case .flag: .flagChanged
            case .device: .deviceChanged
            case .reload: .reloaded
            case .reset: .travelled
            }
        notify(LiveEvent(kind: eventKind, origin: origin, entry: entry, outcome: outcome, summary: summary))
    }

    private func notify(_ event: LiveEvent) {
        for observer in observers { observer.handler(event) }
    }

    package static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}

/// Keeps an observer registered; ``cancel()`` (or dropping every copy's session) stops it.
package struct ObserverToken: Sendable {
    let id: Int
    weak var session: LiveSession?

    package func cancel() { session?.removeObserver(id) }
}

/// A session operation that could not be done (no such history entry, nothing to undo).
package struct LiveSessionError: Error, CustomStringConvertible, Sendable {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

import RouteCore
import RouteScript

/// One live navigation session: a loaded script host, its history, and the observers that
/// show it (the REPL, any number of inspector pages). Every change goes through here, so
/// what one view does shows in all of them.
///
/// The session is thread-safe: the REPL calls it from the main thread, the inspector from
/// its server's threads. Its state (the host, the history, the observers) is one value behind
/// one lock, taken once per ``perform(_:from:)``; observers are called under that lock, in
/// order, get a ``SessionReader`` for what they draw, and must only hand the event on.
///
/// ```swift
/// let session = LiveSession(host: try RouteScriptHost(contentsOf: "examples/books.lua"))
/// let token = session.observe { event, _ in print(event.kind) }
/// let view = try session.perform(.dispatch("books/42"))   // observers see .dispatched
/// print(view.text(.plain).joined(separator: "\n"))
/// try session.perform(.undo)                              // back to the state before it
/// ```
package final class LiveSession: Sendable {
    let state: Locked<SessionState>

    /// The history entries always kept: older ones are dropped (a tenth at a time), and counted.
    package static let maximumHistory = 1_000

    package init(host: RouteScriptHost) {
        state = Locked(SessionState(host: host))
    }

    /// Runs one command under the session's lock: what it changed is recorded and observed
    /// before this returns; the view holds values only.
    /// `forms`: which forms of the presentable tree the view renders (``ViewForms``).
    @discardableResult
    package func perform(
        _ command: Command, from origin: LiveEvent.Origin = .repl, forms: ViewForms = .both
    ) throws(Failure) -> View {
        do { return try state.withLock { try $0.perform(command, origin: origin, forms: forms) } } catch {
            throw Failure(error)
        }
    }

    /// A reload after a save the watcher reported. When it fails and `cutShort` says the save
    /// looks cut short (``FileWatcher/waitForRest(now:)``: still being written), nothing is
    /// recorded or reported and nil is returned: the watcher reports the rest of the save.
    /// Otherwise as ``perform(_:from:forms:)`` with ``Command/reload``.
    package func reloadAfterSave(forms: ViewForms, cutShort: () -> Bool) throws(Failure) -> View? {
        do { return try state.withLock { try $0.reloadAfterSave(forms: forms, cutShort: cutShort) } } catch {
            throw Failure(error)
        }
    }

    /// Runs `body` with the host under the session's lock (loading a script, reading what
    /// files to watch, a test's checks). Not from an observer: the lock is held there.
    package func withHost<T>(_ body: (RouteScriptHost) throws -> T) rethrows -> T {
        try state.withLock { try body($0.host) }
    }

    /// Runs `body` with the host when no other thread is working on the session; nil at once
    /// when one is (the inspector's network side never waits behind a slow dispatch).
    package func withHostIfFree<T>(_ body: (RouteScriptHost) throws -> T) rethrows -> T? {
        try state.withLockIfFree { try body($0.host) }
    }

    /// ``perform(_:from:)`` when no other thread is working on the session; nil at once when
    /// one is.
    package func performIfFree(_ command: Command, from origin: LiveEvent.Origin = .repl) throws(Failure) -> View? {
        do { return try state.withLockIfFree { try $0.perform(command, origin: origin, forms: .json) } } catch {
            throw Failure(error)
        }
    }

    /// Registers an observer; it is called for every event until the token is cancelled.
    package func observe(_ handler: @escaping (LiveEvent, SessionReader) -> Void) -> ObserverToken {
        state.withLock { state in
            state.nextObserver += 1
            state.observers.append((state.nextObserver, handler))
            return ObserverToken(id: state.nextObserver, session: self)
        }
    }

    func removeObserver(_ id: Int) {
        state.withLock { $0.observers.removeAll { $0.id == id } }
    }

    /// Dispatches the script's `initial` request when nothing is shown yet (`luna serve`,
    /// `luna.open`; the REPL types it as its first line): the view, or nil when the script
    /// declares none or something is shown.
    @discardableResult
    package func startAtInitial(from origin: LiveEvent.Origin = .repl) throws(Failure) -> View? {
        guard let initial = withHost({ $0.state.request == nil ? $0.routeTree?.initial : nil }) else { return nil }
        return try perform(.dispatch(initial), from: origin)
    }

    // MARK: Shorthands (tests and the inspector's replies)

    /// Dispatches a request, records it and tells the observers.
    @discardableResult
    package func dispatch(
        _ request: String, keepStack: Bool = false, from origin: LiveEvent.Origin = .repl
    ) throws -> RouteScriptHost.Outcome? {
        try perform(.dispatch(request, keepStack: keepStack), from: origin).change?.outcome
    }

    @discardableResult
    package func back(from origin: LiveEvent.Origin = .repl) throws -> RouteScriptHost.Outcome? {
        try perform(.back, from: origin).change?.outcome
    }

    @discardableResult
    package func undo(from origin: LiveEvent.Origin = .repl) throws -> RouteScriptHost.Outcome? {
        try perform(.undo, from: origin).change?.outcome
    }

    @discardableResult
    package func redo(from origin: LiveEvent.Origin = .repl) throws -> RouteScriptHost.Outcome? {
        try perform(.redo, from: origin).change?.outcome
    }

    @discardableResult
    package func travel(to index: Int, from origin: LiveEvent.Origin = .repl) throws -> RouteScriptHost.Outcome? {
        try perform(.travel(index), from: origin).change?.outcome
    }

    /// The history kept (the last ``maximumHistory`` entries), oldest first.
    package var history: [HistoryEntry] { state.withLock { $0.entries } }
    /// How many entries the history has had (kept and dropped).
    package var historyCount: Int { state.withLock { $0.dropped + $0.entries.count } }
    /// How many of the oldest entries were dropped to keep the history bounded.
    package var historyDropped: Int { state.withLock { $0.dropped } }
    /// The index of the entry on screen, if any.
    package var currentEntry: Int? { state.withLock { $0.position } }

    package static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}

/// What an observer may read while it is called (under the session's lock): valid only
/// during the call.
package struct SessionReader {
    let state: SessionState

    /// What a page draws now.
    package func snapshot(routes: Bool) -> SnapshotView { state.snapshot(routes: routes) }
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

/// Everything a session holds, behind its one lock.
final class SessionState {
    let host: RouteScriptHost
    var observers: [(id: Int, handler: (LiveEvent, SessionReader) -> Void)] = []
    var nextObserver = 0
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    /// The last ``LiveSession/maximumHistory`` changes (up to a tenth more), oldest first.
    var entries: [HistoryEntry] = []
    /// Entries dropped from the front (the oldest); entry `k` is `entries[k - dropped]`.
    var dropped = 0
    /// The entry whose state is on screen (moves with undo and goto).
    var position: Int?
    /// Bumped by every successful reload: states of an older tree cannot be restored directly.
    private var generation = 0
    /// The entry on screen before each action, newest last (`undo` goes back to it) — as an
    /// editor's undo: after a travel, undo returns to where the travel started.
    private var undoStack: [Int?] = []
    /// Entries undone, newest last (`redo` goes back to them); any new action clears it.
    private var redoStack: [Int] = []
    /// The last route table made (for the snapshot of a page).
    private var routeTable: RouteTable?
    private var controlsCache: (RouteTree, Controls.Context)?
    /// Seconds waited (`wait`) since the last history entry with nothing falling due: the next
    /// `wait` entry records them too, so a saved test waits as long.
    private var unrecordedWait = 0.0
    /// The last failed reload (cleared by the next good one), for pages that connect later.
    private var reloadError: String?
    /// The last reload's warnings (a request that no longer matches, the lint's findings).
    private var reloadWarnings: [String] = []
    /// Hosts of the script for the idioms of linked devices other than the session's, kept in
    /// step with its state (``DeviceLink``), and why one could not follow.
    var twins: [Device: RouteScriptHost] = [:]
    var twinErrors: [Device: String] = [:]
    /// The last tree exported for linked devices (``exported(_:)``).
    var exportedTree: (tree: RouteTree, text: String)?

    init(host: RouteScriptHost) {
        self.host = host
        self.started = clock.now
    }

    private var maximumHistory: Int { LiveSession.maximumHistory }

    /// The tree forms the command being performed renders.
    private var forms = ViewForms.both

    /// Runs `command`; any error comes out as a ``Failure`` (with the request it concerned and
    /// its location as the user gave the script).
    func perform(_ command: Command, origin: LiveEvent.Origin, forms: ViewForms) throws(Failure) -> View {
        self.forms = forms
        do { return try run(command, origin: origin) } catch { throw failure(error, of: command) }
    }

    /// ``LiveSession/reloadAfterSave(forms:cutShort:)``: ``perform(_:origin:forms:)`` with
    /// ``Command/reload`` from the watcher, or nil while the save is still being written.
    func reloadAfterSave(forms: ViewForms, cutShort: () -> Bool) throws(Failure) -> View? {
        self.forms = forms
        do {
            return try reloading(.reload, origin: .watcher, .reload, detail: nil, cutShort: cutShort) {
                try $0.reload()
            }
        } catch is SaveCutShort {
            return nil
        } catch {
            throw failure(error, of: .reload)
        }
    }

    private func failure(_ error: any Error, of command: Command) -> Failure {
        let request: String? =
            switch command {
            case .dispatch(let request, _), .sync(let request), .explain(let request), .push(let request): request
            case .flag: host.state.requested
            default: nil
            }
        return Failure(error, request: request).relocated(script: host.path)
    }

    private func run(_ command: Command, origin: LiveEvent.Origin) throws -> View {
        switch command {
        case .dispatch(let request, let keep):
            return try change(.dispatch, request: request, origin: origin, command, detail: keep ? "--keep" : nil) {
                try $0.dispatch(request, keepStack: keep)
            }
        case .sync(let request):
            return try change(.sync, request: request, origin: origin, command) { try $0.sync(request) }
        case .push(let request):
            return try change(.push, request: request, origin: origin, command) { try $0.push(request) }
        case .open(let id, let params, let keep):
            // Recorded as the request it opened (a test replays it with `go`).
            let request = try host.request(opening: id, params: params)
            return try change(
                .dispatch, request: request, origin: origin, .dispatch(request, keepStack: keep),
                detail: keep ? "--keep" : nil
            ) { try $0.dispatch(request, keepStack: keep) }
        case .back:
            return try change(.back, request: nil, origin: origin, command) { try $0.back() }
        case .close:
            return try change(.close, request: nil, origin: origin, command) { try $0.close() }
        case .returning(let result):
            return try change(.back, request: nil, origin: origin, command) { try $0.back(result: result) }
        case .confirm:
            // Recorded as the change it makes, then its answer (`save-test` writes both).
            let (kind, request, asked): (HistoryEntry.Kind, String?, Command) =
                switch host.pendingQuestion?.change {
                case .dispatch(let request, let options)?:
                    (.dispatch, request, .dispatch(request, keepStack: options.keepStack))
                case .sync(let request)?: (.sync, request, .sync(request))
                case .back?, nil: (.back, nil, .back)
                case .close?: (.close, nil, .close)
                case .returning(let result)?: (.back, nil, .returning(result))
                }
            return try change(kind, request: request, origin: origin, asked, .confirm, detail: "confirmed") {
                try $0.confirm()
            }
        case .cancel:
            return .cancelled(wasPending: host.cancel())
        case .tap(let label):
            return try tap(label, origin: origin)
        case .copyState:
            return .document(
                name: "state",
                json: JSONWriter.object([
                    "request": host.state.request.map { JSONWriter.quoted($0.original) } ?? "null",
                    "restore": JSONWriter.quoted(host.state.restorationString),
                    "flags": JSONWriter.stringObject(host.options.flags),
                    "device": JSONWriter.quoted(host.options.device.rawValue),
                    "script": host.path.map { JSONWriter.quoted(ScriptPaths.display($0)) } ?? "null",
                ]))
        case .verify:
            // A fresh host of the same script and device, without the session's flags: the
            // walk starts where the app starts and the session's state is not touched.
            guard let path = host.path else { throw RouteScriptError(.notLoaded, "no script file is loaded") }
            var options = Verification.options(host.options)
            options.flags = [:]
            let verification = try Verification.run(try RouteScriptHost(contentsOf: path, options: options))
            return .document(
                name: "verify",
                json: verification.json(script: ScriptPaths.display(path)) { location in
                    let place = ScriptPaths.relocate(location, script: path)
                    return (place.file, place.line)
                })
        case .canLeave(let node, let request):
            return .leave(node: node, answer: try host.leaveAnswer(for: node, to: request))
        case .undo: return try undo(origin)
        case .redo: return try redo(origin)
        case .travel(let index): return try travel(to: index, origin: origin)
        case .reset:
            return try failing(origin, request: nil) {
                // Back to where the app starts: nothing shown, then the script's `initial` (as
                // `luna.open` and a fresh `luna serve` start), so a test saved from here
                // starts where its `luna.open` does.
                _ = try host.restore(.initial)
                if let initial = host.routeTree?.initial { _ = try host.dispatch(initial) }
                record(.reset, request: nil, outcome: nil, summary: nil, origin: origin, [.reset])
                return .reset
            }
        case .restore(let text):
            return try failing(origin, request: nil) {
                var (outcome, warning) = try host.restore(restoring: text)
                if let warning { outcome?.reasons.append(warning) }
                record(
                    .restore, request: outcome?.request, outcome: outcome, summary: nil, origin: origin, [command],
                    detail: warning)
                guard let outcome else { return .reset }
                return .changed(ChangeView(outcome, tree: host.tree, forms: forms))
            }
        case .flag(let name, let value):
            return try failing(origin, request: nil) {
                let outcome = try host.setFlag(name, value)
                record(
                    .flag, request: outcome?.request, outcome: outcome, summary: nil, origin: origin, [command],
                    detail: value.map { "\(name)=\($0)" } ?? "\(name) cleared")
                return .flag(
                    name: name, value: value, change: outcome.map { ChangeView($0, tree: host.tree, forms: forms) },
                    flags: host.options.flags)
            }
        case .device(let device):
            return try reloading(.device, origin: origin, command, detail: device.rawValue) { try $0.setDevice(device) }
        case .wait(let seconds):
            return try failing(origin, request: nil) {
                guard let outcome = try host.advanceClock(by: seconds) else {
                    unrecordedWait += max(0, seconds)
                    let gate = host.waitingGate
                    return .waited(seconds: seconds, waiting: gate?.request, secondsLeft: gate?.secondsLeft)
                }
                let waited = unrecordedWait + max(0, seconds)
                record(
                    .wait, request: outcome.request, outcome: outcome, summary: nil, origin: origin, [.wait(waited)],
                    detail: String(waited))
                return .changed(ChangeView(outcome, tree: host.tree, forms: forms))
            }
        case .reload:
            return try reloading(.reload, origin: origin, .reload, detail: nil) { try $0.reload() }
        case .explain(let request): return .explain(try ExplainView(request, host: host))
        case .state: return .state(StateView(host))
        case .tree: return .tree(TreeView(host.tree, forms: forms))
        case .routes: return .routes(RouteRow.table(try loadedTree()))
        case .flow:
            guard let map = host.flowMap(display: displayPattern) else {
                throw RouteScriptError(.notLoaded, "no script is loaded")
            }
            return .flow(map)
        case .flags: return .flags(host.options.flags)
        case .history(let before):
            guard let before else { return .history(HistoryView(entries: entries, current: position)) }
            let page = entries.filter { $0.index < before }.suffix(SnapshotView.historyPage)
            return .history(HistoryView(entries: Array(page), current: position))
        case .path(let name, let values, let lists):
            return .path(try loadedTree().path(forRouteNamed: name, values: values, lists: lists))
        case .recording(let name, _): return .recording(try recording(name))
        case .evaluate(let chunk, let allowIncomplete):
            if allowIncomplete, host.isIncomplete(chunk) { return .incomplete }
            return .values(try host.evaluate(chunk))
        case .snapshot(let routes): return .snapshot(snapshot(routes: routes))
        }
    }

    /// A screen action pressed (``Command/tap(_:)``), as one change in the history.
    private func tap(_ label: String, origin: LiveEvent.Origin) throws -> View {
        let action = try host.action(label)
        let request = action.request(keepsARequest: host.keepsARequest)
        return try change(
            action.result != nil ? .back : request == nil ? .flag : action.push ? .push : .dispatch, request: request,
            origin: origin, .tap(label),
            detail: "tap " + label
        ) {
            try $0.tap(action)
        }
    }

    private func loadedTree() throws -> RouteTree {
        guard let tree = host.routeTree else { throw RouteScriptError(.notLoaded, "no script is loaded") }
        return tree
    }

    /// The route table of `tree`, from the last one made where it can (``RouteTable``).
    private func routeRows(_ tree: RouteTree) -> [RouteRow] {
        let table = RouteTable(tree, reusing: routeTable, change: host.lastChange)
        routeTable = table
        return table.rows
    }

    /// What the controls' rules read of `tree`, from the last one made where it can.
    private func controlsContext(_ tree: RouteTree) -> Controls.Context {
        if let (known, context) = controlsCache, known === tree { return context }
        let context = Controls.Context(host: host, rows: routeRows(tree))
        controlsCache = (tree, context)
        return context
    }

    func snapshot(routes: Bool) -> SnapshotView {
        let tree = host.routeTree
        let requests = SnapshotView.requests(host.tree, tree: tree)
        return SnapshotView(
            device: host.options.device, flags: host.options.flags, tree: TreeView(host.tree, forms: .json),
            state: StateView(host), current: position, historyCount: dropped + entries.count,
            historyDropped: dropped, reloadError: reloadError, reloadWarnings: reloadWarnings, canUndo: canUndo,
            canRedo: canRedo, history: routes ? entries : nil, routes: routes ? tree.map(routeRows) : nil,
            routeTable: routes ? routeTable : nil,
            entries: routes ? tree.map { controlsContext($0).entries } : nil,
            screenRows: routes ? SnapshotView.screenRows(host) : nil,
            requests: requests, links: routes ? tree?.links : nil,
            question: host.pendingQuestion.map { ($0.text, $0.node) },
            controls: tree.map { Controls(host: host, context: controlsContext($0), requests: requests) })
    }

    private func recording(_ name: String) throws -> RecordingView {
        guard let path = host.path else {
            throw LiveSessionError("save-test needs a script loaded from a file")
        }
        let route = StateView.route(of: host)
        let script = String(path.split(separator: "/").last ?? Substring(path))
        let source = TestSource.text(
            name: name, script: script, entries: entries, route: route, device: host.options.device,
            flags: host.options.flags)
        return RecordingView(name: name, script: path, source: source, tree: host.tree?.rendered() ?? "(nothing shown)")
    }

    // MARK: History

    private var canUndo: Bool { (undoStack.last ?? nil).map { $0 >= dropped } ?? false }
    private var canRedo: Bool { redoStack.last.map { $0 >= dropped } ?? false }

    /// Goes back to the state of entry `index` (and can be undone): the plan from the state on
    /// screen to that state, applied through the presenters like any dispatch (kept
    /// presentables are reused; `create` and `unwind` run as needed). An entry from before a
    /// reload is reached by dispatching its request on the current tree.
    private func travel(to index: Int, origin: LiveEvent.Origin) throws -> View {
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

    private func move(to index: Int, from origin: LiveEvent.Origin) throws -> View {
        guard index >= dropped, entries.indices.contains(index - dropped) else {
            if index >= 0, index < dropped {
                throw LiveSessionError(
                    "history entry \(index) was dropped (the last \(maximumHistory) entries are kept)")
            }
            throw LiveSessionError("there is no history entry \(index) (the history has \(dropped + entries.count))")
        }
        let target = entries[index - dropped]
        return try failing(origin, request: nil) {
            let outcome: RouteScriptHost.Outcome?
            if target.generation == generation {
                outcome = try host.restore(target.state)
            } else if let request = target.state.requested ?? target.state.request?.original {
                outcome = try host.dispatch(request, reresolving: true)
            } else {
                outcome = try host.restore(.initial)
            }
            position = index
            notify(LiveEvent(kind: .travelled, origin: origin, entry: target, outcome: outcome))
            return outcome.map { .changed(ChangeView($0, tree: host.tree, forms: forms)) } ?? .nothingShown
        }
    }

    /// Back to what was on screen before the last action (a dispatch, back, flag, reload or
    /// travel), as an editor's undo does; `redo` goes forward again.
    private func undo(_ origin: LiveEvent.Origin) throws -> View {
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

    private func redo(_ origin: LiveEvent.Origin) throws -> View {
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

    // MARK: Recording

    /// Runs `body`; a failure is observed (`failed`, with the request) and rethrown.
    private func failing<T>(_ origin: LiveEvent.Origin, request: String?, _ body: () throws -> T) throws -> T {
        do { return try body() } catch {
            notify(LiveEvent(kind: .failed, origin: origin, entry: nil, request: request, error: error))
            throw error
        }
    }

    private func change(
        _ kind: HistoryEntry.Kind, request: String?, origin: LiveEvent.Origin, _ commands: Command...,
        detail: String? = nil, _ body: (RouteScriptHost) throws -> RouteScriptHost.Outcome
    ) throws -> View {
        try failing(origin, request: request) {
            let outcome = try body(host)
            // A leave guard asked (a change made while one was pending fails, so a question now
            // is this change's): nothing changed, so nothing is recorded yet.
            if let question = host.pendingQuestion { return .question(text: question.text, node: question.node) }
            // `back` names no request: the entry shows where it went.
            let shown = request ?? host.state.requested ?? host.state.request?.original ?? outcome.request
            record(kind, request: shown, outcome: outcome, summary: nil, origin: origin, commands, detail: detail)
            return .changed(ChangeView(outcome, tree: host.tree, forms: forms))
        }
    }

    private func reloading(
        _ kind: HistoryEntry.Kind, origin: LiveEvent.Origin, _ command: Command, detail: String?,
        cutShort: () -> Bool = { false },
        _ body: (RouteScriptHost) throws -> ReloadSummary
    ) throws -> View {
        do {
            let summary = try body(host)
            generation += 1
            reloadError = nil
            // The reload's warnings stay on the pages until the next reload.
            reloadWarnings = (summary.warning.map { [$0] } ?? []) + summary.lint
            record(
                kind, request: host.state.requested, outcome: nil, summary: summary, origin: origin, [command],
                detail: detail)
            return .reloaded(ReloadView(summary: summary, tree: TreeView(host.tree, forms: forms), script: host.path))
        } catch {
            // A save still being written: not a failure yet (the rest of it is reloaded).
            if cutShort() { throw SaveCutShort() }
            reloadError = Failure(error).message
            notify(LiveEvent(kind: .reloadFailed, origin: origin, entry: nil, error: error))
            throw error
        }
    }

    private func record(
        _ kind: HistoryEntry.Kind, request: String?, outcome: RouteScriptHost.Outcome?, summary: ReloadSummary?,
        origin: LiveEvent.Origin, _ commands: [Command], detail: String? = nil
    ) {
        unrecordedWait = 0
        let state = host.state
        let entry = HistoryEntry(
            index: dropped + entries.count, milliseconds: LiveSession.milliseconds(clock.now - started), kind: kind,
            request: request, route: StateView.route(of: host),
            planSize: outcome?.plan.operations.count ?? summary?.plan.operations.count ?? 0, detail: detail,
            commands: commands, state: state, generation: generation)
        // A reload that changed nothing on screen (the same presentation) is in
        // the history but is no undo step: Undo after it goes where it went before it.
        let shown = position.flatMap { $0 >= dropped && $0 - dropped < entries.count ? entries[$0 - dropped] : nil }
        let unchangedReload = kind == .reload && shown.map { $0.state.presented == state.presented } == true
        if !unchangedReload { undoStack.append(position) }
        redoStack.removeAll()
        if undoStack.count > maximumHistory * 2 { undoStack.removeFirst(maximumHistory) }
        entries.append(entry)
        // Dropped a tenth at a time, so a dispatch does not shift the whole array each time.
        if entries.count > maximumHistory + maximumHistory / 10 {
            let excess = entries.count - maximumHistory
            entries.removeFirst(excess)
            dropped += excess
        }
        position = entry.index
        let eventKind: LiveEvent.Kind =
            switch kind {
            case .dispatch, .sync, .push: .dispatched
            case .back, .close: .wentBack
            case .flag: .flagChanged
            case .device: .deviceChanged
            case .reload: .reloaded
            case .reset, .restore: .travelled
            case .wait: .dispatched
            }
        notify(LiveEvent(kind: eventKind, origin: origin, entry: entry, outcome: outcome, summary: summary))
    }

    private func notify(_ event: LiveEvent) {
        if !twins.isEmpty, event.kind != .failed, event.kind != .reloadFailed {
            keepTwinsInStep(reloaded: event.kind == .reloaded)
        }
        let reader = SessionReader(state: self)
        for observer in observers { observer.handler(event, reader) }
    }
}

/// A reload after a save failed on a script that looks cut short (``LiveSession/reloadAfterSave(forms:cutShort:)``).
struct SaveCutShort: Error {}

extension RouteScriptHost {
    /// The action `label` of the screen shown (``Command/tap(_:)``), or a usage failure
    /// naming the screen's actions.
    package func action(_ label: String) throws -> DeclaredAction {
        guard let screen = StateView(self)?.chain.last else {
            throw Failure(kind: "usage", message: "tap: nothing is shown yet")
        }
        // A pushed instance (`accounts/:account#2`) offers its node's actions.
        let declared = declaredActions[NodeID.nodeText(of: screen)] ?? []
        guard let action = declared.first(where: { $0.label == label }) else {
            let known = declared.map { "'\($0.label)'" }.joined(separator: ", ")
            throw Failure(
                kind: "usage",
                message: "tap: screen '\(screen)' has no action '\(label)'"
                    + (known.isEmpty ? "" : " (actions: \(known))"))
        }
        return action
    }

    /// Presses `action`: its flags in order (an empty value clears one), then its request — or,
    /// with `continue = true`, the request a guard kept when there was one (the flags resolve
    /// it again). The outcome of the last change.
    package func tap(_ action: DeclaredAction) throws -> Outcome {
        let request = action.request(keepsARequest: keepsARequest)
        var outcome: Outcome?
        for (name, value) in action.flags { outcome = try setFlag(name, value.isEmpty ? nil : value) ?? outcome }
        if let result = action.result { return try back(result: result) }
        if let request { return try action.push ? push(request) : dispatch(request) }
        guard let outcome else {
            throw Failure(kind: "usage", message: "tap: '\(action.label)' changed nothing on screen")
        }
        return outcome
    }

    /// The request that opens endpoint `id` with `params`.
    package func request(opening id: String, params: [String: String]) throws -> String {
        // An id from outside is looked up, never stored (a page could send any number).
        guard let node = NodeID(existing: id) else {
            let shown = id.utf8.count > 80 ? String(id.prefix(60)) + "… (\(id.utf8.count) bytes)" : id
            throw RouteError(.unknownRoute, "no node '\(shown)' in the tree")
        }
        // The route's parameters fill its pattern; other values are query items (the form's
        // query keys), an empty one left out.
        guard let tree = routeTree else { throw RouteScriptError(.notLoaded, "no script is loaded") }
        let names = tree[node]?.route.map { Set(tree.matcher.parameterNames[$0]) } ?? []
        let path = try tree.request(for: node, params: params.filter { names.contains($0.key) })
        let query = params.filter { !names.contains($0.key) && !$0.value.isEmpty }
        return query.isEmpty ? path.original : Request.format(segments: path.segments, query: query, fragment: nil)
    }

}

/// An attribute value of a presentable (`title`, `badge`, …): a string, number or boolean.
public enum AttributeValue: Equatable, Sendable, CustomStringConvertible {
    case string(String)
    case integer(Int64)
    case number(Double)
    case boolean(Bool)

    public var description: String {
        switch self {
        case .string(let s): s
        case .integer(let i): String(i)
        case .number(let d): d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) + ".0" : String(d)
        case .boolean(let b): b ? "true" : "false"
        }
    }

    package var json: String {
        switch self {
        case .string(let s): JSONWriter.quoted(s)
        case .number(let d) where !d.isFinite: "null"
        default: description
        }
    }
}

/// A presentable whose attributes Lua hooks may set through their `view` handle
/// (`view.title = …`, `view.badge = 3`, or a table returned by `create`). Optional: the
/// attributes always land on the headless model; a presentable that conforms gets them too —
/// from a `ScriptHost` in the same process, or from the session over the live link
/// (`LunaLink`), where the hooks run on the developer's machine.
///
/// ```swift
/// extension BookViewController: ScriptViewable {
///     func setScriptAttribute(_ name: String, to value: AttributeValue?) throws {
///         if name == "title" { title = value?.description }
///     }
/// }
/// ```
public protocol ScriptViewable: AnyObject {
    /// Called after the headless model took the value; throwing fails the hook (and the
    /// dispatch) with the message.
    func setScriptAttribute(_ name: String, to value: AttributeValue?) throws
}

/// The built-in presentable: what `tree` shows (`switcher`, `junction`, `stack`, `screen`).
///
/// A reference type, so script `view` handles can read and set attributes; ``snapshot()``
/// and ``restore(_:)`` make a failed dispatch leave it exactly as it was.
public final class HeadlessPresentable {
    public enum Kind: String, Sendable {
        case switcher, junction, stack, screen
    }

    /// Everything about a presentable that a dispatch can change.
    public struct Snapshot {
        var title: String
        var attributes: [String: AttributeValue] = [:]
        var children: [HeadlessPresentable] = []
        var selected: Int?
        var modal: HeadlessPresentable?
        var activation: Activation?
    }

    public let kind: Kind
    public let id: String
    /// The endpoint's pattern (screens).
    public let route: String?
    /// The changeable part, in one place so a snapshot is one read.
    // Unchecked exclusivity here and in the journal (a presentable is changed by one router on
    // one thread, never through inout): the checks cost a dispatch 3 % (`scripts/bench --only
    // dispatch`, same run, 2026-11-24: 2099 → 2165 ns).
    @exclusivity(unchecked) private var state: Snapshot

    public var title: String {
        get { state.title }
        set { change { $0.title = newValue } }
    }
    public var attributes: [String: AttributeValue] {
        get { state.attributes }
        set { change { $0.attributes = newValue } }
    }
    /// Switcher: the active section; junction: all options; stack: its items.
    public internal(set) var children: [HeadlessPresentable] {
        get { state.children }
        set { change { $0.children = newValue } }
    }
    /// Junction or switcher: the selected index among declared children.
    public internal(set) var selected: Int? {
        get { state.selected }
        set { change { $0.selected = newValue } }
    }
    /// Screen: the presentable presented modally over it.
    public internal(set) var modal: HeadlessPresentable? {
        get { state.modal }
        set { change { $0.modal = newValue } }
    }
    /// Screen: what it was last activated with.
    public internal(set) var activation: Activation? {
        get { state.activation }
        set {
            // The journal keeps only the activation before (a screen re-activated changes
            // nothing else): one reference copied and freed instead of the whole state.
            if let journal, journal.isRecording { journal.recordActivation(self) }
            state.activation = newValue
        }
    }

    /// The journal of the presenter that made or adopted it: records this presentable's state
    /// before its first change in a plan, so a failed plan can put it back.
    // Unchecked exclusivity on both fields, for the reason given at `state`: only the presenter
    // that owns the presentable sets them (`create`, `adopt`) and `change` reads them, on that
    // router's one thread, never through inout. `change` reads them on every write of a
    // dispatch; they were measured with `state` as one group (3 % of a dispatch, figures there),
    // not alone.
    @exclusivity(unchecked) var journal: PresentableJournal?
    /// The journal generation this presentable was last recorded in, whole and by its
    /// activation alone.
    @exclusivity(unchecked) var recordedGeneration = 0
    // Checked: unchecked saved 7 instructions a dispatch (8,168 → 8,161, callgrind,
    // `LunaBench dispatches none`), not worth an escape.
    var activationRecordedGeneration = 0

    /// Every change goes through here: the journal records the presentable first.
    private func change(_ body: (inout Snapshot) -> Void) {
        if let journal, journal.isRecording { journal.record(self) }
        body(&state)
    }

    public init(kind: Kind, id: String, title: String, route: String? = nil) {
        self.kind = kind
        self.id = id
        self.state = Snapshot(title: title)
        self.route = route
    }

    /// Drops the modal without a plan operation (a reload whose tree no longer has it).
    public func detachModal() { modal = nil }

    /// Everything that can change, to put back after a failed dispatch.
    public func snapshot() -> Snapshot { state }

    public func restore(_ snapshot: Snapshot) { state = snapshot }

    /// Puts back an activation the journal recorded (``PresentableJournal/rollback()``).
    func restoreActivation(_ activation: Activation?) { state.activation = activation }
}

/// Undo for a dispatch: while recording, each ``HeadlessPresentable`` that is about to change
/// for the first time is snapshotted (O(presentables touched), not O(all)); `rollback` puts
/// them back, `commit` forgets the snapshots. A presentable whose first change is its
/// activation has only that recorded; a later change of anything else records the whole
/// state then, and `rollback`, going backwards, puts back the state and then the activation.
@usableFromInline
final class PresentableJournal {
    // Unchecked exclusivity: see `HeadlessPresentable.state` (3 % of a dispatch).
    @exclusivity(unchecked) private(set) var isRecording = false
    @usableFromInline init() {}
    @exclusivity(unchecked) private var generation = 0
    // Unchecked: the journal belongs to one presenter and is used on its router's one thread;
    // `entries` is only appended to, emptied and iterated by the journal's own methods, none of
    // which calls back into another while it accesses them (rollback's restores set the
    // presentables' state directly, not through the recording setters). With the check, a
    // dispatch without callback is 8,523 instructions against 8,161 (callgrind, `LunaBench
    // dispatches none 42000` minus `2000`): every re-activation appends and empties it.
    @exclusivity(unchecked) private var entries: [Entry] = []

    private enum Entry {
        case whole(HeadlessPresentable, HeadlessPresentable.Snapshot)
        case activation(HeadlessPresentable, Activation?)
    }

    @usableFromInline
    func begin() {
        generation &+= 1
        isRecording = true
    }

    func record(_ presentable: HeadlessPresentable) {
        guard presentable.recordedGeneration != generation else { return }
        presentable.recordedGeneration = generation
        entries.append(.whole(presentable, presentable.snapshot()))
    }

    func recordActivation(_ presentable: HeadlessPresentable) {
        guard presentable.recordedGeneration != generation, presentable.activationRecordedGeneration != generation
        else { return }
        presentable.activationRecordedGeneration = generation
        entries.append(.activation(presentable, presentable.activation))
    }

    @usableFromInline
    func commit() {
        isRecording = false
        forget()
    }

    @usableFromInline
    func rollback() {
        isRecording = false
        for entry in entries.reversed() {
            switch entry {
            case .whole(let presentable, let snapshot): presentable.restore(snapshot)
            case .activation(let presentable, let activation): presentable.restoreActivation(activation)
            }
        }
        forget()
    }

    /// Empties the entries, keeping their storage. One by one from the end: a dispatch
    /// records one or a few, and `removeAll(keepingCapacity:)` goes through the generic
    /// `replaceSubrange` (303 instructions a dispatch; this loop saves 89 of them, `LunaBench
    /// dispatches none`, callgrind).
    private func forget() {
        while !entries.isEmpty { entries.removeLast() }
    }
}

/// The built-in presenter: applies plans to ``HeadlessPresentable``s, all or nothing: between
/// ``begin()`` and ``rollback()`` every presentable it created or adopted is recorded before
/// its first change (by a plan or by a hook setting a `view` field), and put back.
public struct HeadlessPresenter: Presenter {
    /// Shared by the copies of this presenter (a class), as the presentables it made are.
    @usableFromInline let journal = PresentableJournal()

    public init() {}

    @inlinable public func begin() { journal.begin() }
    @inlinable public func commit() { journal.commit() }
    @inlinable public func rollback() { journal.rollback() }

    public func adopt(_ presentables: [HeadlessPresentable]) {
        for presentable in presentables {
            presentable.journal = journal
            // Generations count per journal: one from the last owner means nothing here.
            presentable.recordedGeneration = 0
            presentable.activationRecordedGeneration = 0
        }
    }

    public func create(_ node: RouteTree.Node, activation: Activation?) throws -> HeadlessPresentable {
        let kind: HeadlessPresentable.Kind =
            switch node.kind {
            case .switcher: .switcher
            case .junction: .junction
            case .stack: .stack
            case .endpoint: .screen
            }
        let route = node.kind == .endpoint ? node.routeText ?? node.id : nil
        let presentable = HeadlessPresentable(kind: kind, id: node.id, title: node.title, route: route)
        presentable.activation = activation
        presentable.journal = journal
        return presentable
    }

    public func update(_ presentable: HeadlessPresentable, node: RouteTree.Node, activation: Activation) throws {
        presentable.activation = activation
    }

    public func setStack(_ stack: HeadlessPresentable, node: RouteTree.Node, items: [HeadlessPresentable]) throws {
        stack.children = items
    }

    /// The screen's activation holds the result (as the state's does).
    public func deliver(
        _ presentable: HeadlessPresentable, node: RouteTree.Node, result: [String: AttributeValue]
    )
        throws
    {
        presentable.activation?.result = result
    }

    public func setOptions(
        _ container: HeadlessPresentable, node: RouteTree.Node, options: [HeadlessPresentable]
    ) throws {
        container.children = options
    }

    public func select(
        _ container: HeadlessPresentable, node: RouteTree.Node, index: Int, option: HeadlessPresentable
    ) throws {
        container.selected = index
        if container.kind == .switcher { container.children = [option] }
    }

    public func presentModal(
        _ modal: HeadlessPresentable, over presenter: HeadlessPresentable, node: RouteTree.Node
    ) throws {
        presenter.modal = modal
    }

    public func dismissModal(
        _ modal: HeadlessPresentable, from presenter: HeadlessPresentable, node: RouteTree.Node
    ) throws {
        if presenter.modal === modal { presenter.modal = nil }
    }

    public func unwind(_ presentable: HeadlessPresentable, node: RouteTree.Node) throws {}

    /// Applies what the UI did to the headless model, as the structural methods above do.
    public func reflect(_ operation: PlanOperation, lookup: (String) -> HeadlessPresentable?) {
        switch operation {
        case .setStack(let id, let items), .setOptions(let id, let items):
            lookup(id)?.children = items.compactMap(lookup)
        case .select(let id, let index, let option):
            guard let container = lookup(id) else { return }
            container.selected = index
            if container.kind == .switcher, let option = lookup(option) { container.children = [option] }
        case .presentModal(let id, let modal):
            lookup(id)?.modal = lookup(modal)
        case .dismissModal(let id, let modal):
            if let presenter = lookup(id), let modal = lookup(modal), presenter.modal === modal {
                presenter.modal = nil
            }
        case .create, .update, .unwind, .deliver:
            break
        }
    }
}

/// The headless model takes what hooks set as any view does: `title` is its title, every
/// other name an attribute (nil removes it). A linked app whose presenter is
/// ``HeadlessPresenter`` therefore shows what the session's model shows.
extension HeadlessPresentable: ScriptViewable {
    public func setScriptAttribute(_ name: String, to value: AttributeValue?) throws {
        if name == "title" {
            title = value?.description ?? id
        } else {
            attributes[name] = value
        }
    }
}

import RouteCore
import RouteScript

/// One change in a ``LiveSession``: what was done, to which route, and the state after it
/// (kept so the session can travel back to it).
package struct HistoryEntry: Sendable, Equatable {
    package enum Kind: String, Sendable {
        case dispatch, push, sync, back, close, flag, device, reload, reset, restore, wait
    }

    /// Its place in the history, from 0.
    package var index: Int
    /// Milliseconds since the session started.
    package var milliseconds: Double
    package var kind: Kind
    /// The request dispatched (or re-resolved), if any.
    package var request: String?
    /// The matched route afterwards (pattern text, the root as `/`).
    package var route: String?
    /// Operations in the plan the change ran.
    package var planSize: Int
    /// `beta=on` for a flag, `pad` for a device.
    package var detail: String?
    /// The commands that made the change, in order (a change a leave guard asked about, then
    /// `confirm`): what `save-test` replays.
    package var commands: [Command]
    /// The router state after the change.
    package var state: RouterState
    /// Which loaded tree the state belongs to (a reload starts a new one).
    var generation: Int

    /// `3  +12.5 s  dispatch books/42 → books/:id  (4 ops)`: when, since the session started
    /// (`+2:05` past a minute), what, and how many presenter operations its plan had.
    package var line: String {
        let what = [kind.rawValue, detail, request].compactMap { $0 }.joined(separator: " ")
        let operations = planSize == 1 ? "1 op" : "\(planSize) ops"
        return "\(index)  \(Self.sinceStart(milliseconds))  \(what)" + (route.map { " → \($0)" } ?? "")
            + "  (\(operations))"
    }

    /// Session time as a person reads it: `+0.4 s`, `+12.5 s`, `+2:05`, `+1:02:05`.
    package static func sinceStart(_ milliseconds: Double) -> String {
        let seconds = max(0, milliseconds / 1000)
        if seconds < 60 { return "+" + String((seconds * 10).rounded() / 10) + " s" }
        let whole = Int(seconds)
        let (hours, minutes, rest) = (whole / 3600, whole / 60 % 60, whole % 60)
        let twoDigits = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "+\(hours):\(twoDigits(minutes)):\(twoDigits(rest))" : "+\(minutes):\(twoDigits(rest))"
    }

    /// `{"index":…,"ms":…,"kind":…,"request":…,"route":…,"plan":N,"detail":…,"commands":[…]}`.
    package var json: String {
        let fields: [(String, String)] = [
            ("index", String(index)), ("ms", String((milliseconds * 100).rounded() / 100)),
            ("kind", JSONWriter.quoted(kind.rawValue)), ("request", request.map(JSONWriter.quoted) ?? "null"),
            ("route", route.map(JSONWriter.quoted) ?? "null"), ("plan", String(planSize)),
            ("detail", detail.map(JSONWriter.quoted) ?? "null"),
            ("commands", JSONWriter.array(commands.map(\.json))),
        ]
        return "{" + fields.map { JSONWriter.quoted($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }
}

/// What happened in a ``LiveSession``, as observers see it.
package struct LiveEvent {
    package enum Kind: String, Sendable {
        case dispatched, wentBack, flagChanged, deviceChanged, reloaded, reloadFailed, travelled, failed
    }

    /// Which view asked for the change.
    package enum Origin: Sendable, Equatable {
        case repl
        case page
        case watcher
        /// A linked app (`LunaLink`): its user went back, tapped a row or a tab.
        case device
    }

    package var kind: Kind
    package var origin: Origin
    /// The history entry the change added (nil for failures and travels).
    package var entry: HistoryEntry?
    package var outcome: RouteScriptHost.Outcome?
    package var summary: ReloadSummary?
    /// The request that failed, for a failed dispatch.
    package var request: String?
    package var error: (any Error)?

    init(
        kind: Kind, origin: Origin, entry: HistoryEntry?, outcome: RouteScriptHost.Outcome? = nil,
        summary: ReloadSummary? = nil, request: String? = nil, error: (any Error)? = nil
    ) {
        self.kind = kind
        self.origin = origin
        self.entry = entry
        self.outcome = outcome
        self.summary = summary
        self.request = request
        self.error = error
    }
}

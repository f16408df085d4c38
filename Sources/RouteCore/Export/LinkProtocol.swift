/// The live link's protocol between a `luna serve` session and an app that follows it
/// (`LunaLink`, the `/device` socket): its version, which both sides say — the app in its
/// hello (`"protocol":2`), the session in every plan — so that an app and a session of
/// different versions say so, naming both, instead of misreading each other.
///
/// Versions (the CHANGELOG lists each change):
/// - 1: hello (idiom, holds, state), back, sync, dispatch; plans with the tree, vanished,
///   operations, reflected, decorations and state. An app's hello without a version is read
///   as version 1 (apps built before the version was sent speak it).
/// - 2: `push`; a stack's items and a presentable's id may name a pushed instance
///   (`books/:id#2`, docs/dsl.md, "Push"), in plans, `holds` and `vanished`. An app of
///   version 1 would take an instance for a node it does not know: it is refused, told why.
public enum LinkProtocol {
    /// The version this library speaks.
    public static let version = 2
    /// The versions a session serves (an app of another is refused, naming both).
    public static let served: ClosedRange<Int> = 2...2

    /// What a session says to an app of a version it does not serve.
    public static func unsupported(app: Int) -> String {
        "this app speaks the live-link protocol \(app); this session speaks \(served.lowerBound == served.upperBound ? String(served.lowerBound) : "\(served.lowerBound)–\(served.upperBound)"): use a luna and a LunaLink of the same release"
    }
}

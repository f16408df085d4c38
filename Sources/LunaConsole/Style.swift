/// Terminal colour, on only for a terminal without `NO_COLOR`.
public struct Style: Sendable {
    public var color: Bool

    public init(color: Bool) { self.color = color }

    public static let plain = Style(color: false)

    private func paint(_ code: String, _ text: String) -> String { color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }

    public func bold(_ text: String) -> String { paint("1", text) }
    public func dim(_ text: String) -> String { paint("2", text) }
    public func green(_ text: String) -> String { paint("32", text) }
    public func yellow(_ text: String) -> String { paint("33", text) }
    public func red(_ text: String) -> String { paint("31", text) }
    public func cyan(_ text: String) -> String { paint("36", text) }
}

/// Terminal colour, on only for a terminal without `NO_COLOR`.
package struct Style: Sendable {
    package var color: Bool

    package init(color: Bool) { self.color = color }

    package static let plain = Style(color: false)

    private func paint(_ code: String, _ text: String) -> String { color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }

    package func bold(_ text: String) -> String { paint("1", text) }
    package func dim(_ text: String) -> String { paint("2", text) }
    package func green(_ text: String) -> String { paint("32", text) }
    package func yellow(_ text: String) -> String { paint("33", text) }
    package func red(_ text: String) -> String { paint("31", text) }
    package func cyan(_ text: String) -> String { paint("36", text) }
}

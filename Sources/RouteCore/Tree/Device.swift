/// The device a script declares its tree for (`device.idiom` in scripts), and the idiom a
/// linked app says it runs on: one navigation state, a tree per idiom.
public enum Device: String, Sendable, Equatable, CaseIterable {
    case phone, pad
}

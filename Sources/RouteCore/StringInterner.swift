/// Strings numbered in the order they first appear: each kept once, found again by its
/// number. The matcher's build interns constant segments (so sorting compares integers) and
/// parameter names (so a name repeated across routes is stored once).
struct StringInterner {
    /// The strings by number.
    private(set) var strings: [String] = []
    private var numbers: [String: Int32] = [:]

    /// The number of `string`, given to it when it is new.
    mutating func number(of string: String) -> Int32 {
        if let number = numbers[string] { return number }
        let number = Int32(strings.count)
        strings.append(string)
        numbers[string] = number
        return number
    }
}

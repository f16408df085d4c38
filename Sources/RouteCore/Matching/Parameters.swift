/// A route's parameter values by name, as states, activations and resolutions hold them.
///
/// The usual one or two parameters of a matched pattern are held as their names and values,
/// so a dispatch makes no dictionary. When every name and value has at most 15 UTF-8 bytes
/// they are held as bytes (``ShortText``): such parameters hold no reference at all, so
/// copying, comparing and freeing them (a state, an activation and a resolution each hold
/// them, on every dispatch) touches no reference count. Longer ones are held as strings.
/// Anything else (more parameters, a whole-path regex's groups, parameters given by a host
/// as a dictionary) is held as a dictionary. All forms compare as the dictionaries they stand
/// for; the public `params` properties read and write dictionaries.
@usableFromInline
struct Parameters: Equatable, Sendable {
    // An enum, not a struct of both forms' fields: copying a struct of four references (names,
    // two values, a dictionary) costs a dispatch more than the dictionary it replaces
    // (`LunaBench dispatches none`: 10,433 instructions against 9,875). The names are not a
    // view of the matcher's name table: the view's class reference made every copy an atomic
    // retain (5 a dispatch).
    @usableFromInline
    enum Storage: Sendable {
        case dictionary([String: String])
        /// One parameter, as bytes.
        case shortOne(name: ShortText, value: ShortText)
        /// Two with distinct names, in the route's order, as bytes.
        case shortTwo(firstName: ShortText, first: ShortText, secondName: ShortText, second: ShortText)
        /// One parameter with a name or value too long for ``ShortText``.
        case one(name: String, value: String)
        /// Two with distinct names, in the route's order, one of them too long for ``ShortText``.
        case two(firstName: String, first: String, secondName: String, second: String)
    }

    @usableFromInline var storage: Storage

    static let empty = Parameters([:])

    init(_ dictionary: [String: String]) { storage = .dictionary(dictionary) }

    private init(storage: Storage) { self.storage = storage }

    /// One parameter, as bytes when both fit.
    private init(name: String, value: String) { storage = Self.one(name: name, value: value) }

    private static func one(name: String, value: String) -> Storage {
        if let shortName = ShortText(name), let shortValue = ShortText(value) {
            return .shortOne(name: shortName, value: shortValue)
        }
        return .one(name: name, value: value)
    }

    /// The values of a route with these names, in their order: listed when there are one or
    /// two distinct names, a dictionary otherwise (a later duplicate name wins, as it did).
    init(names: ParameterNames.RouteParameterNames, value: (Int) -> String) {
        switch names.count {
        case 1: storage = Self.one(name: names[0], value: value(0))
        case 2 where names[0] != names[1]:
            let (firstName, first, secondName, second) = (names[0], value(0), names[1], value(1))
            if let a = ShortText(firstName), let b = ShortText(first), let c = ShortText(secondName),
                let d = ShortText(second)
            {
                storage = .shortTwo(firstName: a, first: b, secondName: c, second: d)
            } else {
                storage = .two(firstName: firstName, first: first, secondName: secondName, second: second)
            }
        default:
            var result: [String: String] = [:]
            for (index, name) in names.enumerated() { result[name] = value(index) }
            storage = .dictionary(result)
        }
    }

    var count: Int {
        switch storage {
        case .dictionary(let dictionary): dictionary.count
        case .one, .shortOne: 1
        case .two, .shortTwo: 2
        }
    }

    var isEmpty: Bool { count == 0 }

    subscript(name: String) -> String? {
        switch storage {
        case .dictionary(let dictionary): return dictionary[name]
        case .one(let own, let value): return own == name ? value : nil
        case .two(let firstName, let first, let secondName, let second):
            if firstName == name { return first }
            return secondName == name ? second : nil
        // As strings: `name` may be longer than a ShortText and still equal (the Kelvin sign
        // is canonically a K).
        case .shortOne(let own, let value):
            return own.string == name ? value.string : nil
        case .shortTwo(let firstName, let first, let secondName, let second):
            if firstName.string == name { return first.string }
            return secondName.string == name ? second.string : nil
        }
    }

    /// Each name and value (a dictionary's in its order).
    func forEach<E: Error>(_ body: (String, String) throws(E) -> Void) throws(E) {
        switch storage {
        case .dictionary(let dictionary): for (name, value) in dictionary { try body(name, value) }
        case .one(let name, let value): try body(name, value)
        case .two(let firstName, let first, let secondName, let second):
            try body(firstName, first)
            try body(secondName, second)
        case .shortOne(let name, let value): try body(name.string, value.string)
        case .shortTwo(let firstName, let first, let secondName, let second):
            try body(firstName.string, first.string)
            try body(secondName.string, second.string)
        }
    }

    /// The same as a dictionary (made on each call for the listed forms).
    var dictionary: [String: String] {
        if case .dictionary(let dictionary) = storage { return dictionary }
        var result = [String: String](minimumCapacity: count)
        forEach { name, value in result[name] = value }
        return result
    }

    /// Only the entries whose name is in `kept` (a screen below the match gets its own
    /// pattern's parameters).
    func restricted(to kept: ParameterNames.RouteParameterNames) -> Parameters {
        switch storage {
        case .dictionary(let dictionary): return Parameters(dictionary.filter { kept.contains($0.key) })
        case .one(let name, _): return kept.contains(name) ? self : .empty
        case .shortOne(let name, _): return kept.contains(name.string) ? self : .empty
        case .two(let firstName, let first, let secondName, let second):
            switch (kept.contains(firstName), kept.contains(secondName)) {
            case (true, true): return self
            case (true, false): return Parameters(name: firstName, value: first)
            case (false, true): return Parameters(name: secondName, value: second)
            case (false, false): return .empty
            }
        case .shortTwo(let firstName, let first, let secondName, let second):
            switch (kept.contains(firstName.string), kept.contains(secondName.string)) {
            case (true, true): return self
            case (true, false): return Parameters(storage: .shortOne(name: firstName, value: first))
            case (false, true): return Parameters(storage: .shortOne(name: secondName, value: second))
            case (false, false): return .empty
            }
        }
    }

    @usableFromInline
    static func == (lhs: Parameters, rhs: Parameters) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.shortOne(let leftName, let left), .shortOne(let rightName, let right)):
            return left == right && leftName == rightName
        case (
            .shortTwo(let a, let leftFirst, let b, let leftSecond),
            .shortTwo(let c, let rightFirst, let d, let rightSecond)
        )
        where a == c && b == d:
            return leftFirst == rightFirst && leftSecond == rightSecond
        case (.one(let leftName, let left), .one(let rightName, let right)):
            return left == right && leftName == rightName
        case (.two(let a, let leftFirst, let b, let leftSecond), .two(let c, let rightFirst, let d, let rightSecond))
        where a == c && b == d:
            return leftFirst == rightFirst && leftSecond == rightSecond
        case (.dictionary(let left), .dictionary(let right)):
            return left == right
        default:
            guard lhs.count == rhs.count else { return false }
            var same = true
            lhs.forEach { name, value in if same, rhs[name] != value { same = false } }
            return same
        }
    }
}

/// A string of at most 15 UTF-8 bytes held as the bytes themselves, in two words: no
/// reference, so copying or freeing it is copying or forgetting 16 bytes, and two ASCII ones
/// compare as two pairs of integers. (A `String` this short is stored inline too, but every copy of
/// one still goes through the runtime's reference counting entry points, which cannot know
/// that it is short without looking.)
@usableFromInline
struct ShortText: Equatable, Sendable {
    /// The bytes in memory order, zeros after them, and their count in the last byte.
    private var words: (UInt64, UInt64)

    static let capacity = 15

    /// `text`'s bytes, or nil when it has more than ``capacity`` (or is not stored contiguously).
    init?(_ text: String) {
        var words: (UInt64, UInt64) = (0, 0)
        let fits = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard bytes.count <= Self.capacity else { return false }
            withUnsafeMutableBytes(of: &words) { raw in
                if let base = bytes.baseAddress { raw.baseAddress?.copyMemory(from: base, byteCount: bytes.count) }
                raw[Self.capacity] = UInt8(bytes.count)
            }
            return true
        }
        // Not contiguous (a bridged string): held as a string instead.
        guard fits == true else { return nil }
        self.words = words
    }

    /// The text (valid UTF-8: it was a `String`'s bytes).
    var string: String {
        withUnsafeBytes(of: words) { raw in
            String(decoding: UnsafeRawBufferPointer(rebasing: raw[0..<Int(raw[Self.capacity])]), as: UTF8.self)
        }
    }

    /// As the strings compare: the same bytes are the same string, and ASCII bytes that
    /// differ are different strings; otherwise (é written as one scalar or as e and an accent)
    /// `String`'s canonical equivalence decides, as it did when these were strings.
    @usableFromInline
    static func == (lhs: ShortText, rhs: ShortText) -> Bool {
        if lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 { return true }
        // The count byte is at most 15, so a high bit anywhere is a non-ASCII byte.
        let highBits: UInt64 = 0x8080_8080_8080_8080
        if (lhs.words.0 | lhs.words.1 | rhs.words.0 | rhs.words.1) & highBits == 0 { return false }
        return lhs.string == rhs.string
    }
}

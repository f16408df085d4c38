/// A route's parameter values by name, as states, activations and resolutions hold them.
///
/// The usual one or two parameters of a matched pattern are held as their names and values,
/// so a dispatch makes no dictionary: a name or value of up to 15 UTF-8 bytes is stored inline
/// in its `String`, and the whole then costs no allocation and no reference count. Anything
/// else (more parameters, a whole-path regex's groups, parameters given by a host as a
/// dictionary) is held as a dictionary. Both forms compare as the dictionaries they stand
/// for; the public `params` properties read and write dictionaries.
@usableFromInline
struct Parameters: Equatable, Sendable {
    // An enum, not a struct of both forms' fields: copying a struct of four references (names,
    // two values, a dictionary) costs a dispatch more than the dictionary it replaces
    // (`LunaBench dispatches none`: 10,433 instructions against 9,875). The names are strings,
    // not a view of the matcher's name table: the view's class reference made every copy
    // an atomic retain (5 a dispatch).
    @usableFromInline
    enum Storage: Sendable {
        case dictionary([String: String])
        /// One parameter.
        case one(name: String, value: String)
        /// Two with distinct names, in the route's order.
        case two(firstName: String, first: String, secondName: String, second: String)
    }

    @usableFromInline var storage: Storage

    static let empty = Parameters([:])

    init(_ dictionary: [String: String]) { storage = .dictionary(dictionary) }

    private init(storage: Storage) { self.storage = storage }

    /// The values of a route with these names, in their order: listed when there are one or
    /// two distinct names, a dictionary otherwise (a later duplicate name wins, as it did).
    init(names: ParameterNames.RouteParameterNames, value: (Int) -> String) {
        switch names.count {
        case 1: storage = .one(name: names[0], value: value(0))
        case 2 where names[0] != names[1]:
            storage = .two(firstName: names[0], first: value(0), secondName: names[1], second: value(1))
        default:
            var result: [String: String] = [:]
            for (index, name) in names.enumerated() { result[name] = value(index) }
            storage = .dictionary(result)
        }
    }

    var count: Int {
        switch storage {
        case .dictionary(let dictionary): dictionary.count
        case .one: 1
        case .two: 2
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
        }
    }

    /// The same as a dictionary (made on each call for the listed forms).
    var dictionary: [String: String] {
        switch storage {
        case .dictionary(let dictionary): return dictionary
        case .one(let name, let value): return [name: value]
        case .two(let firstName, let first, let secondName, let second): return [firstName: first, secondName: second]
        }
    }

    /// Only the entries whose name is in `kept` (a screen below the match gets its own
    /// pattern's parameters).
    func restricted(to kept: ParameterNames.RouteParameterNames) -> Parameters {
        switch storage {
        case .dictionary(let dictionary): return Parameters(dictionary.filter { kept.contains($0.key) })
        case .one(let name, _): return kept.contains(name) ? self : .empty
        case .two(let firstName, let first, let secondName, let second):
            switch (kept.contains(firstName), kept.contains(secondName)) {
            case (true, true): return self
            case (true, false): return Parameters(storage: .one(name: firstName, value: first))
            case (false, true): return Parameters(storage: .one(name: secondName, value: second))
            case (false, false): return .empty
            }
        }
    }

    @usableFromInline
    static func == (lhs: Parameters, rhs: Parameters) -> Bool {
        switch (lhs.storage, rhs.storage) {
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

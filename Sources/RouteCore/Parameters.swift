/// A route's parameter values by name, as states, activations and resolutions hold them.
///
/// The usual one or two parameters of a matched pattern are held as the route's list of names
/// (a view of the matcher's table) and the values themselves, so a dispatch makes no dictionary: a
/// value of up to 15 UTF-8 bytes is stored inline in its `String`, and the whole costs no
/// allocation. Anything else (more parameters, a whole-path regex's groups, parameters given
/// by a host as a dictionary) is held as a dictionary. Both forms compare as the dictionaries
/// they stand for; the public `params` properties read and write dictionaries.
@usableFromInline
struct Parameters: Equatable, Sendable {
    // An enum, not a struct of both forms' fields: copying a struct of four references (names,
    // two values, a dictionary) costs a dispatch more than the dictionary it replaces
    // (`LunaBench dispatches none`: 10,433 instructions against 9,875).
    @usableFromInline
    enum Storage: Sendable {
        case dictionary([String: String])
        /// One or two distinct names, the values in the same order (`second` unused for one).
        case listed(names: ParameterNames.RouteParameterNames, first: String, second: String)
    }

    @usableFromInline var storage: Storage

    static let empty = Parameters([:])

    init(_ dictionary: [String: String]) { storage = .dictionary(dictionary) }

    /// The values of a route with these names, in their order: listed when there are one or
    /// two distinct names, a dictionary otherwise (a later duplicate name wins, as it did).
    init(names: ParameterNames.RouteParameterNames, value: (Int) -> String) {
        switch names.count {
        case 1: storage = .listed(names: names, first: value(0), second: "")
        case 2 where names[0] != names[1]: storage = .listed(names: names, first: value(0), second: value(1))
        default:
            var result: [String: String] = [:]
            for (index, name) in names.enumerated() { result[name] = value(index) }
            storage = .dictionary(result)
        }
    }

    var count: Int {
        switch storage {
        case .dictionary(let dictionary): dictionary.count
        case .listed(let names, _, _): names.count
        }
    }

    var isEmpty: Bool { count == 0 }

    subscript(name: String) -> String? {
        switch storage {
        case .dictionary(let dictionary): return dictionary[name]
        case .listed(let names, let first, let second):
            if names[0] == name { return first }
            return names.count > 1 && names[1] == name ? second : nil
        }
    }

    /// Each name and value (a dictionary's in its order).
    func forEach<E: Error>(_ body: (String, String) throws(E) -> Void) throws(E) {
        switch storage {
        case .dictionary(let dictionary): for (name, value) in dictionary { try body(name, value) }
        case .listed(let names, let first, let second):
            try body(names[0], first)
            if names.count > 1 { try body(names[1], second) }
        }
    }

    /// The same as a dictionary (made on each call for the listed form).
    var dictionary: [String: String] {
        switch storage {
        case .dictionary(let dictionary): return dictionary
        case .listed(let names, let first, let second):
            return names.count == 1 ? [names[0]: first] : [names[0]: first, names[1]: second]
        }
    }

    /// Only the entries whose name is in `kept` (a screen below the match gets its own
    /// pattern's parameters).
    func restricted(to kept: ParameterNames.RouteParameterNames) -> Parameters {
        switch storage {
        case .dictionary(let dictionary): return Parameters(dictionary.filter { kept.contains($0.key) })
        case .listed(let names, let first, let second):
            let keepsFirst = kept.contains(names[0])
            let keepsSecond = names.count > 1 && kept.contains(names[1])
            switch (keepsFirst, keepsSecond) {
            case (true, true): return self
            case (true, false): return names.count == 1 ? self : Parameters([names[0]: first])
            case (false, true): return Parameters([names[1]: second])
            case (false, false): return .empty
            }
        }
    }

    @usableFromInline
    static func == (lhs: Parameters, rhs: Parameters) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.listed(let names, let leftFirst, let leftSecond), .listed(let other, let rightFirst, let rightSecond))
        where names.same(as: other):
            return leftFirst == rightFirst && (names.count == 1 || leftSecond == rightSecond)
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

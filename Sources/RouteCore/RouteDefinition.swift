/// What the matcher needs to know of one endpoint's route.
///
/// ```swift
/// let route = try RouteDefinition(pattern: Pattern("orders/:id"), validators: ["id": Validator(regex: "[0-9]+")])
/// ```
public struct RouteDefinition {
    /// A pattern or a whole-path regex.
    public enum Shape {
        /// A MonarchRouter-style pattern.
        case pattern(Pattern)
        /// A FeatherweightRouter-style whole-path regular expression.
        case regex(PathRegex)
    }

    public let shape: Shape
    /// Validators by parameter name.
    public let validators: [String: Validator]
    /// The pattern text, or `regex:SOURCE` (computed once: ids, summaries and lints use it).
    public let displayText: String

    public init(pattern: Pattern, validators: [String: Validator] = [:]) throws(RouteDefinitionError) {
        self.shape = .pattern(pattern)
        self.validators = validators
        self.displayText = pattern.description
        let names = Set(pattern.parameterNames)
        for name in validators.keys.sorted() where !names.contains(name) {
            throw RouteDefinitionError("pattern '\(pattern)': 'where' names '\(name)', which is not a parameter")
        }
    }

    public init(regex: PathRegex) {
        self.shape = .regex(regex)
        self.validators = [:]
        self.displayText = "regex:" + regex.source
    }

    public var pattern: Pattern? {
        if case .pattern(let p) = shape { return p }
        return nil
    }

    public var regex: PathRegex? {
        if case .regex(let r) = shape { return r }
        return nil
    }
}

/// A whole-path regular expression (FeatherweightRouter's `endpoint { regex = "animals/\\w+" }`):
/// it matches when it matches the whole normalized path; named groups bind parameters.
public struct PathRegex {
    public let source: String
    let regex: Regex<AnyRegexOutput>

    public init(_ source: String) throws(RouteDefinitionError) {
        self.source = source
        do {
            regex = try Regex(source).asciiOnlyCharacterClasses().matchingSemantics(.unicodeScalar)
        } catch {
            throw RouteDefinitionError("invalid regular expression '\(source)': \(error)")
        }
    }

    /// The named groups' values when the regex matches the whole path.
    func match(_ path: String) -> [(String, String)]? {
        guard let match = try? regex.wholeMatch(in: path) else { return nil }
        var result: [(String, String)] = []
        for element in match.output {
            if let name = element.name, let value = element.substring { result.append((name, String(value))) }
        }
        return result
    }
}

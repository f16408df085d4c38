/// What the matcher needs to know of one endpoint's route.
///
/// ```swift
/// let route = try RouteDefinition(pattern: Pattern("orders/:id"), validators: ["id": Validator(regex: "[0-9]+")])
/// ```
public struct RouteDefinition: Sendable {
    /// A pattern or a whole-path regex.
    public enum Shape: Sendable {
        /// A MonarchRouter-style pattern.
        case pattern(Pattern)
        /// A FeatherweightRouter-style whole-path regular expression.
        case regex(PathRegex)
    }

    /// Behind one reference: a reload hands an unchanged route's definition from the old tree
    /// to the new one, and the old tree's endpoints are freed, once per route; inline, the
    /// shape's pattern or regex, the validators and the text were each retained and released.
    private final class Storage: Sendable {
        let shape: Shape
        let validators: [String: Validator]
        let displayText: String
        let querySchema: QuerySchema?
        /// Whether the matcher runs checks for the route (``RouteDefinition/hasChecks``).
        let hasChecks: Bool

        init(shape: Shape, validators: [String: Validator], displayText: String, querySchema: QuerySchema?) {
            self.shape = shape
            self.validators = validators
            self.displayText = displayText
            self.querySchema = querySchema
            if case .pattern(let pattern) = shape {
                hasChecks = !validators.isEmpty || Matcher.needsCount(pattern) || querySchema != nil
            } else {
                hasChecks = false
            }
        }
    }

    private let storage: Storage

    public var shape: Shape { storage.shape }
    /// Validators by parameter name.
    public var validators: [String: Validator] { storage.validators }
    /// The pattern text, or `regex:SOURCE` (computed once: ids, summaries and lints use it).
    public var displayText: String { storage.displayText }

    /// A pattern route; `query`, when given, is the query its requests must fit.
    public init(
        pattern: Pattern, validators: [String: Validator] = [:], query: QuerySchema? = nil
    ) throws(RouteDefinitionError) {
        let names = Set(pattern.parameterNames)
        for name in validators.keys.sorted() where !names.contains(name) {
            throw RouteDefinitionError("pattern '\(pattern)': 'where' names '\(name)', which is not a parameter")
        }
        for field in query?.fields ?? [] where names.contains(field.name) {
            throw RouteDefinitionError(
                "pattern '\(pattern)': query '\(field.name)' is also a path parameter (a named request could not tell them apart)"
            )
        }
        storage = Storage(
            shape: .pattern(pattern), validators: validators, displayText: pattern.description, querySchema: query)
    }

    public init(regex: PathRegex, query: QuerySchema? = nil) {
        storage = Storage(
            shape: .regex(regex), validators: [:], displayText: "regex:" + regex.source, querySchema: query)
    }

    /// The query the route's requests must fit (`query = { … }`), if declared.
    public var querySchema: QuerySchema? { storage.querySchema }

    /// Whether the matcher checks more than the route's shape once it matched structurally:
    /// validators, or the count of segments a `:name?` or `:name+` takes.
    var hasChecks: Bool { storage.hasChecks }

    /// Whether both are the one definition (a reload handed it from the old tree to the new).
    func isIdentical(to other: RouteDefinition) -> Bool { storage === other.storage }

    /// Whether the route is a pattern (not a regex), read without copying the pattern.
    var isPattern: Bool {
        if case .pattern = storage.shape { return true }
        return false
    }

    public var pattern: Pattern? {
        if case .pattern(let p) = storage.shape { return p }
        return nil
    }

    public var regex: PathRegex? {
        if case .regex(let r) = storage.shape { return r }
        return nil
    }
}

/// A whole-path regular expression (FeatherweightRouter's `endpoint { regex = "animals/\\w+" }`):
/// it matches when it matches the whole normalized path; named groups bind parameters. It runs
/// on Luna's linear-time engine (see ``Validator``), so no path can make it backtrack.
public struct PathRegex: Sendable {
    public let source: String
    let regex: LinearRegex

    public init(_ source: String) throws(RouteDefinitionError) {
        self.source = source
        do throws(RegexSyntaxError) {
            regex = try LinearRegex(source)
        } catch {
            throw RouteDefinitionError(regex: source, error)
        }
    }

    /// The named groups that took part and their values, in order, when the regex matches the
    /// whole of `path`; nil when it does not.
    ///
    /// ```swift
    /// try PathRegex("animals/(?<animal>[a-z]+)").match("animals/cat")   // [("animal", "cat")]
    /// ```
    public func match(_ path: String) -> [(String, String)]? { regex.namedCaptures(path) }
}

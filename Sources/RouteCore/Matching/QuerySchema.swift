/// A query value as a query schema types it (docs/dsl.md, "Query schemas"): what a hook's
/// `ctx.query` holds for a declared key — a Lua integer, number, boolean, string or list.
public enum QueryValue: Sendable, Hashable, CustomStringConvertible {
    case string(String)
    case int(Int)
    case number(Double)
    case bool(Bool)
    case list([QueryValue])

    public var description: String {
        switch self {
        case .string(let text): text
        case .int(let value): String(value)
        case .number(let value): String(value)
        case .bool(let value): value ? "true" : "false"
        case .list(let values): "[" + values.map(\.description).joined(separator: ", ") + "]"
        }
    }
}

/// One declared query key: `page = { "int", default = 1 }`, `sort = { "new", "top" }`,
/// `q = "string?"`, `tags = { "string", list = true }`.
///
/// A value is read from the request's text: an `int` is an optional `-` and digits that fit
/// 64 bits, a `number` a decimal (`1.5`, `-2`, `1e3`), a `bool` `true`, `false`, `1` or `0`, an
/// enumeration one of its values exactly (by bytes), a `string` anything; then the validator,
/// if any, must accept the text. A value that does not fit, or a missing key, takes the
/// default when there is one; otherwise a missing optional or list key is left out (a list is
/// then empty), and anything else makes the route not match.
///
/// ```swift
/// let page = try QueryField("page", .int, default: "1")
/// let schema = try QuerySchema([page, try QueryField("sort", .oneOf(["new", "top"]), default: "new")])
/// ```
public struct QueryField: Sendable {
    public enum Kind: Sendable, Hashable {
        case int
        case number
        case bool
        case string
        /// An enumeration: one of these values exactly.
        case oneOf([String])

        /// The type's name in a script (`int`); an enumeration's values are strings.
        public var typeName: String {
            switch self {
            case .int: "int"
            case .number: "number"
            case .bool: "bool"
            case .string, .oneOf: "string"
            }
        }
    }

    public let name: String
    public let kind: Kind
    /// Whether the key may be missing (`"string?"`).
    public let isOptional: Bool
    /// Whether every value of a repeated key is read (`tags=a&tags=b`), as a list.
    public let isList: Bool
    /// The default's text (`"1"`), filled in where the key is missing or does not fit.
    public let defaultValue: String?
    /// A check of the text after its type (`where`): a regex or a script function.
    public let validator: Validator?

    /// - Throws: ``RouteDefinitionError`` when the default does not fit the field, a list has a
    ///   default, or an enumeration has no value.
    public init(
        _ name: String, _ kind: Kind, optional: Bool = false, list: Bool = false, default defaultValue: String? = nil,
        where validator: Validator? = nil
    ) throws(RouteDefinitionError) {
        self.name = name
        self.kind = kind
        self.isOptional = optional
        self.isList = list
        self.defaultValue = defaultValue
        self.validator = validator
        if case .oneOf(let values) = kind, values.isEmpty {
            throw RouteDefinitionError("query '\(name)': an enumeration needs at least one value")
        }
        if list, defaultValue != nil {
            throw RouteDefinitionError("query '\(name)': a list takes no default (a missing key is an empty list)")
        }
        if let defaultValue, typed(defaultValue) == nil {
            throw RouteDefinitionError(
                "query '\(name)': the default '\(defaultValue)' is not \(kindDescription)")
        }
    }

    /// What the field takes, in words: `an int`, `one of new, top`.
    public var kindDescription: String {
        switch kind {
        case .int: "an int"
        case .number: "a number"
        case .bool: "a bool (true, false, 1 or 0)"
        case .string: "a string"
        case .oneOf(let values): "one of " + values.joined(separator: ", ")
        }
    }

    /// The field as declared, in short: `int = 1`, `string?`, `[string]`, `new|top = new`.
    public var summary: String {
        var text: String
        switch kind {
        case .int: text = "int"
        case .number: text = "number"
        case .bool: text = "bool"
        case .string: text = "string"
        case .oneOf(let values): text = values.joined(separator: "|")
        }
        if isList { text = "[" + text + "]" }
        if isOptional { text += "?" }
        if let defaultValue { text += " = " + defaultValue }
        if let validator { text += " where " + validator.source }
        return text
    }

    /// The typed value of a text, or nil when it does not fit the type (the validator is not
    /// run here).
    public func typed(_ text: String) -> QueryValue? {
        switch kind {
        case .string: return .string(text)
        case .oneOf(let values): return values.contains { Pattern.sameBytes($0, text) } ? .string(text) : nil
        case .bool:
            switch text {
            case "true", "1": return .bool(true)
            case "false", "0": return .bool(false)
            default: return nil
            }
        case .int:
            guard Self.isInteger(text), let value = Int(text) else { return nil }
            return .int(value)
        case .number:
            guard Self.isDecimal(text), let value = Double(text), value.isFinite else { return nil }
            return .number(value)
        }
    }

    /// Why `text` does not fit (type, then validator); nil when it fits.
    func misfit(_ text: String) throws(RouteError) -> String? {
        guard typed(text) != nil else { return "is not \(kindDescription)" }
        guard let validator else { return nil }
        let accepted: Bool
        do { accepted = try validator.accepts(text) } catch let error as RouteError { throw error } catch {
            throw RouteError(.script, "\(error)", location: (error as? any LunaError)?.location)
        }
        return accepted ? nil : "does not pass its validator '\(validator.source)'"
    }

    /// An optional `-` and 1 to 19 ASCII digits (no `+`, spaces or leading zeros rule).
    private static func isInteger(_ text: String) -> Bool {
        var digits = text.utf8[...]
        if digits.first == UInt8(ascii: "-") { digits = digits.dropFirst() }
        return !digits.isEmpty && digits.count <= 19 && digits.allSatisfy { (48...57).contains($0) }
    }

    /// `-?digits(.digits)?([eE][+-]?digits)?` (no hex, `inf` or `nan`, which `Double` reads).
    private static func isDecimal(_ text: String) -> Bool {
        var bytes = text.utf8[...]
        func digits() -> Int {
            let count = bytes.prefix { (48...57).contains($0) }.count
            bytes = bytes.dropFirst(count)
            return count
        }
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        guard digits() > 0 else { return false }
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            guard digits() > 0 else { return false }
        }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return bytes.isEmpty && text.utf8.count <= 64
    }
}

/// An endpoint's declared query keys (`query = { … }` in a script): the route matches only
/// when each key fits (or takes its default), and the request it gives has the defaults
/// filled in. Keys the schema does not declare pass as they are.
public struct QuerySchema: Sendable {
    /// The fields, by name.
    public let fields: [QueryField]

    /// - Throws: ``RouteDefinitionError`` for a name declared twice.
    public init(_ fields: [QueryField]) throws(RouteDefinitionError) {
        var seen: Set<String> = []
        for field in fields where !seen.insert(field.name).inserted {
            throw RouteDefinitionError("query '\(field.name)' is declared twice")
        }
        self.fields = fields.sorted { $0.name < $1.name }
    }

    /// How a request's query fares.
    public enum Verdict: Equatable, Sendable {
        /// It fits: the query with defaults filled in (and misfits replaced by them).
        case fits([String: String])
        /// A key does not fit and has no default: its value (nil when missing) and why.
        case misfit(key: String, value: String?, reason: String)
    }

    /// Judges `request`'s query (nil: a request without one).
    ///
    /// - Throws: ``RouteError`` (`script`) when a script validator fails.
    public func verdict(_ request: Request?) throws(RouteError) -> Verdict {
        var query = request?.query ?? [:]
        for field in fields {
            let values = field.isList ? (request?.queryValues(field.name) ?? []) : query[field.name].map { [$0] } ?? []
            var reason: String?
            var offending: String?
            for value in values {
                if let why = try field.misfit(value) {
                    (reason, offending) = (why, value)
                    break
                }
            }
            if values.isEmpty, !field.isOptional, !field.isList { reason = "is required" }
            guard let reason else { continue }
            if let fallback = field.defaultValue {
                query[field.name] = fallback
                continue
            }
            return .misfit(key: field.name, value: offending, reason: reason)
        }
        return .fits(query)
    }

    /// Whether `request`'s query fits (the matcher's check).
    func accepts(_ request: Request?) throws(RouteError) -> Bool {
        if case .fits = try verdict(request) { return true }
        return false
    }

    /// The typed values of a query: each declared key of `query` (a list's values from
    /// `request`'s repeated keys; a missing list is empty), its default where it is missing or
    /// does not fit (a screen below the one a request matched has no query of its own, and
    /// shows its defaults). Keys the schema does not declare are not here (a hook reads them
    /// as strings).
    public func typedValues(_ query: [String: String], request: Request?) -> [String: QueryValue] {
        var result: [String: QueryValue] = [:]
        for field in fields {
            if field.isList {
                var texts = request?.queryValues(field.name) ?? []
                if texts.isEmpty, let one = query[field.name] { texts = [one] }
                result[field.name] = .list(texts.compactMap(field.typed))
            } else if let value = query[field.name].flatMap(field.typed) ?? field.defaultValue.flatMap(field.typed) {
                result[field.name] = value
            }
        }
        return result
    }
}

/// A Lua value seen from Swift.
///
/// Scalars are copied; tables, functions, userdata and threads are held through a
/// ``LuaReference`` into the registry, released when the last Swift copy goes away (or
/// explicitly with ``LuaReference/release()``).
///
/// ```swift
/// let values = try vm.run("return 1, 'two', { 3 }", chunkName: "=demo")
/// // [.integer(1), .string("two"), .table(<reference>)]
/// ```
public enum LuaValue {
    case `nil`
    case boolean(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case table(LuaReference)
    case function(LuaReference)
    case userdata(LuaReference)
    case thread(LuaReference)
    case lightUserdata(UnsafeMutableRawPointer?)

    /// The Lua type name (`nil`, `boolean`, `number`, `string`, `table`, …).
    public var typeName: String {
        switch self {
        case .nil: "nil"
        case .boolean: "boolean"
        case .integer, .number: "number"
        case .string: "string"
        case .table: "table"
        case .function: "function"
        case .userdata, .lightUserdata: "userdata"
        case .thread: "thread"
        }
    }

    /// The reference of a table, function, userdata or thread.
    public var reference: LuaReference? {
        switch self {
        case .table(let r), .function(let r), .userdata(let r), .thread(let r): r
        default: nil
        }
    }

    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The integer, if this is an integer or a float with an exact integer value.
    public var integerValue: Int64? {
        switch self {
        case .integer(let i): i
        case .number(let d): Int64(exactly: d)
        default: nil
        }
    }

    /// The number, if this is an integer or a float.
    public var numberValue: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .number(let d): d
        default: nil
        }
    }

    /// Lua truthiness: everything but `nil` and `false` is true.
    public var isTruthy: Bool {
        switch self {
        case .nil, .boolean(false): false
        default: true
        }
    }

    public var isNil: Bool {
        if case .nil = self { return true }
        return false
    }
}

extension LuaValue: Equatable {
    /// Scalars compare by value (an integer equals a float of the same value, as in Lua);
    /// references compare by registry identity.
    public static func == (lhs: LuaValue, rhs: LuaValue) -> Bool {
        switch (lhs, rhs) {
        case (.nil, .nil): true
        case (.boolean(let a), .boolean(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.integer, .number), (.number, .integer), (.number, .number):
            lhs.numberValue == rhs.numberValue
        case (.lightUserdata(let a), .lightUserdata(let b)): a == b
        case (.table(let a), .table(let b)), (.function(let a), .function(let b)),
            (.userdata(let a), .userdata(let b)), (.thread(let a), .thread(let b)):
            a === b
        default: false
        }
    }
}

extension LuaValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral
{
    public init(nilLiteral: ()) { self = .nil }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
}

extension LuaValue: CustomStringConvertible {
    public var description: String {
        switch self {
        case .nil: "nil"
        case .boolean(let b): b ? "true" : "false"
        case .integer(let i): String(i)
        case .number(let d):
            // Lua prints an integral float with a trailing `.0`.
            d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) + ".0" : String(d)
        case .string(let s): s
        case .table(let r), .function(let r), .userdata(let r), .thread(let r):
            "\(typeName): #\(r.id)"
        case .lightUserdata(let p): "userdata: \(String(describing: p))"
        }
    }
}

import FoundationEssentials

/// One value bound to a statement parameter or read from a column: SQLite's five storage
/// classes. The literal conformances let callers write `db.run("... ?, ?", "abc", 3)`.
public enum SQLiteValue: Sendable, Equatable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
    case null
}

extension SQLiteValue: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
                       ExpressibleByStringLiteral, ExpressibleByNilLiteral {
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(nilLiteral: ()) { self = .null }
}

extension SQLiteValue {
    /// `.null` for nil: for nullable columns without a switch at every call site.
    public static func integer(_ value: Int64?) -> SQLiteValue { value.map { .integer($0) } ?? .null }
    public static func real(_ value: Double?) -> SQLiteValue { value.map { .real($0) } ?? .null }
    public static func text(_ value: String?) -> SQLiteValue { value.map { .text($0) } ?? .null }
    public static func blob(_ value: Data?) -> SQLiteValue { value.map { .blob($0) } ?? .null }
}

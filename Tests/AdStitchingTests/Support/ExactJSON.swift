import HLSPlaylist

/// A JSON document read without binary floating point: every number keeps the text it was
/// written as, so tests can check that the boundary manifest writes times exactly (`5.76`, never
/// `5.7599999999999998`) and compare them with exact sums. Object members keep their order.
/// `JSONSerialization` proves the same text is valid JSON to a standard parser; this one is for
/// what that parser cannot tell (number text, member order).
indirect enum ExactJSON: Sendable {
    case object([Member])
    case array([ExactJSON])
    case string(String)
    /// The number as written.
    case number(String)
    case bool(Bool)
    case null

    struct Member: Sendable {
        var key: String
        var value: ExactJSON
    }

    struct SyntaxError: Error, CustomStringConvertible {
        var offset: Int
        var message: String
        var description: String { "JSON syntax error at byte \(self.offset): \(self.message)" }
    }

    static func parse(_ text: String) throws -> ExactJSON {
        var reader = Reader(bytes: Array(text.utf8))
        let value = try reader.value()
        reader.skipWhitespace()
        guard reader.index == reader.bytes.count else { throw reader.error("trailing characters") }
        return value
    }

    // MARK: - Access

    var members: [Member]? { if case .object(let members) = self { members } else { nil } }
    var keys: [String] { self.members?.map(\.key) ?? [] }
    var items: [ExactJSON]? { if case .array(let items) = self { items } else { nil } }
    var string: String? { if case .string(let value) = self { value } else { nil } }
    var numberText: String? { if case .number(let text) = self { text } else { nil } }
    /// The number exactly; nil for anything else, and for numbers with an exponent (which the
    /// manifest never writes).
    var decimal: ExactDecimal? { self.numberText.flatMap { ExactDecimal($0) } }
    var bool: Bool? { if case .bool(let value) = self { value } else { nil } }

    subscript(key: String) -> ExactJSON? { self.members?.first { $0.key == key }?.value }

    /// The kind of value, as JSON Schema names types (`integer` for a number without fraction or exponent).
    var typeName: String {
        switch self {
        case .object: "object"
        case .array: "array"
        case .string: "string"
        case .number(let text): text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) ? "number" : "integer"
        case .bool: "boolean"
        case .null: "null"
        }
    }

    /// Equality as JSON Schema's `const` and `enum` see it: numbers by value, objects regardless
    /// of member order.
    func isEqual(to other: ExactJSON) -> Bool {
        switch (self, other) {
        case (.number(let lhs), .number(let rhs)):
            guard let left = ExactDecimal(lhs), let right = ExactDecimal(rhs) else { return lhs == rhs }
            return left == right
        case (.string(let lhs), .string(let rhs)): return lhs == rhs
        case (.bool(let lhs), .bool(let rhs)): return lhs == rhs
        case (.null, .null): return true
        case (.array(let lhs), .array(let rhs)):
            return lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { $0.isEqual(to: $1) }
        case (.object(let lhs), .object(let rhs)):
            return lhs.count == rhs.count
                && lhs.allSatisfy { member in rhs.first { $0.key == member.key }.map { $0.value.isEqual(to: member.value) } ?? false }
        default: return false
        }
    }

    /// Every number in the document with its JSON Pointer.
    func numbers(at path: String = "") -> [(path: String, text: String)] {
        switch self {
        case .number(let text): [(path, text)]
        case .array(let items): items.enumerated().flatMap { $1.numbers(at: "\(path)/\($0)") }
        case .object(let members): members.flatMap { $0.value.numbers(at: "\(path)/\($0.key)") }
        default: []
        }
    }

    // MARK: - Reading (RFC 8259)

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        func error(_ message: String) -> SyntaxError { SyntaxError(offset: self.index, message: message) }

        mutating func skipWhitespace() {
            while self.index < self.bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(self.bytes[self.index]) { self.index += 1 }
        }

        mutating func value() throws -> ExactJSON {
            self.skipWhitespace()
            guard self.index < self.bytes.count else { throw self.error("unexpected end") }
            switch self.bytes[self.index] {
            case UInt8(ascii: "{"): return try self.object()
            case UInt8(ascii: "["): return try self.array()
            case UInt8(ascii: "\""): return .string(try self.string())
            case UInt8(ascii: "t"): return try self.literal("true", .bool(true))
            case UInt8(ascii: "f"): return try self.literal("false", .bool(false))
            case UInt8(ascii: "n"): return try self.literal("null", .null)
            default: return .number(try self.number())
            }
        }

        mutating func literal(_ word: String, _ value: ExactJSON) throws -> ExactJSON {
            let utf8 = Array(word.utf8)
            guard self.index + utf8.count <= self.bytes.count, Array(self.bytes[self.index..<self.index + utf8.count]) == utf8 else {
                throw self.error("expected \(word)")
            }
            self.index += utf8.count
            return value
        }

        mutating func expect(_ byte: Character) throws {
            self.skipWhitespace()
            guard self.index < self.bytes.count, self.bytes[self.index] == byte.asciiValue! else { throw self.error("expected '\(byte)'") }
            self.index += 1
        }

        mutating func peek(_ byte: Character) -> Bool {
            self.skipWhitespace()
            return self.index < self.bytes.count && self.bytes[self.index] == byte.asciiValue!
        }

        mutating func object() throws -> ExactJSON {
            try self.expect("{")
            var members: [Member] = []
            if self.peek("}") {
                self.index += 1
                return .object(members)
            }
            repeat {
                self.skipWhitespace()
                let key = try self.string()
                try self.expect(":")
                members.append(Member(key: key, value: try self.value()))
            } while try self.separator(closing: "}")
            return .object(members)
        }

        mutating func array() throws -> ExactJSON {
            try self.expect("[")
            var items: [ExactJSON] = []
            if self.peek("]") {
                self.index += 1
                return .array(items)
            }
            repeat { items.append(try self.value()) } while try self.separator(closing: "]")
            return .array(items)
        }

        /// True after a comma, false after the closing bracket.
        mutating func separator(closing: Character) throws -> Bool {
            if self.peek(",") {
                self.index += 1
                return true
            }
            try self.expect(closing)
            return false
        }

        mutating func string() throws -> String {
            guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "\"") else { throw self.error("expected a string") }
            self.index += 1
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            func flush() {
                scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                raw.removeAll()
            }
            while self.index < self.bytes.count {
                let byte = self.bytes[self.index]
                self.index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    flush()
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    flush()
                    guard self.index < self.bytes.count else { throw self.error("unterminated escape") }
                    let escape = self.bytes[self.index]
                    self.index += 1
                    switch escape {
                    case UInt8(ascii: "\""): scalars.append("\"")
                    case UInt8(ascii: "\\"): scalars.append("\\")
                    case UInt8(ascii: "/"): scalars.append("/")
                    case UInt8(ascii: "b"): scalars.append("\u{08}")
                    case UInt8(ascii: "f"): scalars.append("\u{0C}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"):
                        guard self.index + 4 <= self.bytes.count,
                            let code = UInt32(String(decoding: self.bytes[self.index..<self.index + 4], as: UTF8.self), radix: 16)
                        else { throw self.error("bad \\u escape") }
                        self.index += 4
                        // Surrogate pairs do not occur in what these tests read; a lone one is an error.
                        guard let scalar = Unicode.Scalar(code) else { throw self.error("unpaired surrogate") }
                        scalars.append(scalar)
                    default: throw self.error("bad escape")
                    }
                case 0..<0x20:
                    throw self.error("control character in a string")
                default:
                    raw.append(byte)
                }
            }
            throw self.error("unterminated string")
        }

        /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, returned as written.
        mutating func number() throws -> String {
            let start = self.index
            func digits() -> Int {
                let first = self.index
                while self.index < self.bytes.count, self.bytes[self.index] &- 48 < 10 { self.index += 1 }
                return self.index - first
            }
            if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "-") { self.index += 1 }
            let integerStart = self.index
            let integerDigits = digits()
            guard integerDigits > 0 else { throw self.error("expected a value") }
            if integerDigits > 1, self.bytes[integerStart] == UInt8(ascii: "0") { throw self.error("leading zero") }
            if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: ".") {
                self.index += 1
                guard digits() > 0 else { throw self.error("expected digits after '.'") }
            }
            if self.index < self.bytes.count, self.bytes[self.index] | 0x20 == UInt8(ascii: "e") {
                self.index += 1
                if self.index < self.bytes.count, [UInt8(ascii: "+"), UInt8(ascii: "-")].contains(self.bytes[self.index]) { self.index += 1 }
                guard digits() > 0 else { throw self.error("expected exponent digits") }
            }
            return String(decoding: self.bytes[start..<self.index], as: UTF8.self)
        }
    }
}

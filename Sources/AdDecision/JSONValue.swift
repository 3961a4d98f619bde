import HLSPlaylist

/// A JSON document with exact decimal numbers: `JSONEncoder` would write times through
/// `Double` (5.76 → 5.7599999999999998), and docs/architecture.md wants exact decimals in the boundary
/// manifest and plan reports. Object keys keep their order.
public indirect enum JSONValue: Sendable, Hashable {
    case string(String)
    case decimal(ExactDecimal)
    case integer(Int)
    case number(Double)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.text() == rhs.text() }
    public func hash(into hasher: inout Hasher) { hasher.combine(self.text()) }

    /// Serialised with two-space indentation (`pretty`) or compactly.
    public func text(pretty: Bool = true) -> String {
        var out = ""
        self.write(into: &out, indent: pretty ? 0 : nil)
        return pretty ? out + "\n" : out
    }

    private func write(into out: inout String, indent: Int?) {
        switch self {
        case .string(let value): out += Self.quote(value)
        case .decimal(let value): out += value.description
        case .integer(let value): out += String(value)
        case .number(let value): out += value.isFinite ? String(value) : "null"
        case .bool(let value): out += value ? "true" : "false"
        case .null: out += "null"
        case .array(let items):
            guard !items.isEmpty else {
                out += "[]"
                return
            }
            // Arrays of plain values stay on one line.
            let flat = items.allSatisfy { if case .array = $0 { false } else if case .object = $0 { false } else { true } }
            if flat || indent == nil {
                out += "["
                for (index, item) in items.enumerated() {
                    if index > 0 { out += indent == nil ? "," : ", " }
                    item.write(into: &out, indent: nil)
                }
                out += "]"
                return
            }
            out += "[\n"
            for (index, item) in items.enumerated() {
                out += String(repeating: "  ", count: indent! + 1)
                item.write(into: &out, indent: indent! + 1)
                out += index < items.count - 1 ? ",\n" : "\n"
            }
            out += String(repeating: "  ", count: indent!) + "]"
        case .object(let members):
            guard !members.isEmpty else {
                out += "{}"
                return
            }
            guard let indent else {
                out += "{"
                for (index, (key, value)) in members.enumerated() {
                    if index > 0 { out += "," }
                    out += Self.quote(key) + ":"
                    value.write(into: &out, indent: nil)
                }
                out += "}"
                return
            }
            out += "{\n"
            for (index, (key, value)) in members.enumerated() {
                out += String(repeating: "  ", count: indent + 1) + Self.quote(key) + ": "
                value.write(into: &out, indent: indent + 1)
                out += index < members.count - 1 ? ",\n" : "\n"
            }
            out += String(repeating: "  ", count: indent) + "}"
        }
    }

    /// A JSON string literal (RFC 8259 §7).
    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20:
                let hex = String(c.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

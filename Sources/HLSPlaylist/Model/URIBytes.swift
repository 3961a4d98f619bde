/// RFC 3986's byte classes, for code that reads or writes URIs a byte at a time (title paths,
/// signed queries): one home instead of a switch in each.
package enum URIBytes {
    /// §2.3 unreserved: `A–Z a–z 0–9 - . _ ~`.
    package static func isUnreserved(_ byte: UInt8) -> Bool {
        (byte &- 97 < 26) || (byte &- 65 < 26) || (byte &- 48 < 10) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
    }

    /// The value of a hexadecimal digit (§2.1: either case), or nil.
    package static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}

/// One `NAME=VALUE` pair of an attribute list, kept as written.
public struct Attribute: Sendable, Hashable {
    /// The attribute name, e.g. `BANDWIDTH`.
    public var name: String
    /// The value exactly as written, quotes included: `"avc1.64001f,mp4a.40.2"`, `1280x720`, `0x1A2B`.
    public var rawValue: String

    public init(name: String, rawValue: String) {
        self.name = name
        self.rawValue = rawValue
    }

    /// True when the value is a quoted-string.
    public var isQuoted: Bool { self.rawValue.utf8.first == UInt8(ascii: "\"") }

    /// The value without its quotes (quoted-strings) or as written (every other type).
    public var value: Substring {
        let raw = self.rawValue[...]
        guard self.isQuoted, raw.utf8.count >= 2 else { return raw }
        return raw.dropFirst().dropLast()
    }
}

/// An attribute list (RFC 8216bis §4.2): ordered `NAME=VALUE` pairs separated by commas.
///
/// Order and quoting are kept, so an unmodified list serialises to the bytes it was parsed
/// from. Typed readers (``integer(_:)``, ``decimal(_:)``, ``resolution(_:)``…) return nil when
/// the attribute is absent; the parser has already checked the type of every attribute the
/// spec defines (see ``AttributeSchema``).
public struct AttributeList: Sendable, Hashable {
    public private(set) var attributes: [Attribute]

    public init(_ attributes: [Attribute] = []) {
        self.attributes = attributes
    }

    public var isEmpty: Bool { self.attributes.isEmpty }

    /// The attribute named `name`, if present.
    public subscript(name: String) -> Attribute? {
        self.attributes.first { $0.name == name }
    }

    /// The value of `name` without quotes.
    public func string(_ name: String) -> String? {
        self[name].map { String($0.value) }
    }

    /// A decimal-integer value (0 to 2⁶⁴−1, held as `Int` up to `Int.max`).
    public func integer(_ name: String) -> Int? {
        self[name].flatMap { Int($0.value) }
    }

    /// A decimal-floating-point or signed-decimal-floating-point value, exactly.
    public func decimal(_ name: String) -> ExactDecimal? {
        self[name].flatMap { ExactDecimal($0.value) }
    }

    /// A decimal-resolution value (`1920x1080`).
    public func resolution(_ name: String) -> Resolution? {
        self[name].flatMap { Resolution($0.value) }
    }

    /// Whether an enumerated `YES`/`NO` attribute is `YES`; nil when absent.
    public func flag(_ name: String) -> Bool? {
        self[name].map { $0.value == "YES" }
    }

    /// Sets, replaces in place (keeping its position) or, with nil, removes an attribute.
    /// `rawValue` is written as given: include the quotes for a quoted-string.
    public mutating func set(_ name: String, rawValue: String?) {
        let index = self.attributes.firstIndex { $0.name == name }
        switch (index, rawValue) {
        case (let index?, let raw?): self.attributes[index].rawValue = raw
        case (let index?, nil): self.attributes.remove(at: index)
        case (nil, let raw?): self.attributes.append(Attribute(name: name, rawValue: raw))
        case (nil, nil): break
        }
    }

    /// Sets a quoted-string attribute; the value as ``quotable(_:name:)`` makes it, so whatever a
    /// name, language or URI holds the line parses back.
    public mutating func setQuoted(_ name: String, _ value: String?) {
        self.set(name, rawValue: value.map { "\"\(Self.quotable($0, name: name))\"" })
    }

    /// Whether attribute `name` holds a URI (`URI`, `SERVER-URI`, `X-ASSET-URI`, `X-ASSET-LIST`…).
    @usableFromInline
    static func holdsURI(_ name: String) -> Bool {
        name == "URI" || name.hasSuffix("-URI") || name == "X-ASSET-LIST"
    }

    /// `value` as a quoted-string may hold it (RFC 8216bis §4.2: no double quote, CR or LF — and no
    /// escape exists): in a URI attribute those are percent-encoded (`%22`, `%0D`, `%0A`, the URI
    /// is the same resource); elsewhere (a NAME, a LANGUAGE, an ID) a double quote becomes an
    /// apostrophe and a line break a space. Every quoted-string a playlist of ours writes goes
    /// through here (``setQuoted(_:_:)``, `TagBytes.quoted`): the one home of the rule.
    public static func quotable(_ value: String, name: String) -> String {
        guard value.utf8.contains(where: { $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else { return value }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(value.utf8.count + 8)
        Self.appendQuotable(value, uri: Self.holdsURI(name), to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``quotable(_:name:)``'s bytes, appended.
    @inlinable
    public static func appendQuotable(_ value: String, uri: Bool, to bytes: inout [UInt8]) {
        for byte in value.utf8 {
            switch byte {
            case 0x22: bytes.append(contentsOf: uri ? Array("%22".utf8) : [UInt8(ascii: "'")])
            case 0x0A: bytes.append(contentsOf: uri ? Array("%0A".utf8) : [UInt8(ascii: " ")])
            case 0x0D: bytes.append(contentsOf: uri ? Array("%0D".utf8) : [UInt8(ascii: " ")])
            default: bytes.append(byte)
            }
        }
    }

    /// The list as written in a playlist: `NAME=VALUE,NAME=VALUE`.
    public var serialized: String {
        var text = ""
        for (index, attribute) in self.attributes.enumerated() {
            if index > 0 { text += "," }
            text += attribute.name
            text += "="
            text += attribute.rawValue
        }
        return text
    }
}

/// A decimal-resolution: `WIDTHxHEIGHT`.
public struct Resolution: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "x", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width >= 0, height >= 0,
            parts[0].allSatisfy(\.isASCIIDigit), parts[1].allSatisfy(\.isASCIIDigit)
        else { return nil }
        self.init(width: width, height: height)
    }

    /// Width times height (saturating, for absurd sizes).
    public var pixels: Int {
        let (product, overflow) = self.width.multipliedReportingOverflow(by: self.height)
        return overflow ? Int.max : product
    }
    public var description: String { "\(self.width)x\(self.height)" }
}

extension Character {
    var isASCIIDigit: Bool { self.isASCII && self.isNumber }
}

/// An SCTE 35 `splice_info_section` (ANSI/SCTE 35 2023, §9.6): the cue message an ad marker in a
/// playlist carries as base64 (`SCTE35=/DA…`, `EXT-OATCLS-SCTE35`) or hex (`SCTE35-OUT=0xFC30…`).
///
/// Decoded strictly and without trapping: every length is checked against the bytes there are,
/// and the CRC-32 (§9.6.1, MPEG-2's: polynomial 0x04C11DB7, no reflection) must match, or the
/// initialiser throws an ``SCTE35Error`` saying what is wrong and at which byte. Times are in
/// 90 kHz ticks, as the section writes them.
public struct SpliceInfoSection: Sendable, Hashable {
    /// `sap_type` (§9.6.1): 3 = not specified.
    public var sapType: UInt8
    public var protocolVersion: UInt8
    /// `encrypted_packet`: the command and descriptors are encrypted and not decoded.
    public var isEncrypted: Bool
    /// `pts_adjustment` (33 bits): added to every `pts_time` of the section.
    public var ptsAdjustment: UInt64
    public var tier: UInt16
    public var command: SpliceCommand
    public var descriptors: [SpliceDescriptor]
    public var crc: UInt32

    /// Reads base64 (the usual form in playlists) or `0x`-prefixed hex.
    public init(_ text: some StringProtocol) throws(SCTE35Error) {
        let trimmed = text.drop { $0 == " " || $0 == "\"" }.reversed().drop { $0 == " " || $0 == "\"" }.reversed()
        let string = String(trimmed)
        if string.hasPrefix("0x") || string.hasPrefix("0X") {
            try self.init(bytes: try Self.hex(string.dropFirst(2)))
        } else {
            try self.init(bytes: try Self.base64(string))
        }
    }

    /// Decodes the section in `bytes`, which must hold exactly one section.
    public init(bytes: [UInt8]) throws(SCTE35Error) {
        var reader = BitReader(bytes)
        let tableID = try reader.bits(8, "table_id")
        guard tableID == 0xFC else {
            throw SCTE35Error("table_id is 0x\(String(tableID, radix: 16, uppercase: true)), not 0xFC: not a splice_info_section", at: 0)
        }
        try reader.skip(1, "section_syntax_indicator")
        try reader.skip(1, "private_indicator")
        self.sapType = UInt8(try reader.bits(2, "sap_type"))
        let sectionLength = Int(try reader.bits(12, "section_length"))
        guard sectionLength + 3 == bytes.count else {
            throw SCTE35Error("section_length says \(sectionLength + 3) bytes, there are \(bytes.count)", at: 1)
        }
        guard sectionLength >= 15 else { throw SCTE35Error("section_length \(sectionLength) is too short for a splice_info_section", at: 1) }
        let crc = Self.crc32(bytes.dropLast(4))
        let stored = bytes.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard crc == stored else {
            throw SCTE35Error(
                "CRC_32 is 0x\(String(stored, radix: 16, uppercase: true)) but the section's bytes give 0x\(String(crc, radix: 16, uppercase: true)): it is damaged",
                at: bytes.count - 4
            )
        }
        self.crc = stored
        self.protocolVersion = UInt8(try reader.bits(8, "protocol_version"))
        self.isEncrypted = try reader.bits(1, "encrypted_packet") == 1
        try reader.skip(6, "encryption_algorithm")
        self.ptsAdjustment = try reader.bits(33, "pts_adjustment")
        try reader.skip(8, "cw_index")
        self.tier = UInt16(try reader.bits(12, "tier"))
        let commandLength = Int(try reader.bits(12, "splice_command_length"))
        let commandType = UInt8(try reader.bits(8, "splice_command_type"))
        guard !self.isEncrypted else {
            self.command = .encrypted(type: commandType)
            self.descriptors = []
            return
        }
        let commandStart = reader.byteOffset
        self.command = try SpliceCommand.read(type: commandType, from: &reader)
        // 0xFFF: the legacy "length not given" (§9.6.1); else the command must fill it exactly.
        if commandLength != 0xFFF {
            guard reader.byteOffset - commandStart == commandLength else {
                throw SCTE35Error(
                    "splice_command_length says \(commandLength) bytes, the command took \(reader.byteOffset - commandStart)",
                    at: commandStart
                )
            }
        }
        let loopLength = Int(try reader.bits(16, "descriptor_loop_length"))
        let loopEnd = reader.byteOffset + loopLength
        guard loopEnd <= bytes.count - 4 else {
            throw SCTE35Error("descriptor_loop_length \(loopLength) runs past the section", at: reader.byteOffset - 2)
        }
        var descriptors: [SpliceDescriptor] = []
        while reader.byteOffset < loopEnd {
            descriptors.append(try SpliceDescriptor.read(from: &reader, end: loopEnd))
        }
        self.descriptors = descriptors
    }

    /// The segmentation descriptors of the section, in order.
    public var segmentations: [SegmentationDescriptor] {
        self.descriptors.compactMap { if case .segmentation(let descriptor) = $0 { descriptor } else { nil } }
    }

    /// The time a command's `pts_time` names, with `pts_adjustment` added (33-bit wrap, §9.6.1).
    public func adjusted(_ ptsTime: UInt64) -> UInt64 {
        (ptsTime + self.ptsAdjustment) & ((1 << 33) - 1)
    }

    /// MPEG-2's CRC-32 (ISO/IEC 13818-1 Annex A): polynomial 0x04C11DB7, initial 0xFFFFFFFF, no
    /// reflection, no final XOR — what `CRC_32` of a splice_info_section holds.
    public static func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = (crc << 8) ^ Self.crcTable[Int((crc >> 24) ^ UInt32(byte))]
        }
        return crc
    }

    private static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index) << 24
        for _ in 0..<8 { value = value & 0x8000_0000 != 0 ? (value << 1) ^ 0x04C1_1DB7 : value << 1 }
        return value
    }

    private static func hex(_ text: Substring) throws(SCTE35Error) -> [UInt8] {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0, !digits.isEmpty else { throw SCTE35Error("the hex has an odd number of digits", at: 0) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else {
                throw SCTE35Error("'\(String(decoding: digits[index...index + 1], as: UTF8.self))' is not hex", at: index / 2)
            }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// RFC 4648 base64 (padding optional; the URL-safe alphabet too).
    private static func base64(_ text: String) throws(SCTE35Error) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for (index, character) in text.utf8.enumerated() {
            let value: UInt32
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(character - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(character - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(character - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"), UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "/"), UInt8(ascii: "_"): value = 63
            case UInt8(ascii: "="): continue
            default:
                throw SCTE35Error(
                    "'\(Character(UnicodeScalar(character)))' at character \(index) is neither base64 nor hex (write 0x before hex)",
                    at: 0
                )
            }
            buffer = buffer << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        guard !bytes.isEmpty else { throw SCTE35Error("the section is empty", at: 0) }
        return bytes
    }
}

/// Why a section does not decode: what is wrong, and the byte of the section where it was found.
public struct SCTE35Error: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var byteOffset: Int

    init(_ message: String, at byteOffset: Int) {
        self.message = message
        self.byteOffset = byteOffset
    }

    public var description: String { "SCTE-35: \(self.message) (byte \(self.byteOffset))" }
}

/// Reads big-endian bit fields, throwing where the bytes run out.
struct BitReader {
    let bytes: [UInt8]
    private(set) var bitOffset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var byteOffset: Int { self.bitOffset / 8 }

    mutating func bits(_ count: Int, _ field: StaticString) throws(SCTE35Error) -> UInt64 {
        guard self.bitOffset + count <= self.bytes.count * 8 else {
            throw SCTE35Error("the section ends inside \(field)", at: self.byteOffset)
        }
        var value: UInt64 = 0
        for _ in 0..<count {
            let byte = self.bytes[self.bitOffset / 8]
            value = value << 1 | UInt64((byte >> (7 - UInt8(self.bitOffset % 8))) & 1)
            self.bitOffset += 1
        }
        return value
    }

    mutating func skip(_ count: Int, _ field: StaticString) throws(SCTE35Error) {
        _ = try self.bits(count, field)
    }

    mutating func bytes(_ count: Int, _ field: StaticString) throws(SCTE35Error) -> [UInt8] {
        guard self.bitOffset % 8 == 0, self.byteOffset + count <= self.bytes.count else {
            throw SCTE35Error("the section ends inside \(field)", at: self.byteOffset)
        }
        defer { self.bitOffset += count * 8 }
        return Array(self.bytes[self.byteOffset..<self.byteOffset + count])
    }
}

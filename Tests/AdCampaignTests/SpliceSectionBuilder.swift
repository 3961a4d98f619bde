/// Writes SCTE 35 `splice_info_section`s bit by bit (ANSI/SCTE 35 §9.6 the section, §9.7.3
/// `splice_insert`, §9.7.4 `time_signal`, §10.3.3 `segmentation_descriptor`), with the CRC_32 of
/// MPEG-2 (ISO/IEC 13818-1 Annex A) computed here, so tests put real cue messages in their
/// playlists' ad markers and the loader's decoder checks them as it would a packager's.
///
/// What every section here shares: sap_type 3 (not specified), protocol_version 0, not
/// encrypted, pts_adjustment 0, cw_index 0, tier 0xFFF — as threefive writes them, so
/// ``SpliceSectionBuilderTests`` can compare with sections made by it.
enum SpliceSection {
    /// A `splice_insert` (command type 5): out of the network (a break starts) or back in, at
    /// `pts` (90 kHz ticks), with a `break_duration` (auto_return set) when `breakDuration` is given.
    static func insert(eventID: UInt32, outOfNetwork: Bool, pts: UInt64 = 1_800_000, breakDuration: UInt64? = nil) -> [UInt8] {
        var command = BitWriter()
        command.write(UInt64(eventID), 32)  // splice_event_id
        command.write(0, 1)  // splice_event_cancel_indicator
        command.write(0x7F, 7)  // reserved
        command.write(outOfNetwork ? 1 : 0, 1)  // out_of_network_indicator
        command.write(1, 1)  // program_splice_flag
        command.write(breakDuration == nil ? 0 : 1, 1)  // duration_flag
        command.write(0, 1)  // splice_immediate_flag
        command.write(1, 1)  // event_id_compliance_flag
        command.write(0x7, 3)  // reserved
        command.spliceTime(pts)
        if let breakDuration {
            command.write(1, 1)  // auto_return
            command.write(0x3F, 6)  // reserved
            command.write(breakDuration, 33)
        }
        command.write(1, 16)  // unique_program_id
        command.write(0, 8)  // avail_num
        command.write(0, 8)  // avails_expected
        return Self.section(commandType: 0x05, command: command.bytes)
    }

    /// A `time_signal` (command type 6) at `pts` with one `segmentation_descriptor`: `typeID`
    /// from table 23 (0x34 placement opportunity start, 0x35 its end, 0x22 break start…), with a
    /// `segmentation_duration` when `duration` is given.
    static func timeSignal(eventID: UInt32, typeID: UInt8, pts: UInt64 = 1_800_000, duration: UInt64? = nil) -> [UInt8] {
        var command = BitWriter()
        command.spliceTime(pts)
        var descriptor = BitWriter()
        descriptor.write(0x4355_4549, 32)  // identifier "CUEI"
        descriptor.write(UInt64(eventID), 32)  // segmentation_event_id
        descriptor.write(0, 1)  // segmentation_event_cancel_indicator
        descriptor.write(0x7F, 7)  // segmentation_event_id_compliance_indicator, reserved
        descriptor.write(1, 1)  // program_segmentation_flag
        descriptor.write(duration == nil ? 0 : 1, 1)  // segmentation_duration_flag
        descriptor.write(1, 1)  // delivery_not_restricted_flag
        descriptor.write(0x1F, 5)  // reserved
        if let duration { descriptor.write(duration, 40) }
        descriptor.write(0x0F, 8)  // segmentation_upid_type: URI
        descriptor.write(0, 8)  // segmentation_upid_length: none
        descriptor.write(UInt64(typeID), 8)  // segmentation_type_id
        descriptor.write(0, 8)  // segment_num
        descriptor.write(0, 8)  // segments_expected
        var loop = BitWriter()
        loop.write(0x02, 8)  // splice_descriptor_tag: segmentation_descriptor
        loop.write(UInt64(descriptor.bytes.count), 8)  // descriptor_length
        loop.append(descriptor.bytes)
        return Self.section(commandType: 0x06, command: command.bytes, descriptors: loop.bytes)
    }

    /// Ticks of the 90 kHz clock in `seconds`.
    static func ticks(_ seconds: Int) -> UInt64 { UInt64(seconds) * 90_000 }

    /// The section as packagers write it in `EXT-OATCLS-SCTE35` and `EXT-X-SPLICEPOINT-SCTE35`.
    static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var text = ""
        for start in stride(from: 0, to: bytes.count, by: 3) {
            let chunk = Array(bytes[start..<min(start + 3, bytes.count)])
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * $1.offset) }
            for index in 0..<4 {
                text.append(index <= chunk.count ? alphabet[Int(value >> (18 - 6 * index) & 0x3F)] : "=")
            }
        }
        return text
    }

    /// The section as `EXT-X-DATERANGE` writes it in `SCTE35-OUT`/`-IN`/`-CMD`: `0x` and hex digits.
    static func hex(_ bytes: [UInt8]) -> String {
        "0x" + bytes.map { byte in String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true) }.joined()
    }

    /// MPEG-2's CRC-32: polynomial 0x04C11DB7, initial 0xFFFFFFFF, no reflection, no final XOR.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        return crc
    }

    /// The section around a command and its descriptor loop; section_length and CRC_32 filled in.
    private static func section(commandType: UInt8, command: [UInt8], descriptors: [UInt8] = []) -> [UInt8] {
        var section = BitWriter()
        section.write(0xFC, 8)  // table_id
        section.write(0, 1)  // section_syntax_indicator
        section.write(0, 1)  // private_indicator
        section.write(3, 2)  // sap_type: not specified
        // From after section_length to the end of CRC_32: the fixed 17 bytes, the command, the loop.
        section.write(UInt64(17 + command.count + descriptors.count), 12)  // section_length
        section.write(0, 8)  // protocol_version
        section.write(0, 1)  // encrypted_packet
        section.write(0, 6)  // encryption_algorithm
        section.write(0, 33)  // pts_adjustment
        section.write(0, 8)  // cw_index
        section.write(0xFFF, 12)  // tier
        section.write(UInt64(command.count), 12)  // splice_command_length
        section.write(UInt64(commandType), 8)  // splice_command_type
        section.append(command)
        section.write(UInt64(descriptors.count), 16)  // descriptor_loop_length
        section.append(descriptors)
        section.write(UInt64(Self.crc32(section.bytes)), 32)  // CRC_32
        return section.bytes
    }
}

/// Bits appended most significant first; whole bytes at a time once aligned.
private struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var usedBits = 0

    /// Whole bytes, after whole bytes.
    mutating func append(_ bytes: [UInt8]) {
        precondition(self.usedBits % 8 == 0, "append bytes on a byte boundary")
        self.bytes += bytes
        self.usedBits += 8 * bytes.count
    }

    mutating func write(_ value: UInt64, _ count: Int) {
        for shift in stride(from: count - 1, through: 0, by: -1) {
            if self.usedBits % 8 == 0 { self.bytes.append(0) }
            let bit = UInt8(truncatingIfNeeded: value >> UInt64(shift)) & 1
            self.bytes[self.bytes.count - 1] |= bit << (7 - UInt8(self.usedBits % 8))
            self.usedBits += 1
        }
    }

    /// `splice_time()` (§9.7.4/§9.4.1): time_specified_flag, reserved, a 33-bit pts_time.
    mutating func spliceTime(_ pts: UInt64) {
        self.write(1, 1)  // time_specified_flag
        self.write(0x3F, 6)  // reserved
        self.write(pts, 33)
    }
}

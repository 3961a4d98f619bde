import Testing

@testable import SCTE35

/// The example sections of SCTE 35 (2016+, §14 "Sample SCTE 35 messages"), as packagers put them
/// in playlists. Expected values were read with an independent decoder (threefive 2.x) and agree
/// with the spec's own annotations: PTS in 90 kHz ticks, event ids, segmentation types. The §14.1
/// sample as published (and copied into many tools' tests) ends in a CRC_32 its bytes do not give
/// (0x36FAEDA1; they give 0x165E4454): it is refused as damaged, and read with its CRC corrected.
@Suite("SCTE-35 splice_info_section")
struct SpliceInfoSectionTests {
    /// §14.1 time_signal — Placement Opportunity Start.
    static let placementStart = "/DA0AAAAAAAA///wBQb+cr0AUAAeAhxDVUVJSAAAjn/PAAEUrEoICAAAAAAg+2UBNAAANvrtoQ=="
    /// §14.2 splice_insert.
    static let spliceInsert = "/DAvAAAAAAAA///wFAVIAACPf+/+c2nALv4AUsz1AAAAAAAKAAhDVUVJAAABNWLbowo="
    /// §14.3 time_signal — Placement Opportunity End.
    static let placementEnd = "/DAvAAAAAAAA///wBQb+dGKQoAAZAhdDVUVJSAAAjn+fCAgAAAAALKChijUCAKnMZ1g="
    /// §14.7 time_signal — Placement Opportunity End, Program End, Program Start in one section.
    static let threeDescriptors =
        "/DBhAAAAAAAA///wBQb+qM1E7QBLAhdDVUVJSAAArX+fCAgAAAAALLLXnTUCAAIXQ1VFSUgAACZ/nwgIAAAAACyy150RAAACF0NVRUlIAAAnf58ICAAAAAAsstezEAAAihiGnw=="

    @Test("time_signal with a placement opportunity start: time, event id, duration, UPID, type")
    func placementOpportunityStart() throws {
        let section = try SpliceInfoSection(bytes: Self.withCorrectCRC(try Self.bytes(Self.placementStart)))
        #expect(section.sapType == 3 && section.tier == 0xFFF && section.ptsAdjustment == 0 && !section.isEncrypted)
        #expect(section.command == .timeSignal(SpliceTime(ptsTime: 0x0_72BD_0050)))
        #expect(section.crc == 0x165E_4454)
        let segmentation = try #require(section.segmentations.first)
        #expect(section.segmentations.count == 1)
        #expect(segmentation.eventID == 0x4800_008E && !segmentation.isCancelled && segmentation.isProgramSegmentation)
        #expect(segmentation.duration == 18_132_042)  // 201.467133 s
        #expect(segmentation.upidType == 0x08 && segmentation.upid == [0, 0, 0, 0, 0x20, 0xFB, 0x65, 0x01])
        #expect(segmentation.typeID == 0x34 && segmentation.startsBreak && !segmentation.endsBreak)
        #expect(segmentation.segmentNum == 0 && segmentation.segmentsExpected == 0)
        #expect(segmentation.subSegmentNum == nil, "the descriptor ends before the sub-segment fields")
    }

    @Test("splice_insert out of the network, with a break duration and an avail descriptor")
    func spliceInsert() throws {
        let section = try SpliceInfoSection(Self.spliceInsert)
        guard case .insert(let insert) = section.command else {
            Issue.record("not a splice_insert: \(section.command)")
            return
        }
        #expect(insert.eventID == 0x4800_008F && !insert.isCancelled)
        #expect(insert.outOfNetwork && insert.isProgramSplice && !insert.isImmediate)
        #expect(insert.spliceTime == SpliceTime(ptsTime: 0x0_7369_C02E))  // 21514.559089 s
        #expect(insert.breakDuration?.autoReturn == true && insert.breakDuration?.duration == 0x52_CCF5)  // 60.293567 s
        #expect(insert.uniqueProgramID == 0 && insert.availNum == 0 && insert.availsExpected == 0)
        #expect(section.descriptors == [.avail(providerAvailID: 309)])
    }

    @Test("time_signal with a placement opportunity end")
    func placementOpportunityEnd() throws {
        let section = try SpliceInfoSection(Self.placementEnd)
        #expect(section.command == .timeSignal(SpliceTime(ptsTime: 1_952_616_608)))  // 21695.740089 s
        let segmentation = try #require(section.segmentations.first)
        #expect(segmentation.eventID == 0x4800_008E && segmentation.typeID == 0x35 && segmentation.endsBreak && !segmentation.startsBreak)
        #expect(segmentation.duration == nil && segmentation.segmentNum == 2)
        #expect(segmentation.upid == [0, 0, 0, 0, 0x2C, 0xA0, 0xA1, 0x8A])
    }

    @Test("three segmentation descriptors in one section, in order")
    func threeDescriptors() throws {
        let section = try SpliceInfoSection(Self.threeDescriptors)
        #expect(section.segmentations.map(\.typeID) == [0x35, 0x11, 0x10])
        #expect(section.segmentations.map(\.eventID) == [0x4800_00AD, 0x4800_0026, 0x4800_0027])
        #expect(section.command == .timeSignal(SpliceTime(ptsTime: 2_832_024_813)))  // 31466.942367 s
    }

    @Test("hex with 0x (as in DATERANGE SCTE35-OUT) reads as the base64 does")
    func hex() throws {
        let hex = "0xFC302F000000000000FFFFF014054800008F7FEFFE7369C02EFE0052CCF500000000000A0008435545490000013562DBA30A"
        #expect(try SpliceInfoSection(hex) == SpliceInfoSection(Self.spliceInsert))
        #expect(try SpliceInfoSection(hex.lowercased()) == SpliceInfoSection(Self.spliceInsert))
    }

    @Test("pts_adjustment is added with 33-bit wrap")
    func adjustment() throws {
        var section = try SpliceInfoSection(Self.placementEnd)
        section.ptsAdjustment = (1 << 33) - 10
        #expect(section.adjusted(25) == 15)
    }

    @Test(
        "a damaged section says what is wrong and where, never traps",
        arguments: [
            // §14.1 as published: its CRC does not match.
            (Self.placementStart, "CRC_32 is 0x36FAEDA1 but the section's bytes give 0x165E4454"),
            // §14.2 with a byte of the PTS changed.
            ("/DAvAAAAAAAA///wFAVIAACPf+/+c2nBLv4AUsz1AAAAAAAKAAhDVUVJAAABNWLbowo=", "CRC_32 is 0x62DBA30A"),
            // The last four bytes missing.
            ("/DA0AAAAAAAA///wBQb+cr0AUAAeAhxDVUVJSAAAjn/PAAEUrEoICAAAAAAg+2UBNAAA", "section_length says 55 bytes, there are 51"),
            ("/TA0AAAAAAAA///wBQb+cr0AUAAeAhxDVUVJSAAAjn/PAAEUrEoICAAAAAAg+2UBNAAANvrtoQ==", "table_id is 0xFD, not 0xFC"),
            ("notbase64!", "'!' at character 9 is neither base64 nor hex"),
            ("0xFC3", "odd number of digits"),
            ("0xFC30ZZ", "'ZZ' is not hex"),
            ("", "the section is empty"),
        ]
    )
    func damaged(_ text: String, _ message: String) {
        let error = #expect(throws: SCTE35Error.self) { try SpliceInfoSection(text) }
        #expect(error?.description.contains(message) == true, "\(String(describing: error))")
    }

    @Test("every truncation and every single-bit flip of the samples is refused or decoded, never a trap")
    func mutations() throws {
        for sample in [Self.placementStart, Self.spliceInsert, Self.placementEnd, Self.threeDescriptors] {
            let bytes = Self.withCorrectCRC(try Self.bytes(sample))
            for length in 0..<bytes.count {
                #expect(throws: SCTE35Error.self) { try SpliceInfoSection(bytes: Array(bytes.prefix(length))) }
            }
            var refused = 0
            for bit in 0..<(bytes.count * 8) {
                var flipped = bytes
                flipped[bit / 8] ^= 1 << UInt8(bit % 8)
                if (try? SpliceInfoSection(bytes: flipped)) == nil { refused += 1 }
            }
            // The CRC-32 catches every single-bit error.
            #expect(refused == bytes.count * 8)
        }
    }

    @Test("a section whose CRC is right but whose descriptor overruns its loop is refused")
    func overrun() throws {
        var bytes = try Self.bytes(Self.placementStart)
        bytes[22] = 0xFF  // descriptor_length of the segmentation descriptor (after its tag, 0x02)
        let error = #expect(throws: SCTE35Error.self) { try SpliceInfoSection(bytes: Self.withCorrectCRC(bytes)) }
        #expect(error?.message.contains("runs past the descriptor loop") == true, "\(String(describing: error))")
    }

    /// `bytes` with the CRC_32 its other bytes give.
    static func withCorrectCRC(_ bytes: [UInt8]) -> [UInt8] {
        let crc = SpliceInfoSection.crc32(bytes.dropLast(4))
        return bytes.dropLast(4) + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
    }

    /// The bytes of a base64 sample (decoded here by hand, independently of the decoder's own).
    static func bytes(_ base64: String) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        for character in base64.utf8 where character != UInt8(ascii: "=") {
            buffer = buffer << 6 | UInt32(alphabet.firstIndex(of: character)!)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return bytes
    }
}

/// A `splice_descriptor` (SCTE 35 §10): segmentation descriptors are decoded, the rest kept by tag.
public enum SpliceDescriptor: Sendable, Hashable {
    /// `avail_descriptor` (tag 0x00, §10.3.1).
    case avail(providerAvailID: UInt32)
    /// `segmentation_descriptor` (tag 0x02, §10.3.3).
    case segmentation(SegmentationDescriptor)
    /// Any other descriptor: its tag, identifier (`CUEI` for SCTE 35's own) and private bytes.
    case other(tag: UInt8, identifier: UInt32, data: [UInt8])

    /// `CUEI`, the identifier of SCTE 35's own descriptors.
    public static let cuei: UInt32 = 0x4355_4549

    static func read(from reader: inout BitReader, end: Int) throws(SCTE35Error) -> SpliceDescriptor {
        let start = reader.byteOffset
        let tag = UInt8(try reader.bits(8, "splice_descriptor_tag"))
        let length = Int(try reader.bits(8, "descriptor_length"))
        guard reader.byteOffset + length <= end, length >= 4 else {
            throw SCTE35Error("descriptor 0x\(String(tag, radix: 16, uppercase: true)) of \(length) bytes runs past the descriptor loop", at: start)
        }
        let bodyEnd = reader.byteOffset + length
        let identifier = UInt32(try reader.bits(32, "identifier"))
        let descriptor: SpliceDescriptor
        switch (tag, identifier) {
        case (0x00, Self.cuei):
            descriptor = .avail(providerAvailID: UInt32(try reader.bits(32, "provider_avail_id")))
        case (0x02, Self.cuei):
            descriptor = .segmentation(try SegmentationDescriptor(&reader, end: bodyEnd))
        default:
            descriptor = .other(tag: tag, identifier: identifier, data: try reader.bytes(bodyEnd - reader.byteOffset, "private_byte"))
        }
        guard reader.byteOffset <= bodyEnd else {
            throw SCTE35Error("descriptor 0x\(String(tag, radix: 16, uppercase: true)) says \(length) bytes but needs more", at: start)
        }
        // Bytes a newer version of the descriptor adds: skipped.
        try reader.skip((bodyEnd - reader.byteOffset) * 8, "descriptor bytes")
        return descriptor
    }
}

/// `segmentation_descriptor()` (§10.3.3): what a `time_signal` means — a break, an ad, a
/// placement opportunity starting or ending — with its event id, duration and UPID.
public struct SegmentationDescriptor: Sendable, Hashable {
    public var eventID: UInt32
    /// `segmentation_event_cancel_indicator`: an earlier event with this id is cancelled.
    public var isCancelled: Bool
    public var isProgramSegmentation: Bool
    /// `segmentation_duration` in 90 kHz ticks, when given.
    public var duration: UInt64?
    public var deliveryNotRestricted: Bool
    /// `segmentation_upid_type` (§10.3.3.1, table 22) and its bytes.
    public var upidType: UInt8
    public var upid: [UInt8]
    /// `segmentation_type_id` (table 23).
    public var typeID: UInt8
    public var segmentNum: UInt8
    public var segmentsExpected: UInt8
    /// Present for the placement-opportunity and ad-block types that carry them (table 23).
    public var subSegmentNum: UInt8?
    public var subSegmentsExpected: UInt8?

    init(_ reader: inout BitReader, end: Int) throws(SCTE35Error) {
        self.eventID = UInt32(try reader.bits(32, "segmentation_event_id"))
        self.isCancelled = try reader.bits(1, "segmentation_event_cancel_indicator") == 1
        try reader.skip(7, "segmentation_event_id_compliance_indicator, reserved")
        self.isProgramSegmentation = true
        self.duration = nil
        self.deliveryNotRestricted = true
        self.upidType = 0
        self.upid = []
        self.typeID = 0
        self.segmentNum = 0
        self.segmentsExpected = 0
        guard !self.isCancelled else { return }
        self.isProgramSegmentation = try reader.bits(1, "program_segmentation_flag") == 1
        let hasDuration = try reader.bits(1, "segmentation_duration_flag") == 1
        self.deliveryNotRestricted = try reader.bits(1, "delivery_not_restricted_flag") == 1
        try reader.skip(5, "delivery restrictions")
        if !self.isProgramSegmentation {
            let count = Int(try reader.bits(8, "component_count"))
            try reader.skip(count * 48, "components")
        }
        if hasDuration { self.duration = try reader.bits(40, "segmentation_duration") }
        self.upidType = UInt8(try reader.bits(8, "segmentation_upid_type"))
        let upidLength = Int(try reader.bits(8, "segmentation_upid_length"))
        self.upid = try reader.bytes(upidLength, "segmentation_upid")
        self.typeID = UInt8(try reader.bits(8, "segmentation_type_id"))
        self.segmentNum = UInt8(try reader.bits(8, "segment_num"))
        self.segmentsExpected = UInt8(try reader.bits(8, "segments_expected"))
        if Self.typesWithSubSegments.contains(self.typeID), reader.byteOffset + 2 <= end {
            self.subSegmentNum = UInt8(try reader.bits(8, "sub_segment_num"))
            self.subSegmentsExpected = UInt8(try reader.bits(8, "sub_segments_expected"))
        }
    }

    /// Table 23: the types followed by `sub_segment_num` and `sub_segments_expected`.
    static let typesWithSubSegments: Set<UInt8> = [0x34, 0x36, 0x38, 0x3A, 0x44, 0x46]

    /// Where an ad break starts: break (0x22), provider/distributor advertisement (0x30, 0x32),
    /// placement opportunity (0x34, 0x36), overlay placement opportunity (0x38, 0x3A) and ad
    /// block (0x44, 0x46) starts.
    public var startsBreak: Bool { Self.breakStarts.contains(self.typeID) }

    /// Where one ends: each start type + 1.
    public var endsBreak: Bool { Self.breakStarts.contains(self.typeID &- 1) }

    static let breakStarts: Set<UInt8> = [0x22, 0x30, 0x32, 0x34, 0x36, 0x38, 0x3A, 0x44, 0x46]
}

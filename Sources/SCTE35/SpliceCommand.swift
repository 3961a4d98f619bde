/// A `splice_command` (SCTE 35 §9.7). AdStitch acts on `splice_insert` and `time_signal`; the
/// others are decoded as far as telling them apart.
public enum SpliceCommand: Sendable, Hashable {
    /// `splice_null` (0x00, §9.7.1): a heartbeat.
    case null
    /// `splice_schedule` (0x04, §9.7.2): not used for ad insertion in HLS; its bytes are skipped.
    case schedule
    /// `splice_insert` (0x05, §9.7.3).
    case insert(SpliceInsert)
    /// `time_signal` (0x06, §9.7.4): the time, its meaning in the segmentation descriptors.
    case timeSignal(SpliceTime)
    /// `bandwidth_reservation` (0x07, §9.7.5).
    case bandwidthReservation
    /// `private_command` (0xFF, §9.7.6), by its identifier.
    case privateCommand(identifier: UInt32)
    /// A command of an encrypted section (not decoded), by its type.
    case encrypted(type: UInt8)

    static func read(type: UInt8, from reader: inout BitReader) throws(SCTE35Error) -> SpliceCommand {
        switch type {
        case 0x00:
            return .null
        case 0x04:
            // splice_count, then per event a variable layout; only its length matters here, and
            // the section's splice_command_length covers it — skipped by the caller's check.
            let count = Int(try reader.bits(8, "splice_count"))
            for _ in 0..<count { try SpliceInsert.skipScheduleEvent(&reader) }
            return .schedule
        case 0x05:
            return .insert(try SpliceInsert(&reader))
        case 0x06:
            return .timeSignal(try SpliceTime(&reader))
        case 0x07:
            return .bandwidthReservation
        case 0xFF:
            return .privateCommand(identifier: UInt32(try reader.bits(32, "identifier")))
        default:
            throw SCTE35Error("splice_command_type 0x\(String(type, radix: 16, uppercase: true)) is reserved", at: reader.byteOffset - 1)
        }
    }
}

/// `splice_time()` (§9.8.1): a PTS in 90 kHz ticks, or none (immediate).
public struct SpliceTime: Sendable, Hashable {
    /// `pts_time` (33 bits) when `time_specified_flag` is set; add the section's `pts_adjustment`.
    public var ptsTime: UInt64?

    public init(ptsTime: UInt64?) {
        self.ptsTime = ptsTime
    }

    init(_ reader: inout BitReader) throws(SCTE35Error) {
        if try reader.bits(1, "time_specified_flag") == 1 {
            try reader.skip(6, "reserved")
            self.ptsTime = try reader.bits(33, "pts_time")
        } else {
            try reader.skip(7, "reserved")
            self.ptsTime = nil
        }
    }
}

/// `break_duration()` (§9.8.2).
public struct BreakDuration: Sendable, Hashable {
    /// `auto_return`: the splicer returns to the network by itself when the duration ends.
    public var autoReturn: Bool
    /// In 90 kHz ticks.
    public var duration: UInt64

    init(_ reader: inout BitReader) throws(SCTE35Error) {
        self.autoReturn = try reader.bits(1, "auto_return") == 1
        try reader.skip(6, "reserved")
        self.duration = try reader.bits(33, "duration")
    }
}

/// One component of a component splice (§9.7.3): its tag and splice time.
public struct ComponentSplice: Sendable, Hashable {
    public var tag: UInt8
    public var time: SpliceTime?
}

/// `splice_insert()` (§9.7.3): a splice out of the network (an ad break starts) or back in.
public struct SpliceInsert: Sendable, Hashable {
    public var eventID: UInt32
    /// `splice_event_cancel_indicator`: an earlier event with this id is cancelled; nothing else is set.
    public var isCancelled: Bool
    /// `out_of_network_indicator`: true where a break starts, false where it ends.
    public var outOfNetwork: Bool
    public var isProgramSplice: Bool
    public var isImmediate: Bool
    /// The program splice time (nil when immediate, or for component splices: see ``componentTimes``).
    public var spliceTime: SpliceTime?
    /// Component splices: each component's tag and time.
    public var componentTimes: [ComponentSplice]
    public var breakDuration: BreakDuration?
    public var uniqueProgramID: UInt16
    public var availNum: UInt8
    public var availsExpected: UInt8

    init(_ reader: inout BitReader) throws(SCTE35Error) {
        self.eventID = UInt32(try reader.bits(32, "splice_event_id"))
        self.isCancelled = try reader.bits(1, "splice_event_cancel_indicator") == 1
        try reader.skip(7, "reserved")
        self.outOfNetwork = false
        self.isProgramSplice = false
        self.isImmediate = false
        self.spliceTime = nil
        self.componentTimes = []
        self.breakDuration = nil
        self.uniqueProgramID = 0
        self.availNum = 0
        self.availsExpected = 0
        guard !self.isCancelled else { return }
        self.outOfNetwork = try reader.bits(1, "out_of_network_indicator") == 1
        self.isProgramSplice = try reader.bits(1, "program_splice_flag") == 1
        let hasDuration = try reader.bits(1, "duration_flag") == 1
        self.isImmediate = try reader.bits(1, "splice_immediate_flag") == 1
        try reader.skip(4, "event_id_compliance_flag, reserved")
        if self.isProgramSplice, !self.isImmediate { self.spliceTime = try SpliceTime(&reader) }
        if !self.isProgramSplice {
            let count = Int(try reader.bits(8, "component_count"))
            for _ in 0..<count {
                let tag = UInt8(try reader.bits(8, "component_tag"))
                self.componentTimes.append(ComponentSplice(tag: tag, time: self.isImmediate ? nil : try SpliceTime(&reader)))
            }
        }
        if hasDuration { self.breakDuration = try BreakDuration(&reader) }
        self.uniqueProgramID = UInt16(try reader.bits(16, "unique_program_id"))
        self.availNum = UInt8(try reader.bits(8, "avail_num"))
        self.availsExpected = UInt8(try reader.bits(8, "avails_expected"))
    }

    /// One event of a `splice_schedule` (§9.7.2.1), skipped.
    static func skipScheduleEvent(_ reader: inout BitReader) throws(SCTE35Error) {
        try reader.skip(32, "splice_event_id")
        let cancelled = try reader.bits(1, "splice_event_cancel_indicator") == 1
        try reader.skip(7, "reserved")
        guard !cancelled else { return }
        try reader.skip(1, "out_of_network_indicator")
        let program = try reader.bits(1, "program_splice_flag") == 1
        let duration = try reader.bits(1, "duration_flag") == 1
        try reader.skip(5, "reserved")
        if program {
            try reader.skip(32, "utc_splice_time")
        } else {
            let count = Int(try reader.bits(8, "component_count"))
            try reader.skip(count * 40, "components")
        }
        if duration { try reader.skip(40, "break_duration") }
        try reader.skip(32, "unique_program_id, avail_num, avails_expected")
    }
}

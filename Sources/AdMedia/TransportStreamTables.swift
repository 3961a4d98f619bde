import Foundation

/// Whether an MPEG-TS segment carries its Program Association and Program Map Tables before its
/// media (ISO/IEC 13818-1 §2.4.4): a player that starts at the segment — every splice is such a
/// start — cannot find its streams without them (RFC 8216bis §3.3.1: "Each Media Segment MUST
/// contain a PAT and a PMT"; hls.js drops what comes before them).
///
/// Written by hand: it reads a few 188-byte packet headers and one PAT section, which no library
/// we use does, and ffprobe hides (it finds tables anywhere in the file).
public enum TransportStreamTables: Sendable, Hashable {
    /// A PAT, then the PMT it names, before the first media packet.
    case leading
    /// Tables are there, but media packets come first (`packet`: the first one, from 0).
    case late(packet: Int)
    /// No PAT, or no PMT for the program it names.
    case missing(pat: Bool)
    /// Not 188-byte packets starting with 0x47.
    case notTransportStream

    private static let packetSize = 188

    /// The tables of `bytes`, a whole segment (or its first packets).
    public init(_ bytes: Data) {
        let size = Self.packetSize
        guard bytes.count >= size, bytes.first == 0x47 else {
            self = .notTransportStream
            return
        }
        var pmtPID: Int?
        var sawPAT = false
        var firstMedia: Int?
        let count = bytes.count / size
        let base = bytes.startIndex
        for index in 0..<count {
            let start = base + index * size
            guard bytes[start] == 0x47 else {
                self = .notTransportStream
                return
            }
            let pid = Int(bytes[start + 1] & 0x1F) << 8 | Int(bytes[start + 2])
            let unitStart = bytes[start + 1] & 0x40 != 0
            let adaptation = (bytes[start + 3] >> 4) & 0x3
            var payload = start + 4
            if adaptation & 0x2 != 0 { payload += 1 + Int(bytes[start + 4]) }
            let hasPayload = adaptation & 0x1 != 0 && payload < start + size
            if pid == 0, unitStart, hasPayload {
                sawPAT = true
                pmtPID = pmtPID ?? Self.firstProgramMap(bytes, payload: payload, end: start + size)
            } else if let pmt = pmtPID, pid == pmt, unitStart {
                self = firstMedia.map { .late(packet: $0) } ?? .leading
                return
            } else if firstMedia == nil, hasPayload, unitStart, !Self.isSystemPID(pid) {
                firstMedia = index
            }
        }
        self = .missing(pat: sawPAT)
    }

    /// The PID of the first program's PMT in a PAT section starting in this packet's payload.
    private static func firstProgramMap(_ bytes: Data, payload: Int, end: Int) -> Int? {
        let section = payload + 1 + Int(bytes[payload])  // pointer_field
        guard section + 8 <= end, bytes[section] == 0x00 else { return nil }  // table_id 0: PAT
        let length = Int(bytes[section + 1] & 0x0F) << 8 | Int(bytes[section + 2])
        let programsEnd = min(section + 3 + length - 4, end)  // less the CRC_32
        var entry = section + 8
        while entry + 4 <= programsEnd {
            let program = Int(bytes[entry]) << 8 | Int(bytes[entry + 1])
            let pid = Int(bytes[entry + 2] & 0x1F) << 8 | Int(bytes[entry + 3])
            if program != 0 { return pid }  // program 0 names the network PID
            entry += 4
        }
        return nil
    }

    /// PAT, CAT, TSDT, the DVB/ATSC service tables (0x00–0x1F) and null packets (0x1FFF).
    private static func isSystemPID(_ pid: Int) -> Bool { pid <= 0x1F || pid == 0x1FFF }
}

/// The empty IMSC subtitles that fill an IMSC (fMP4 `stpp`) subtitle rendition while an asset
/// without one plays — what `empty.vtt` is to a WebVTT rendition (docs/campaign-format.md "What
/// makes an ad stitchable"): one file, `empty-imsc.mp4`, holding a CMAF init segment of one
/// `stpp` track (ISO/IEC 14496-12 §12.6, ISO/IEC 14496-30 §4) and one fragment whose sample is a
/// TTML document with an empty body. Playlists name the init segment with `EXT-X-MAP` and the
/// fragment with `EXT-X-BYTERANGE`, once per segment of the asset's video, so the subtitle
/// timeline keeps the video's. Written by hand: no library on these machines writes a TTML track.
public enum IMSCFiller {
    /// Track timescale: milliseconds.
    static let timescale: UInt32 = 1000

    /// The TTML document of the fragment's one sample: no paragraph, so no cue.
    static let document = Array(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<tt xmlns=\"http://www.w3.org/ns/ttml\" xml:lang=\"\"><head/><body/></tt>\n".utf8
    )

    /// The init segment.
    static let initSegment: [UInt8] = {
        let identity: [UInt32] = [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000]
        let ftyp = box("ftyp", ascii("iso6") + be32(0) + ascii("iso6") + ascii("cmfc") + ascii("isom"))
        let mvhd = fullBox(
            "mvhd",
            be32(0) + be32(0) + be32(timescale) + be32(0) + be32(0x0001_0000) + be16(0x0100) + zeros(10)
                + identity.flatMap(be32) + zeros(24) + be32(2)
        )
        let tkhd = fullBox(
            "tkhd",
            flags: 3,
            be32(0) + be32(0) + be32(1) + be32(0) + be32(0) + zeros(8) + be16(0) + be16(0) + be16(0) + be16(0)
                + identity.flatMap(be32) + be32(0) + be32(0)
        )
        // Language "und", packed as three 5-bit letters less 0x60.
        let mdhd = fullBox("mdhd", be32(0) + be32(0) + be32(timescale) + be32(0) + be16(0x55C4) + be16(0))
        let hdlr = fullBox("hdlr", be32(0) + ascii("subt") + zeros(12) + Array("AdStitch empty subtitles\0".utf8))
        let dinf = box("dinf", fullBox("dref", be32(1) + fullBox("url ", flags: 1, [])))
        // XMLSubtitleSampleEntry: namespace, schema_location, auxiliary_mime_types (NUL-terminated).
        let stpp = box("stpp", zeros(6) + be16(1) + Array("http://www.w3.org/ns/ttml\0\0\0".utf8))
        let stbl = box(
            "stbl",
            fullBox("stsd", be32(1) + stpp) + fullBox("stts", be32(0)) + fullBox("stsc", be32(0)) + fullBox("stsz", be32(0) + be32(0))
                + fullBox("stco", be32(0))
        )
        let minf = box("minf", fullBox("sthd", []) + dinf + stbl)
        let trak = box("trak", tkhd + box("mdia", mdhd + hdlr + minf))
        let mvex = box("mvex", fullBox("trex", be32(1) + be32(1) + be32(0) + be32(0) + be32(0)))
        return ftyp + box("moov", mvhd + trak + mvex)
    }()

    /// The fragment: one sample of a second at decode time 0, its base the `moof`.
    static let fragment: [UInt8] = {
        let mfhd = fullBox("mfhd", be32(1))
        let tfhd = fullBox("tfhd", flags: 0x02_0000, be32(1))  // default-base-is-moof
        let tfdt = fullBox("tfdt", version: 1, zeros(8))
        // data-offset, sample-duration and sample-size present; the offset counted from the moof.
        func trun(offset: UInt32) -> [UInt8] {
            fullBox("trun", flags: 0x0301, be32(1) + be32(offset) + be32(timescale) + be32(UInt32(document.count)))
        }
        let size = 8 + mfhd.count + 8 + tfhd.count + tfdt.count + trun(offset: 0).count
        let moof = box("moof", mfhd + box("traf", tfhd + tfdt + trun(offset: UInt32(size + 8))))
        return moof + box("mdat", document)
    }()

    /// The file: the init segment, then the fragment.
    public static let bytes: [UInt8] = initSegment + fragment

    /// `EXT-X-MAP` of the init segment in the file at `uri`.
    static func mapLine(_ uri: String) -> String {
        "#EXT-X-MAP:URI=\"\(uri)\",BYTERANGE=\"\(initSegment.count)@0\""
    }

    /// `EXT-X-BYTERANGE` of the fragment.
    static var fragmentRange: String { "#EXT-X-BYTERANGE:\(fragment.count)@\(initSegment.count)" }

    // MARK: - Boxes

    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        be32(UInt32(8 + payload.count)) + ascii(type) + payload
    }

    static func fullBox(_ type: String, version: UInt8 = 0, flags: UInt32 = 0, _ payload: [UInt8]) -> [UInt8] {
        box(type, [version, UInt8(flags >> 16 & 0xFF), UInt8(flags >> 8 & 0xFF), UInt8(flags & 0xFF)] + payload)
    }

    static func be32(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    static func zeros(_ count: Int) -> [UInt8] { [UInt8](repeating: 0, count: count) }
    static func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
}

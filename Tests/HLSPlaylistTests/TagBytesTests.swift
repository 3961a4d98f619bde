import Foundation
import HLSPlaylist
import Testing

/// The fast tag writers (`TagBytes`) against the tag model: every line they write, for generated
/// values of every attribute, parses back to the same values, lints clean, and is what the
/// attribute model would serialize.
@Suite("Tag writers")
struct TagBytesTests {
    struct Generated {
        var id: [String]
        var dateRangeClass: String
        var start: Int64
        var cue: TagBytes.Cue
        var duration: ExactDecimal?
        var plannedDuration: ExactDecimal?
        var adIDs: [String]
        var restrict: [String]
        var resumeOffset: ExactDecimal?
        var payload: [UInt8]
    }

    static func generate(_ count: Int) -> [Generated] {
        var generator = SystemRandomNumberGenerator()
        let idCharacters = Array("abcdefghijklmnopqrstuvwxyz0123456789-_/")
        func word() -> String { String((0..<Int.random(in: 1...12, using: &generator)).map { _ in idCharacters.randomElement(using: &generator)! }) }
        func decimal() -> ExactDecimal {
            ExactDecimal(scaledValue: Int128(Int64.random(in: 0...(86_400 * 1_000_000), using: &generator)) * 1_000_000_000_000)
        }
        return (0..<count).map { _ in
            Generated(
                id: (0..<Int.random(in: 1...5, using: &generator)).map { _ in word() },
                dateRangeClass: ["com.adstitch.break", "com.adstitch.ad", "com.apple.hls.interstitial"].randomElement(using: &generator)!,
                // 1970 to 2200, any millisecond.
                start: Int64.random(in: 0...7_258_118_400_000, using: &generator),
                cue: TagBytes.Cue(rawValue: UInt8.random(in: 0...7, using: &generator)),
                duration: Bool.random(using: &generator) ? decimal() : nil,
                plannedDuration: Bool.random(using: &generator) ? decimal() : nil,
                adIDs: (0..<Int.random(in: 0...4, using: &generator)).map { _ in word() },
                restrict: ["SKIP", "JUMP"].filter { _ in Bool.random(using: &generator) },
                resumeOffset: Bool.random(using: &generator) ? decimal() : nil,
                payload: (0..<Int.random(in: 0...200, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            )
        }
    }

    static func line(_ value: Generated) -> String {
        let classes: [String: StaticString] = [
            "com.adstitch.break": "com.adstitch.break", "com.adstitch.ad": "com.adstitch.ad",
            "com.apple.hls.interstitial": "com.apple.hls.interstitial",
        ]
        var bytes: [UInt8] = []
        TagBytes.dateRange(
            id: value.id,
            class: classes[value.dateRangeClass]!,
            start: value.start,
            cue: value.cue,
            duration: value.duration,
            plannedDuration: value.plannedDuration,
            into: &bytes
        ) { bytes in
            TagBytes.quotedList("X-AD-ID", value.adIDs, into: &bytes)
            TagBytes.quotedList("X-RESTRICT", value.restrict, into: &bytes)
            if let offset = value.resumeOffset { TagBytes.decimal("X-RESUME-OFFSET", offset, into: &bytes) }
            TagBytes.quoted("X-AD-CREATIVE-SIGNALING", into: &bytes) { TagBytes.base64(value.payload, into: &$0) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("EXT-X-DATERANGE: 2,000 generated lines parse back to the values written, in the documented attribute order")
    func dateRangesRoundTrip() throws {
        let values = Self.generate(2_000)
        for value in values {
            let line = Self.line(value)
            #expect(line.hasSuffix("\n") && line.dropLast().allSatisfy { $0 != "\n" })
            let text =
                "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:4\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z\n"
                + line + "#EXTINF:4,\na.ts\n#EXT-X-ENDLIST\n"
            let playlist = try PlaylistParser().parseMediaPlaylist(text)
            let entry = try #require(playlist.dateRanges.first, "\(line)")
            let range = entry.dateRange
            #expect(range.id == value.id.joined())
            #expect(range.dateRangeClass == value.dateRangeClass)
            #expect(range.startDate == DateTime.iso8601(millisecondsSinceEpoch: value.start))
            var cue: [String] = []
            if value.cue.contains(.pre) { cue.append("PRE") }
            if value.cue.contains(.post) { cue.append("POST") }
            if value.cue.contains(.once) { cue.append("ONCE") }
            #expect(range.cue == cue)
            #expect(range.duration == value.duration)
            #expect(range.plannedDuration == value.plannedDuration)
            #expect(range.attributes.string("X-AD-ID") == (value.adIDs.isEmpty ? nil : value.adIDs.joined(separator: ",")))
            #expect(range.attributes.string("X-RESTRICT") == (value.restrict.isEmpty ? nil : value.restrict.joined(separator: ",")))
            #expect(range.attributes.decimal("X-RESUME-OFFSET") == value.resumeOffset)
            let signalled = try #require(range.attributes.string("X-AD-CREATIVE-SIGNALING"))
            #expect(Data(base64Encoded: signalled) == Data(value.payload), "base64 of \(value.payload.count) bytes")
            // The standard attributes first, in order, then the client-defined ones in the caller's.
            let names = range.attributes.attributes.map(\.name)
            let standard = names.prefix { !$0.hasPrefix("X-") }
            let expected = ["ID", "CLASS", "START-DATE", "CUE", "DURATION", "PLANNED-DURATION"].filter(standard.contains)
            #expect(Array(standard) == expected, "\(names)")
            #expect(names.allSatisfy { standard.contains($0) || $0.hasPrefix("X-") })
            // What the attribute model writes for the same attributes, byte for byte.
            #expect(Tag.dateRange(range).serialized + "\n" == line)
        }
    }

    @Test("Every other tag a renderer writes parses back to the same tag, 1,000 generated values each, and is what the tag model writes")
    func mediaPlaylistTagsRoundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1_000 {
            let number = Int.random(in: 0...Int(Int32.max), using: &generator)
            let duration = ExactDecimal(scaledValue: Int128(Int64.random(in: 0...(86_400 * 1_000_000), using: &generator)) * 1_000_000_000_000)
            let type: PlaylistType = Bool.random(using: &generator) ? .vod : .event
            let written: [(HLSPlaylist.Tag, (inout [UInt8]) -> Void)] = [
                (.m3u, { TagBytes.m3u(into: &$0) }),
                (.version(number), { TagBytes.version(number, into: &$0) }),
                (.targetDuration(number), { TagBytes.targetDuration(number, into: &$0) }),
                (.mediaSequence(number), { TagBytes.mediaSequence(number, into: &$0) }),
                (.discontinuitySequence(number), { TagBytes.discontinuitySequence(number, into: &$0) }),
                (.playlistType(type), { TagBytes.playlistType(type, into: &$0) }),
                (.iFramesOnly, { TagBytes.iFramesOnly(into: &$0) }),
                (.independentSegments, { TagBytes.independentSegments(into: &$0) }),
                (.discontinuity, { TagBytes.discontinuity(into: &$0) }),
                (.gap, { TagBytes.gap(into: &$0) }),
                (.endList, { TagBytes.endList(into: &$0) }),
                (.cueIn, { TagBytes.cueIn(into: &$0) }),
                (.cueOut(CueOut(value: Substring("DURATION=\(duration)"))), { TagBytes.cueOut(duration: duration, into: &$0) }),
                (
                    .define(Define(attributes: AttributeList([Attribute(name: "QUERYPARAM", rawValue: "\"token-\(number)\"")]))),
                    { TagBytes.defineQueryParameter("token-\(number)", into: &$0) }
                ),
            ]
            for (tag, write) in written {
                var bytes: [UInt8] = []
                write(&bytes)
                let line = String(decoding: bytes, as: UTF8.self)
                #expect(line.hasSuffix("\n") && line.dropLast().allSatisfy { $0 != "\n" }, "\(line)")
                // A playlist whose only line but the header is this one: the parser reads it back.
                let text = tag == .m3u ? line : "#EXTM3U\n" + line
                let lines = Array(try PlaylistParser().parse(text).lines)
                #expect(lines.last?.tag == tag, "\(line)")
                #expect(tag.serialized + "\n" == line)
                if case .cueOut(let cueOut) = lines.last?.tag { #expect(cueOut.duration == duration) }
                if case .define(let define) = lines.last?.tag { #expect(define.source == .queryParameter(name: "token-\(number)")) }
            }
        }
    }
}

import Foundation
import HLSPlaylist
import Testing

/// RFC 8216bis §4.4.4.2: a byte range without an offset continues the previous segment's
/// sub-range of the same resource; anything else leaves the segment undefined.
@Suite("Byte ranges")
struct ByteRangeTests {
    @Test("an omitted offset continues the previous range of the same resource")
    func implicitOffsetContinuesPreviousRange() throws {
        let text = canonical(
            "#EXTM3U",
            "#EXT-X-VERSION:4",
            "#EXT-X-TARGETDURATION:10",
            "#EXTINF:10,",
            "#EXT-X-BYTERANGE:1000@500",
            "media.ts",
            "#EXTINF:10,",
            "#EXT-X-BYTERANGE:2000",
            "media.ts",
            "#EXTINF:10,",
            "#EXT-X-BYTERANGE:300",
            "media.ts"
        )
        let playlist = try parseMedia(text)
        let ranges = playlist.segments.compactMap(\.byteRange)
        #expect(ranges.map(\.length) == [1000, 2000, 300])
        #expect(ranges.map(\.offset) == [500, 1500, 3500])
        #expect(ranges.map(\.isOffsetExplicit) == [true, false, false])
        #expect(ranges.map(\.lineNumber) == [5, 8, 11])
        #expect(ranges.map(\.lineIndex) == [4, 7, 10])
        #expect(playlist.parseDiagnostics.isEmpty)
        #expect(PlaylistLinter().lint(playlist).rule("byterange-offset").isEmpty)
    }

    @Test("the fixture's implicit offsets resolve to absolute offsets after the init section")
    func fixtureImplicitOffsets() throws {
        let playlist = try #require(try Fixture.parse("mediaconvert-fmp4-byterange.m3u8").media)
        #expect(playlist.segments.map { $0.byteRange?.offset } == [1317, 3_463_210, 6_816_081, 10_214_203])
        #expect(playlist.segments.map { $0.byteRange?.isOffsetExplicit } == [true, false, false, false])
        #expect(playlist.segments[0].map?.byteRange == ByteRange(length: 1317, offset: 0))
    }

    @Test("an omitted offset after a range of another resource parses with no offset and is a lint error")
    func implicitOffsetAfterAnotherResource() throws {
        let text = canonical(
            "#EXTM3U",
            "#EXT-X-VERSION:4",
            "#EXT-X-TARGETDURATION:10",
            "#EXTINF:10,",
            "#EXT-X-BYTERANGE:1000@0",
            "a.ts",
            "#EXTINF:10,",
            "#EXT-X-BYTERANGE:1000",
            "b.ts"
        )
        let playlist = try parseMedia(text)
        #expect(playlist.segments[1].byteRange?.offset == nil)
        #expect(playlist.segments[1].byteRange?.length == 1000)
        let findings = PlaylistLinter().lint(playlist).rule("byterange-offset")
        #expect(findings.count == 1)
        #expect(findings.first?.severity == .error)
        #expect(findings.first?.line == 8)
        #expect(findings.first?.message.contains("a.ts") == true)
        // Written back unchanged: the parser does not guess.
        #expect(try roundTrip(text) == text)
    }

    @Test("an omitted offset after a whole-resource segment is a lint error")
    func implicitOffsetAfterWholeResource() throws {
        let playlist = try parseMedia(
            canonical(
                "#EXTM3U",
                "#EXT-X-VERSION:4",
                "#EXT-X-TARGETDURATION:10",
                "#EXTINF:10,",
                "media.ts",
                "#EXTINF:10,",
                "#EXT-X-BYTERANGE:1000",
                "media.ts"
            )
        )
        #expect(playlist.segments[1].byteRange?.offset == nil)
        let findings = PlaylistLinter().lint(playlist).rule("byterange-offset")
        #expect(findings.map(\.line) == [7])
        #expect(findings.map(\.severity) == [.error])
    }

    @Test("an omitted offset with no prior range is a lint error")
    func implicitOffsetWithoutPriorRange() throws {
        let playlist = try parseMedia(
            canonical("#EXTM3U", "#EXT-X-VERSION:4", "#EXT-X-TARGETDURATION:10", "#EXTINF:10,", "#EXT-X-BYTERANGE:1000", "media.ts")
        )
        #expect(playlist.segments[0].byteRange?.offset == nil)
        #expect(playlist.segments[0].byteRange?.isOffsetExplicit == false)
        let findings = PlaylistLinter().lint(playlist).rule("byterange-offset")
        #expect(findings.map(\.line) == [5])
        #expect(findings.map(\.severity) == [.error])
    }

    @Test("@0 is an explicit offset, not the same as an omitted one")
    func explicitZeroVersusOmitted() throws {
        let playlist = try parseMedia(
            canonical(
                "#EXTM3U",
                "#EXT-X-VERSION:4",
                "#EXT-X-TARGETDURATION:10",
                "#EXTINF:10,",
                "#EXT-X-BYTERANGE:1000@0",
                "media.ts",
                "#EXTINF:10,",
                "#EXT-X-BYTERANGE:1000@0",
                "media.ts",
                "#EXTINF:10,",
                "#EXT-X-BYTERANGE:1000",
                "media.ts"
            )
        )
        let ranges = playlist.segments.compactMap(\.byteRange)
        #expect(ranges.map(\.offset) == [0, 0, 1000])
        #expect(ranges.map(\.isOffsetExplicit) == [true, true, false])
        #expect(ByteRange("1000@0") == ByteRange(length: 1000, offset: 0))
        #expect(ByteRange("1000") == ByteRange(length: 1000, offset: nil))
        #expect(ByteRange("1000@0")?.description == "1000@0")
        #expect(ByteRange("1000")?.description == "1000")
        for bad in ["", "@0", "1000@", "-5", "10@-1", "1e3", "1000@0@1", " 1000"] {
            #expect(ByteRange(bad) == nil, "\(bad) is not a byte range")
        }
    }

    @Test("a malformed EXT-X-BYTERANGE is a parse error on its line")
    func malformedByteRangeIsAnError() throws {
        let error = try #require(
            parseError(canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXTINF:10,", "#EXT-X-BYTERANGE:1000@x", "a.ts"))
        )
        #expect(error.code == .malformedTag)
        #expect(error.line == 4)
    }

    @Test("the explicitByteRangeOffsets writer option writes every resolved offset as LENGTH@OFFSET")
    func writerWritesExplicitOffsets() throws {
        let original = try Fixture.text("mediaconvert-fmp4-byterange.m3u8")
        let playlist = try #require(try Fixture.parse("mediaconvert-fmp4-byterange.m3u8").media)
        let written = PlaylistWriter(options: .init(explicitByteRangeOffsets: true)).write(playlist)
        let expected =
            original
            .replacingOccurrences(of: "#EXT-X-BYTERANGE:3352871\n", with: "#EXT-X-BYTERANGE:3352871@3463210\n")
            .replacingOccurrences(of: "#EXT-X-BYTERANGE:3398122\n", with: "#EXT-X-BYTERANGE:3398122@6816081\n")
            .replacingOccurrences(of: "#EXT-X-BYTERANGE:1200456\n", with: "#EXT-X-BYTERANGE:1200456@10214203\n")
        #expect(written == expected)
        // The written playlist means the same, with every offset explicit.
        let reparsed = try parseMedia(written)
        #expect(reparsed.segments.map(\.byteRange?.offset) == playlist.segments.map(\.byteRange?.offset))
        #expect(reparsed.segments.allSatisfy { $0.byteRange?.isOffsetExplicit == true })
        // Without the option, nothing changes.
        #expect(PlaylistWriter().write(playlist) == original)
    }

    @Test("the explicitByteRangeOffsets option leaves an unresolvable offset as written")
    func writerLeavesUnresolvableOffsets() throws {
        let text = canonical(
            "#EXTM3U",
            "#EXT-X-VERSION:4",
            "#EXT-X-TARGETDURATION:10",
            "#EXTINF:10,",
            "#EXT-X-BYTERANGE:1000",
            "a.ts",
            "#EXTINF:10,",
            "#EXT-X-BYTERANGE:500",
            "a.ts"
        )
        let playlist = try parseMedia(text)
        #expect(PlaylistWriter(options: .init(explicitByteRangeOffsets: true)).write(playlist) == text)
    }

    @Test("EXT-X-MAP BYTERANGE without an offset is a lint error; with one it is not")
    func mapByteRangeNeedsAnOffset() throws {
        func findings(_ byteRange: String) throws -> [Diagnostic] {
            try lint(
                canonical(
                    "#EXTM3U",
                    "#EXT-X-VERSION:6",
                    "#EXT-X-TARGETDURATION:6",
                    "#EXT-X-MAP:URI=\"main.mp4\",BYTERANGE=\"\(byteRange)\"",
                    "#EXTINF:6,",
                    "#EXT-X-BYTERANGE:5000@720",
                    "main.mp4",
                    "#EXT-X-ENDLIST"
                )
            ).rule("map-byterange")
        }
        let withoutOffset = try findings("720")
        #expect(withoutOffset.map(\.line) == [4])
        #expect(withoutOffset.map(\.severity) == [.error])
        #expect(try findings("720@0").isEmpty)
        #expect(try findings("not-a-range").map(\.severity) == [.error])
    }

    @Test("EXT-X-BITRATE applies to segments without a byte range and skips the ones with one")
    func bitrateSkipsByteRangeSegments() throws {
        let playlist = try parseMedia(
            canonical(
                "#EXTM3U",
                "#EXT-X-VERSION:4",
                "#EXT-X-TARGETDURATION:10",
                "#EXT-X-BITRATE:2400",
                "#EXTINF:10,",
                "a.ts",
                "#EXTINF:10,",
                "#EXT-X-BYTERANGE:1000@0",
                "b.ts",
                "#EXTINF:10,",
                "c.ts"
            )
        )
        #expect(playlist.segments.map(\.bitrate) == [2400, nil, 2400])
    }
}

import Foundation
import HLSPlaylist
import Testing

/// Each lint rule fires on a playlist that breaks it and stays quiet on one that does not.
@Suite("Linter")
struct LintTests {
    /// The findings of `rule` for a playlist made of `lines`.
    func findings(_ rule: String, _ lines: String...) throws -> [Diagnostic] {
        try lint(lines.joined(separator: "\n") + "\n").rule(rule)
    }

    // MARK: - Clean fixtures

    @Test("a clean real-world fixture lints without errors or warnings", arguments: Fixture.names)
    func cleanFixtureLintsClean(name: String) throws {
        let diagnostics = PlaylistLinter().lint(try Fixture.parse(name))
        #expect(diagnostics.errors.isEmpty, "\(diagnostics)")
        #expect(diagnostics.warnings.isEmpty, "\(diagnostics)")
    }

    @Test("findings are sorted by line, whole-playlist findings first")
    func findingsAreSortedByLine() throws {
        let diagnostics = try lint(
            canonical(
                "#EXTM3U",
                "#EXT-X-VERSION:2",
                "#EXTINF:10.5,",
                "a.m4s",
                "#EXT-X-VERSION:3",
                "#EXT-X-KEY:METHOD=NONE,URI=\"k\"",
                "#EXTINF:1,",
                "b.ts"
            )
        )
        let lines = diagnostics.map { $0.line ?? 0 }
        #expect(lines == lines.sorted())
        #expect(diagnostics.first?.line == nil)  // the missing target duration
        #expect(Set(diagnostics.map(\.rule)).isSuperset(of: ["target-duration", "version", "fmp4-map", "duplicate-tag", "key-none-attributes"]))
    }

    // MARK: - Target duration (§4.4.3.1)

    @Test("an EXTINF that rounds above TARGETDURATION is an error: 10.5 fails with TD 10")
    func extinfAboveTargetDuration() throws {
        let found = try self.findings("target-duration", "#EXTM3U", "#EXT-X-VERSION:6", "#EXT-X-TARGETDURATION:10", "#EXTINF:10.5,", "a.ts")
        #expect(found.map(\.severity) == [.error])
        #expect(found.map(\.line) == [4])
    }

    @Test("an EXTINF that rounds to TARGETDURATION passes: 10.4 with TD 10")
    func extinfRoundingToTargetDurationPasses() throws {
        let found = try self.findings(
            "target-duration",
            "#EXTM3U",
            "#EXT-X-VERSION:6",
            "#EXT-X-TARGETDURATION:10",
            "#EXTINF:10.4,",
            "a.ts",
            "#EXTINF:10.499999,",
            "b.ts"
        )
        #expect(found.isEmpty)
    }

    @Test("before version 6 an EXTINF above the unrounded TARGETDURATION is only a warning")
    func extinfAboveTargetDurationBeforeVersion6() throws {
        let found = try self.findings("target-duration", "#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:10", "#EXTINF:10.4,", "a.ts")
        #expect(found.map(\.severity) == [.warning])
    }

    @Test("a media playlist without TARGETDURATION is an error; with one it is not")
    func missingTargetDuration() throws {
        let missing = try self.findings("target-duration", "#EXTM3U", "#EXTINF:10,", "a.ts")
        #expect(missing.map(\.severity) == [.error])
        #expect(missing.map(\.line) == [nil])
        #expect(try self.findings("target-duration", "#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXTINF:10,", "a.ts").isEmpty)
    }

    // MARK: - Protocol version (§8)

    static let versionCases: [(feature: [String], required: Int)] = [
        (["#EXT-X-TARGETDURATION:10", "#EXTINF:9.5,", "a.ts"], 3),
        (["#EXT-X-TARGETDURATION:10", "#EXTINF:10,", "#EXT-X-BYTERANGE:1000@0", "a.ts"], 4),
        (["#EXT-X-TARGETDURATION:10", "#EXT-X-KEY:METHOD=AES-128,URI=\"k\",KEYFORMAT=\"identity\"", "#EXTINF:10,", "a.ts"], 5),
        (["#EXT-X-TARGETDURATION:10", "#EXT-X-MAP:URI=\"init.mp4\"", "#EXTINF:10,", "a.m4s"], 6),
        (["#EXT-X-TARGETDURATION:10", "#EXT-X-DEFINE:NAME=\"p\",VALUE=\"seg\"", "#EXTINF:10,", "{$p}.ts"], 8),
    ]

    @Test("EXT-X-VERSION below what a feature needs is an error", arguments: Self.versionCases)
    func versionTooLow(feature: [String], required: Int) throws {
        let lines = ["#EXTM3U", "#EXT-X-VERSION:\(required - 1)"] + feature
        let found = try lint(lines.joined(separator: "\n")).rule("version")
        #expect(found.map(\.severity) == [.error])
        #expect(found.first?.line == 2)
        #expect(found.first?.message.contains("version \(required)") == true)
    }

    @Test("EXT-X-VERSION equal to what a feature needs passes", arguments: Self.versionCases)
    func versionHighEnough(feature: [String], required: Int) throws {
        let lines = ["#EXTM3U", "#EXT-X-VERSION:\(required)"] + feature
        #expect(try lint(lines.joined(separator: "\n")).rule("version").isEmpty)
    }

    @Test("with no EXT-X-VERSION (version 1) the finding points at the feature's line")
    func missingVersionPointsAtFeature() throws {
        let found = try self.findings("version", "#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXTINF:10,", "#EXT-X-BYTERANGE:1000@0", "a.ts")
        #expect(found.map(\.line) == [4])
    }

    @Test("EXT-X-MAP in an I-frame-only playlist needs only version 5")
    func mapInIFramePlaylistNeedsVersion5() throws {
        let lines = ["#EXTM3U", "#EXT-X-VERSION:5", "#EXT-X-TARGETDURATION:10", "#EXT-X-I-FRAMES-ONLY", "#EXT-X-MAP:URI=\"init.mp4\""]
        #expect(try self.findings("version", lines + ["#EXTINF:1,", "#EXT-X-BYTERANGE:100@0", "a.m4s"]).isEmpty)
    }

    func findings(_ rule: String, _ lines: [String]) throws -> [Diagnostic] {
        try lint(lines.joined(separator: "\n") + "\n").rule(rule)
    }

    @Test("a second EXT-X-VERSION is an error on its line; one is fine")
    func duplicateVersion() throws {
        let found = try self.findings(
            "duplicate-tag",
            "#EXTM3U",
            "#EXT-X-VERSION:3",
            "#EXT-X-TARGETDURATION:10",
            "#EXT-X-VERSION:3",
            "#EXTINF:10,",
            "a.ts"
        )
        #expect(found.map(\.severity) == [.error])
        #expect(found.map(\.line) == [4])
        #expect(try self.findings("duplicate-tag", "#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:10", "#EXTINF:10,", "a.ts").isEmpty)
    }

    // MARK: - Variants (§4.4.6.2–3)

    @Test("STREAM-INF without BANDWIDTH is an error")
    func streamInfWithoutBandwidth() throws {
        let found = try self.findings("missing-attribute", "#EXTM3U", "#EXT-X-STREAM-INF:CODECS=\"mp4a.40.2\"", "a.m3u8")
        #expect(found.map(\.severity) == [.error])
        #expect(found.map(\.line) == [2])
        #expect(try self.findings("missing-attribute", "#EXTM3U", "#EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS=\"mp4a.40.2\"", "a.m3u8").isEmpty)
    }

    @Test("STREAM-INF without CODECS is a warning")
    func streamInfWithoutCodecs() throws {
        let found = try self.findings("codecs", "#EXTM3U", "#EXT-X-STREAM-INF:BANDWIDTH=64000,RESOLUTION=640x360", "a.m3u8")
        #expect(found.map(\.severity) == [.warning])
        #expect(try self.findings("codecs", "#EXTM3U", "#EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS=\"mp4a.40.2\"", "a.m3u8").isEmpty)
    }

    @Test("a video STREAM-INF without RESOLUTION is a warning; an audio-only one is fine")
    func videoWithoutResolution() throws {
        let found = try self.findings("resolution", "#EXTM3U", "#EXT-X-STREAM-INF:BANDWIDTH=900000,CODECS=\"avc1.4d401f,mp4a.40.2\"", "a.m3u8")
        #expect(found.map(\.severity) == [.warning])
        #expect(found.map(\.line) == [2])
        #expect(try self.findings("resolution", "#EXTM3U", "#EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS=\"mp4a.40.2\"", "a.m3u8").isEmpty)
        #expect(
            try self.findings(
                "resolution",
                "#EXTM3U",
                "#EXT-X-STREAM-INF:BANDWIDTH=900000,CODECS=\"avc1.4d401f,mp4a.40.2\",RESOLUTION=640x360",
                "a.m3u8"
            ).isEmpty
        )
    }

    @Test("an I-frame variant with more BANDWIDTH than the regular variant of its RESOLUTION is a warning")
    func iFrameBandwidthAboveRegular() throws {
        let lines = [
            "#EXTM3U", "#EXT-X-STREAM-INF:BANDWIDTH=2000000,CODECS=\"avc1.640020,mp4a.40.2\",RESOLUTION=1280x720", "720p.m3u8",
        ]
        let above = try self.findings(
            "iframe-bandwidth",
            lines + ["#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=2500000,CODECS=\"avc1.640020\",RESOLUTION=1280x720,URI=\"i.m3u8\""]
        )
        #expect(above.map(\.severity) == [.warning])
        #expect(above.map(\.line) == [4])
        let below = try self.findings(
            "iframe-bandwidth",
            lines + ["#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=250000,CODECS=\"avc1.640020\",RESOLUTION=1280x720,URI=\"i.m3u8\""]
        )
        #expect(below.isEmpty)
        // Another picture size is not compared.
        let otherSize = try self.findings(
            "iframe-bandwidth",
            lines + ["#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=2500000,CODECS=\"avc1.640020\",RESOLUTION=1920x1080,URI=\"i.m3u8\""]
        )
        #expect(otherSize.isEmpty)
    }

    @Test("AUDIO, SUBTITLES and CLOSED-CAPTIONS must name EXT-X-MEDIA groups that exist")
    func groupReferences() throws {
        let missing = try self.findings(
            "group-reference",
            "#EXTM3U",
            "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aud\",NAME=\"English\",URI=\"en.m3u8\"",
            "#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"mp4a.40.2\",AUDIO=\"audio\",SUBTITLES=\"subs\",CLOSED-CAPTIONS=\"cc\"",
            "a.m3u8"
        )
        #expect(missing.map(\.severity) == [.error, .error, .error])
        #expect(missing.allSatisfy { $0.line == 3 })
        // A group of the wrong TYPE does not count.
        let wrongType = try self.findings(
            "group-reference",
            "#EXTM3U",
            "#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"aud\",NAME=\"English\",URI=\"en.m3u8\"",
            "#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"mp4a.40.2\",AUDIO=\"aud\"",
            "a.m3u8"
        )
        #expect(wrongType.count == 1)
        let present = try self.findings(
            "group-reference",
            "#EXTM3U",
            "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aud\",NAME=\"English\",URI=\"en.m3u8\"",
            "#EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID=\"cc\",NAME=\"English\",INSTREAM-ID=\"CC1\"",
            "#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"mp4a.40.2\",AUDIO=\"aud\",CLOSED-CAPTIONS=\"cc\"",
            "a.m3u8"
        )
        #expect(present.isEmpty)
    }

    // MARK: - Segments

    @Test("fMP4 segments (.m4s, .mp4) with no EXT-X-MAP are an error")
    func fmp4WithoutMap() throws {
        let found = try self.findings(
            "fmp4-map",
            "#EXTM3U",
            "#EXT-X-VERSION:6",
            "#EXT-X-TARGETDURATION:6",
            "#EXTINF:6,",
            "a.m4s",
            "#EXTINF:6,",
            "b.mp4?t=1",
            "#EXTINF:6,",
            "c.ts",
            "#EXTINF:6,",
            "D.CMFV",
            "#EXTINF:6,",
            "x.mp4.ts",
            "#EXTINF:6,",
            "dir.m4s/seg.ts",
            "#EXTINF:6,",
            "seg.m4a?next=a.ts",
            "#EXTINF:6,",
            "seg.ts?next=a.m4s",
            "#EXTINF:6,",
            ".m4s",
            "#EXTINF:6,",
            "a.m4ss",
            "#EXTINF:6,",
            "m4s",
            "#EXTINF:6,",
            "a.cmfvv?x=.mp4"
        )
        // By the path's extension, in any case; a query's text does not count, nor an ending
        // one byte longer than an fMP4 one, nor one without its dot.
        #expect(found.map(\.severity) == [.error, .error, .error, .error, .error])
        #expect(found.map(\.line) == [5, 7, 11, 17, 21])
        let withMap = try self.findings(
            "fmp4-map",
            "#EXTM3U",
            "#EXT-X-VERSION:6",
            "#EXT-X-TARGETDURATION:6",
            "#EXT-X-MAP:URI=\"init.mp4\"",
            "#EXTINF:6,",
            "a.m4s"
        )
        #expect(withMap.isEmpty)
    }

    @Test("an fMP4 segment after a DISCONTINUITY without a re-emitted EXT-X-MAP is a warning")
    func fmp4MapAfterDiscontinuity() throws {
        let head = ["#EXTM3U", "#EXT-X-VERSION:6", "#EXT-X-TARGETDURATION:6", "#EXT-X-MAP:URI=\"content-init.mp4\"", "#EXTINF:6,", "a.m4s"]
        let kept = try self.findings("fmp4-map-after-discontinuity", head + ["#EXT-X-DISCONTINUITY", "#EXTINF:6,", "ad.m4s"])
        #expect(kept.map(\.severity) == [.warning])
        #expect(kept.map(\.line) == [9])
        let reemitted = try self.findings(
            "fmp4-map-after-discontinuity",
            head + ["#EXT-X-DISCONTINUITY", "#EXT-X-MAP:URI=\"ad-init.mp4\"", "#EXTINF:6,", "ad.m4s"]
        )
        #expect(reemitted.isEmpty)
    }

    @Test("KEY METHOD=NONE with a URI is an error; bare METHOD=NONE is fine")
    func keyNoneWithAttributes() throws {
        let found = try self.findings(
            "key-none-attributes",
            "#EXTM3U",
            "#EXT-X-TARGETDURATION:10",
            "#EXT-X-KEY:METHOD=NONE,URI=\"key.bin\"",
            "#EXTINF:10,",
            "a.ts"
        )
        #expect(found.map(\.severity) == [.error])
        #expect(found.map(\.line) == [3])
        let bare = try self.findings("key-none-attributes", "#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXT-X-KEY:METHOD=NONE", "#EXTINF:10,", "a.ts")
        #expect(bare.isEmpty)
    }

    // MARK: - Date ranges (§4.4.5.1)

    static let dateRangeHead = ["#EXTM3U", "#EXT-X-TARGETDURATION:10"]

    @Test("a DATERANGE without any PROGRAM-DATE-TIME is an error; with one it is not")
    func dateRangeWithoutProgramDateTime() throws {
        let dateRange = "#EXT-X-DATERANGE:ID=\"ad\",START-DATE=\"2026-11-23T06:00:00.000Z\",DURATION=30"
        let found = try self.findings("daterange-without-program-date-time", Self.dateRangeHead + [dateRange, "#EXTINF:10,", "a.ts"])
        #expect(found.map(\.severity) == [.error])
        #expect(found.map(\.line) == [3])
        let withDate = try self.findings(
            "daterange-without-program-date-time",
            Self.dateRangeHead + ["#EXT-X-PROGRAM-DATE-TIME:2026-11-23T06:00:00.000Z", dateRange, "#EXTINF:10,", "a.ts"]
        )
        #expect(withDate.isEmpty)
    }

    @Test("two DATERANGEs with one ID that disagree on an attribute are an error; adding attributes is fine")
    func conflictingDateRanges() throws {
        let head =
            Self.dateRangeHead + [
                "#EXT-X-PROGRAM-DATE-TIME:2026-11-23T06:00:00.000Z",
                "#EXT-X-DATERANGE:ID=\"ad\",START-DATE=\"2026-11-23T06:00:00.000Z\",PLANNED-DURATION=30",
                "#EXTINF:10,", "a.ts",
            ]
        let conflict = try self.findings(
            "daterange-conflict",
            head + ["#EXT-X-DATERANGE:ID=\"ad\",START-DATE=\"2026-11-23T06:00:05.000Z\",DURATION=30"]
        )
        #expect(conflict.map(\.severity) == [.error])
        #expect(conflict.map(\.line) == [7])
        let consistent = try self.findings(
            "daterange-conflict",
            head + ["#EXT-X-DATERANGE:ID=\"ad\",START-DATE=\"2026-11-23T06:00:00.000Z\",DURATION=30"]
        )
        #expect(consistent.isEmpty)
    }

    @Test("END-ON-NEXT needs a CLASS and forbids DURATION")
    func endOnNextRules() throws {
        let head = Self.dateRangeHead + ["#EXT-X-PROGRAM-DATE-TIME:2026-11-23T06:00:00.000Z"]
        let start = "START-DATE=\"2026-11-23T06:00:00.000Z\""
        let withoutClass = try self.findings(
            "daterange-end-on-next",
            head + ["#EXT-X-DATERANGE:ID=\"a\",\(start),END-ON-NEXT=YES", "#EXTINF:10,", "a.ts"]
        )
        #expect(withoutClass.map(\.severity) == [.error])
        #expect(withoutClass.map(\.line) == [4])
        let withDuration = try self.findings(
            "daterange-end-on-next",
            head + ["#EXT-X-DATERANGE:ID=\"a\",CLASS=\"ad\",\(start),DURATION=10,END-ON-NEXT=YES", "#EXTINF:10,", "a.ts"]
        )
        #expect(withDuration.map(\.severity) == [.error])
        let valid = try self.findings(
            "daterange-end-on-next",
            head + ["#EXT-X-DATERANGE:ID=\"a\",CLASS=\"ad\",\(start),END-ON-NEXT=YES", "#EXTINF:10,", "a.ts"]
        )
        #expect(valid.isEmpty)
    }

    @Test("an END-DATE that disagrees with START-DATE plus DURATION is an error")
    func dateRangeDurationMismatch() throws {
        let head = Self.dateRangeHead + ["#EXT-X-PROGRAM-DATE-TIME:2026-11-23T06:00:00.000Z"]
        let start = "START-DATE=\"2026-11-23T07:00:00.000+01:00\""
        let mismatch = try self.findings(
            "daterange-duration",
            head + ["#EXT-X-DATERANGE:ID=\"a\",\(start),END-DATE=\"2026-11-23T06:00:31.000Z\",DURATION=30", "#EXTINF:10,", "a.ts"]
        )
        #expect(mismatch.map(\.severity) == [.error])
        let match = try self.findings(
            "daterange-duration",
            head + ["#EXT-X-DATERANGE:ID=\"a\",\(start),END-DATE=\"2026-11-23T06:00:30.000Z\",DURATION=30", "#EXTINF:10,", "a.ts"]
        )
        #expect(match.isEmpty)
    }

    @Test("an interstitial needs exactly one of X-ASSET-URI and X-ASSET-LIST")
    func interstitialAsset() throws {
        let head = Self.dateRangeHead + ["#EXT-X-PROGRAM-DATE-TIME:2026-11-23T06:00:00.000Z"]
        let tag = "#EXT-X-DATERANGE:ID=\"i\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2026-11-23T06:00:00.000Z\""
        let neither = try self.findings("interstitial-asset", head + [tag, "#EXTINF:10,", "a.ts"])
        #expect(neither.map(\.severity) == [.error])
        let both = try self.findings(
            "interstitial-asset",
            head + [tag + ",X-ASSET-URI=\"https://a/x.m3u8\",X-ASSET-LIST=\"https://a/l.json\"", "#EXTINF:10,", "a.ts"]
        )
        #expect(both.map(\.severity) == [.error])
        let one = try self.findings("interstitial-asset", head + [tag + ",X-ASSET-URI=\"https://a/x.m3u8\"", "#EXTINF:10,", "a.ts"])
        #expect(one.isEmpty)
    }

    // MARK: - Low latency (§4.4.3.7–8)

    @Test("EXT-X-PART without EXT-X-PART-INF is an error, and PART-INF needs PART-HOLD-BACK")
    func lowLatencyRequirements() throws {
        let parts = ["#EXT-X-PART:DURATION=0.5,URI=\"p0.mp4\"", "#EXTINF:1,", "s0.ts"]
        let withoutPartInf = try self.findings("part-inf", ["#EXTM3U", "#EXT-X-TARGETDURATION:1"] + parts)
        #expect(withoutPartInf.map(\.severity) == [.error])
        let withoutHoldBack = try self.findings("part-hold-back", ["#EXTM3U", "#EXT-X-TARGETDURATION:1", "#EXT-X-PART-INF:PART-TARGET=0.5"] + parts)
        #expect(withoutHoldBack.map(\.severity) == [.error])
        let complete = try lint(
            canonical(
                "#EXTM3U",
                "#EXT-X-TARGETDURATION:1",
                "#EXT-X-SERVER-CONTROL:PART-HOLD-BACK=1.5",
                "#EXT-X-PART-INF:PART-TARGET=0.5",
                "#EXT-X-PART:DURATION=0.5,URI=\"p0.ts\"",
                "#EXTINF:1,",
                "s0.ts"
            )
        )
        #expect(complete.errors.isEmpty, "\(complete)")
    }
}

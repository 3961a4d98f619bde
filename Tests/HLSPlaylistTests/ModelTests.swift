import Foundation
import HLSPlaylist
import Testing

/// What the typed model says about a playlist: values, segments and what is in force for each.
@Suite("Typed model")
struct ModelTests {
    // MARK: - Attribute values

    @Test("RESOLUTION parses WIDTHxHEIGHT and nothing else")
    func resolutionParsing() throws {
        let resolution = try #require(Resolution("1920x1080"))
        #expect(resolution.width == 1920)
        #expect(resolution.height == 1080)
        #expect(resolution.description == "1920x1080")
        for bad in ["1920X1080", "1920x", "x1080", "1920", "+1920x1080", "1920x-1080", "1920x1080x2", "19 20x1080", ""] {
            #expect(Resolution(bad) == nil, "\(bad) is not a decimal-resolution")
        }
        let playlist = try parseMultivariant(canonical("#EXTM3U", "#EXT-X-STREAM-INF:BANDWIDTH=1,RESOLUTION=416x234", "v.m3u8"))
        #expect(playlist.variants[0].streamInf.resolution == Resolution(width: 416, height: 234))
    }

    @Test(
        "segment boundaries: each start exactly, then the end; the longest duration rounded to the nearest second (0.5 up); none for an empty playlist"
    )
    func segmentBoundaries() throws {
        let playlist = try parseMedia(
            canonical("#EXTM3U", "#EXT-X-TARGETDURATION:7", "#EXTINF:6.006,", "a.ts", "#EXTINF:6.5,", "b.ts", "#EXTINF:0.1,", "c.ts")
        )
        let decimal = { (text: String) in try #require(ExactDecimal(text)) }
        #expect(try playlist.segmentBoundaries == [.zero, decimal("6.006"), decimal("12.506"), decimal("12.606")])
        #expect(playlist.segmentBoundaries.dropLast().elementsEqual(playlist.segmentStartTimes))
        #expect(playlist.longestRoundedSegmentDuration == 7)
        let empty = try parseMedia(canonical("#EXTM3U", "#EXT-X-TARGETDURATION:6", "#EXT-X-ENDLIST"))
        #expect(empty.segmentBoundaries == [.zero] && empty.longestRoundedSegmentDuration == 0)
    }

    @Test("a negative START TIME-OFFSET counts from the end, exactly")
    func negativeStartTimeOffset() throws {
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-START:TIME-OFFSET=-12.5,PRECISE=YES
            #EXTINF:6,
            a.ts
            """
        )
        let start = try #require(playlist.start)
        #expect(start.timeOffset == -ExactDecimal(significand: 125, exponent: 1))
        #expect(start.isPrecise)
        let unprecise = try parseMultivariant(canonical("#EXTM3U", "#EXT-X-START:TIME-OFFSET=25", "#EXT-X-STREAM-INF:BANDWIDTH=1", "v.m3u8"))
        #expect(unprecise.start?.timeOffset == ExactDecimal(25))
        #expect(unprecise.start?.isPrecise == false)
    }

    // MARK: - EXTINF

    @Test("an EXTINF title keeps its commas: everything after the first comma is the title")
    func extinfTitleWithCommas() throws {
        let text = canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXTINF:9.5,Artist, The - Song, live,", "a.ts")
        let playlist = try parseMedia(text)
        #expect(playlist.segments[0].title == "Artist, The - Song, live,")
        #expect(playlist.segments[0].duration == ExactDecimal(significand: 95, exponent: 1))
        #expect(try roundTrip(text) == text)
    }

    @Test("an EXTINF without a comma has no title; one with a bare comma has an empty title")
    func extinfWithoutCommaVersusEmptyTitle() throws {
        let text = canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXTINF:10", "a.ts", "#EXTINF:10,", "b.ts")
        let playlist = try parseMedia(text)
        #expect(playlist.segments[0].title == nil)
        #expect(playlist.segments[1].title == "")
        // Both are written back as they were.
        #expect(try roundTrip(text) == text)
        #expect(Tag.inf(Inf(duration: 10, durationText: "10", title: nil)).serialized == "#EXTINF:10")
        #expect(Tag.inf(Inf(duration: 10, durationText: "10", title: "")).serialized == "#EXTINF:10,")
    }

    @Test("durations 0.000011 and 10.010010 are kept exactly, as text and as value")
    func durationsAreExact() throws {
        let text = canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXTINF:0.000011,", "a.ts", "#EXTINF:10.010010,", "b.ts")
        let playlist = try parseMedia(text)
        let (a, b) = (playlist.segments[0], playlist.segments[1])
        #expect(a.durationText == "0.000011")
        #expect(a.duration == ExactDecimal(significand: 11, exponent: 6))
        #expect(a.duration.scaledValue == 11_000_000_000_000)
        #expect(b.durationText == "10.010010")
        #expect(b.duration == ExactDecimal(significand: 1_001_001, exponent: 5))
        #expect(b.duration.description == "10.01001")
        #expect(b.startTime == a.duration)
        #expect(playlist.duration == ExactDecimal(significand: 10_010_021, exponent: 6))
        #expect(try roundTrip(text) == text)
    }

    @Test("a new EXTINF is written with the shortest exact text and at least three decimals")
    func newInfFormatting() {
        #expect(Inf(duration: ExactDecimal(significand: 6006, exponent: 3)).durationText == "6.006")
        #expect(Inf(duration: ExactDecimal(6)).durationText == "6.000")
        #expect(Inf(duration: ExactDecimal(significand: 10_010_010, exponent: 6)).durationText == "10.01001")
        #expect(Tag.inf(Inf(duration: ExactDecimal(significand: 45, exponent: 1), title: "Ad")).serialized == "#EXTINF:4.500,Ad")
    }

    @Test("segment start times are exact sums of the durations before them")
    func startTimesAreExactSums() throws {
        let playlist = try #require(try Fixture.parse("ffmpeg-ts-vod.m3u8").media)
        #expect(playlist.segments.count == 6)
        #expect(playlist.segments[3].startTime == ExactDecimal(significand: 30_030_000, exponent: 6))
        #expect(playlist.segments[5].startTime == ExactDecimal(significand: 50_016_633, exponent: 6))
        #expect(playlist.duration == ExactDecimal(significand: 54_354_300, exponent: 6))
        #expect(playlist.duration == playlist.segments.map(\.duration).sum())
        #expect(playlist.playlistType == .vod)
        #expect(playlist.hasEndList)
        #expect(playlist.targetDuration == 11)
        #expect(playlist.version == 3)
    }

    // MARK: - Sequence numbers

    @Test("absent MEDIA-SEQUENCE and DISCONTINUITY-SEQUENCE are 0")
    func absentSequenceTagsAreZero() throws {
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:10
            #EXTINF:10,
            a.ts
            #EXT-X-DISCONTINUITY
            #EXTINF:10,
            b.ts
            """
        )
        #expect(playlist.mediaSequence == 0)
        #expect(playlist.discontinuitySequence == 0)
        #expect(playlist.segments.map(\.mediaSequenceNumber) == [0, 1])
        #expect(playlist.segments.map(\.discontinuitySequenceNumber) == [0, 1])
        #expect(playlist.segments.map(\.isDiscontinuity) == [false, true])
    }

    @Test("MEDIA-SEQUENCE and DISCONTINUITY-SEQUENCE after a KEY tag still number every segment")
    func sequenceTagsAfterKey() throws {
        let text = """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:10
            #EXT-X-KEY:METHOD=AES-128,URI="key.bin"
            #EXT-X-MEDIA-SEQUENCE:7
            #EXT-X-DISCONTINUITY-SEQUENCE:2
            #EXTINF:10,
            a.ts
            #EXTINF:10,
            b.ts
            """
        let playlist = try parseMedia(text)
        #expect(playlist.mediaSequence == 7)
        #expect(playlist.discontinuitySequence == 2)
        #expect(playlist.segments.map(\.mediaSequenceNumber) == [7, 8])
        #expect(playlist.segments.map(\.discontinuitySequenceNumber) == [2, 2])
        #expect(playlist.segments.allSatisfy { $0.keys.map(\.uri) == ["key.bin"] })
        #expect(try lint(text).rule("sequence-placement").isEmpty)
    }

    /// RFC 8216bis §6.2.2: EXT-X-DISCONTINUITY-SEQUENCE grows as each discontinuity tag leaves
    /// the window, so a tag still on the first segment counts for that segment (a sliding window
    /// keeps every segment's number: scripts/live-origin.py and LiveOriginTests rely on it).
    @Test("a discontinuity on the first segment counts for it: DISCONTINUITY-SEQUENCE holds the tags that left")
    func discontinuityOnTheFirstSegment() throws {
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:2
            #EXT-X-MEDIA-SEQUENCE:16
            #EXT-X-DISCONTINUITY-SEQUENCE:0
            #EXT-X-DISCONTINUITY
            #EXTINF:2,
            a.ts
            #EXTINF:2,
            b.ts
            """
        )
        #expect(playlist.segments.map(\.discontinuitySequenceNumber) == [1, 1])
        #expect(playlist.segments.map(\.mediaSequenceNumber) == [16, 17])
    }

    @Test("segments carry their media and discontinuity sequence numbers")
    func segmentSequenceNumbers() throws {
        let playlist = try #require(try Fixture.parse("adstitch-fmp4-ad-break.m3u8").media)
        #expect(playlist.segments.map(\.mediaSequenceNumber) == Array(1200...1205))
        #expect(playlist.segments.map(\.discontinuitySequenceNumber) == [40, 40, 41, 41, 42, 42])
        #expect(playlist.segments.map(\.isDiscontinuity) == [false, false, true, false, true, false])
        #expect(playlist.segments[2].title == "Acme Widgets - spot A")
    }

    // MARK: - Keys and maps in force

    @Test("a KEY stays in force across a discontinuity until the next KEY of its KEYFORMAT")
    func keyInheritanceAcrossDiscontinuities() throws {
        let playlist = try #require(try Fixture.parse("aes128-key-rotation.m3u8").media)
        let uris = playlist.segments.map { $0.keys.map { $0.uri ?? "" } }
        let first = "https://keys.example.com/v1/key?assetId=8f14e45f&rotation=446"
        let second = "https://keys.example.com/v1/key?assetId=8f14e45f&rotation=447"
        #expect(uris == [[first], [first], [second], [second], [second]])
        #expect(playlist.segments.map(\.discontinuitySequenceNumber) == [3, 3, 3, 4, 4])
        #expect(playlist.segments.map(\.mediaSequenceNumber) == [2680, 2681, 2682, 2683, 2684])
        #expect(playlist.segments[0].keys[0].method == .aes128)
        #expect(playlist.segments[0].keys[0].iv == "0x00000000000000000000000000000A78")
        #expect(playlist.segments[0].keys[0].keyFormat == "identity")
    }

    @Test("METHOD=NONE clears every key in force, whatever its KEYFORMAT")
    func methodNoneClearsKeys() throws {
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-VERSION:5
            #EXT-X-TARGETDURATION:10
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://a",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1"
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="https://k/b"
            #EXTINF:10,
            a.ts
            #EXT-X-KEY:METHOD=NONE
            #EXTINF:10,
            b.ts
            #EXT-X-KEY:METHOD=AES-128,URI="https://k/c"
            #EXTINF:10,
            c.ts
            """
        )
        #expect(playlist.segments[0].keys.count == 2)
        #expect(playlist.segments[1].keys.isEmpty)
        #expect(playlist.segments[2].keys.map(\.uri) == ["https://k/c"])
    }

    @Test("several KEYFORMATs are in force at once, and a new key replaces only its own KEYFORMAT")
    func severalKeyFormatsInForce() throws {
        let playlist = try #require(try Fixture.parse("shaka-sample-aes-multi-keyformat.m3u8").media)
        let formats = ["com.apple.streamingkeydelivery", "urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed", "identity"]
        for segment in playlist.segments {
            #expect(segment.keys.map(\.keyFormat) == formats)
            #expect(segment.keys.allSatisfy { $0.method == .sampleAES })
        }
        let fairPlay = playlist.segments.map { $0.keys[0].uri ?? "" }
        #expect(fairPlay[2] == "skd://fps.example.com/asset/6f1ed002ab5595859014ebf0951522d9")
        #expect(fairPlay[3] == "skd://fps.example.com/asset/9b2e6c1d0f7a4e8b8c3d5a6f7e8d9c0b")
        #expect(playlist.segments[3].keys[1] == playlist.segments[0].keys[1])
        #expect(playlist.segments[3].keys[2] == playlist.segments[0].keys[2])
        #expect(playlist.segments[0].keys[0].keyFormatVersions == "1")
        #expect(playlist.segments[0].keys[2].keyFormatVersions == nil)
    }

    @Test("a MAP stays in force across a discontinuity until the next MAP")
    func mapInheritanceAcrossDiscontinuities() throws {
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-VERSION:6
            #EXT-X-TARGETDURATION:4
            #EXT-X-MAP:URI="init-a.mp4"
            #EXTINF:4,
            a0.m4s
            #EXT-X-DISCONTINUITY
            #EXTINF:4,
            a1.m4s
            #EXT-X-MAP:URI="init-b.mp4",BYTERANGE="720@0"
            #EXTINF:4,
            b0.m4s
            """
        )
        #expect(playlist.segments.map { $0.map?.uri } == ["init-a.mp4", "init-a.mp4", "init-b.mp4"])
        #expect(playlist.segments[2].map?.byteRange == ByteRange(length: 720, offset: 0))
        let stitched = try #require(try Fixture.parse("adstitch-fmp4-ad-break.m3u8").media)
        #expect(
            stitched.segments.map { $0.map?.uri } == [
                "content/720p/init.mp4", "content/720p/init.mp4", "https://ads.example.com/acme/720p/init.mp4",
                "https://ads.example.com/acme/720p/init.mp4", "content/720p/init.mp4", "content/720p/init.mp4",
            ]
        )
        #expect(stitched.segments.map(\.keys.count) == [1, 1, 0, 0, 1, 1])
    }

    @Test("a segment's line indices cover its tags and URI, and nothing of the next segment")
    func segmentLineIndices() throws {
        let playlist = try #require(try Fixture.parse("mediaconvert-fmp4-byterange.m3u8").media)
        #expect(playlist.segments[0].lineIndices == 0..<10)
        #expect(playlist.segments[1].lineIndices == 10..<13)
        let firstLine = playlist.lines[playlist.segments[1].lineIndices.lowerBound]
        #expect(firstLine.tag == .inf(Inf(duration: decimal("6.00600"), durationText: "6.00600", title: "")))
        #expect(playlist.segments[1].infLineNumber == 11)
        #expect(playlist.segments[1].uriLineNumber == 13)
    }

    // MARK: - Multivariant playlists

    @Test("comments and unknown tags may stand between STREAM-INF and its URI")
    func commentsBetweenStreamInfAndURI() throws {
        let text = canonical(
            "#EXTM3U",
            "#EXT-X-STREAM-INF:BANDWIDTH=1280000,CODECS=\"avc1.4d401f,mp4a.40.2\",RESOLUTION=854x480",
            "# 480p rung",
            "## encoder: x264 crf 23",
            "#EXT-X-VENDOR-HINT:tier=2",
            "480p.m3u8",
            "#EXT-X-STREAM-INF:BANDWIDTH=2560000,CODECS=\"avc1.4d401f,mp4a.40.2\",RESOLUTION=1280x720",
            "720p.m3u8"
        )
        let playlist = try parseMultivariant(text)
        #expect(playlist.variants.map(\.uri) == ["480p.m3u8", "720p.m3u8"])
        #expect(playlist.variants[0].line == 2)
        #expect(playlist.variants[0].uriLine == 6)
        #expect(playlist.variants[0].tagIndex == 1)
        #expect(playlist.variants[0].uriIndex == 5)
        #expect(try roundTrip(text) == text)
    }

    @Test("variants, I-frame variants, renditions, session data and session keys have typed values")
    func multivariantTypedValues() throws {
        let playlist = try #require(try Fixture.parse("apple-multivariant-audio-subs-cc.m3u8").multivariant)
        #expect(playlist.version == 6)
        #expect(playlist.hasIndependentSegments)

        #expect(playlist.variants.count == 4)
        let first = playlist.variants[0]
        #expect(first.uri == "video/360p/prog_index.m3u8")
        #expect(first.streamInf.bandwidth == 1_032_216)
        #expect(first.streamInf.averageBandwidth == 912_405)
        #expect(first.streamInf.codecs == ["avc1.64001f", "mp4a.40.2"])
        #expect(first.streamInf.resolution == Resolution(width: 640, height: 360))
        #expect(first.streamInf.frameRate == ExactDecimal(significand: 2997, exponent: 2))
        #expect(first.streamInf.audio == "aac-stereo")
        #expect(first.streamInf.subtitles == "subs")
        #expect(first.streamInf.closedCaptions == "cc")
        #expect(playlist.variants[3].streamInf.audio == "ec3-surround")
        #expect(playlist.variants[3].streamInf.codecs == ["avc1.640028", "ec-3"])

        #expect(
            playlist.iFrameVariants.map(\.value.uri) == [
                "video/360p/iframe_index.m3u8", "video/720p/iframe_index.m3u8", "video/1080p/iframe_index.m3u8",
            ]
        )
        #expect(playlist.iFrameVariants[2].value.bandwidth == 292_716)
        #expect(playlist.iFrameVariants[2].value.resolution == Resolution(width: 1920, height: 1080))

        let renditions = playlist.renditions.map(\.value)
        #expect(renditions.filter { $0.type == .audio }.count == 4)
        #expect(renditions.filter { $0.type == .subtitles }.count == 3)
        #expect(renditions.filter { $0.type == .closedCaptions }.count == 2)
        let spanish = renditions[1]
        #expect(spanish.groupID == "aac-stereo")
        #expect(spanish.language == "es")
        #expect(spanish.name == "Español")
        #expect(!spanish.isDefault)
        #expect(spanish.isAutoselect)
        #expect(spanish.channels == "2")
        #expect(spanish.uri == "audio/es/aac_128k.m3u8")
        #expect(renditions[0].isDefault)
        #expect(renditions.filter(\.isForced).map(\.name) == ["Español (forzados)"])
        #expect(renditions.compactMap(\.instreamID) == ["CC1", "CC3"])

        #expect(playlist.sessionData.count == 3)
        #expect(playlist.sessionData[0].value.dataID == "com.example.title")
        #expect(playlist.sessionData[0].value.value == "Big Buck Bunny, 4K remaster")
        #expect(playlist.sessionData[1].value.language == "es")
        #expect(playlist.sessionData[2].value.uri == "lyrics.json")
        #expect(playlist.sessionData[2].value.value == nil)

        #expect(playlist.sessionKeys.count == 1)
        #expect(playlist.sessionKeys[0].value.method == .sampleAES)
        #expect(playlist.sessionKeys[0].value.keyFormat == "com.apple.streamingkeydelivery")
        #expect(playlist.sessionKeys[0].line == 7)
    }

    @Test("HDR and SDR variants carry VIDEO-RANGE, HDCP-LEVEL and their codecs")
    func hdrVariants() throws {
        let playlist = try #require(try Fixture.parse("apple-multivariant-hdr-sdr.m3u8").multivariant)
        #expect(playlist.variants.map(\.streamInf.videoRange) == ["SDR", "SDR", "PQ", "HLG", "PQ", "HLG"])
        #expect(playlist.variants.map(\.streamInf.hdcpLevel) == [nil, nil, nil, "TYPE-1", "TYPE-1", "TYPE-1"])
        #expect(
            playlist.variants.map { $0.streamInf.codecs.first ?? "" }.map { String($0.prefix(4)) } == [
                "avc1", "avc1", "hvc1", "hvc1", "dvh1", "hvc1",
            ]
        )
        #expect(playlist.variants[5].streamInf.attributes.string("SUPPLEMENTAL-CODECS") == "dvh1.08.07/db4h")
        #expect(playlist.variants[4].streamInf.frameRate == ExactDecimal(significand: 23976, exponent: 3))
        #expect(playlist.iFrameVariants.map(\.value.videoRange) == ["SDR", "PQ", "PQ"])
        #expect(playlist.renditions[2].value.channels == "16/JOC")
    }

    // MARK: - Ad markers and date ranges

    @Test("CUE-OUT, CUE-OUT-CONT, CUE-IN and EXT-OATCLS-SCTE35 are recognised with their values")
    func adMarkersAreRecognised() throws {
        let playlist = try #require(try Fixture.parse("mediapackage-scte35-live.m3u8").media)
        let tags = playlist.lines.compactMap(\.tag)
        let cueOuts = tags.compactMap { if case .cueOut(let cue) = $0 { cue } else { nil } }
        let conts = tags.compactMap { if case .cueOutCont(let cue) = $0 { cue } else { nil } }
        let oatcls = tags.compactMap { if case .oatclsSCTE35(let value) = $0 { value } else { nil } }
        #expect(cueOuts.map(\.duration) == [ExactDecimal(significand: 3003, exponent: 2)])
        #expect(conts.map(\.elapsed) == [6006, 12012, 18018, 24024].map { ExactDecimal(significand: $0, exponent: 3) })
        #expect(conts.allSatisfy { $0.duration == ExactDecimal(significand: 3003, exponent: 2) })
        #expect(tags.filter { $0 == .cueIn }.count == 1)
        #expect(oatcls == ["/DAlAAAAAAAAAP/wFAUAAAABf+/+ANgNkv4AKUsuAAEBAQAATLbR8w=="])
        // The markers do not disturb the segments.
        #expect(playlist.segments.count == 9)
        #expect(playlist.segments.map(\.mediaSequenceNumber) == Array(18941...18949))
    }

    @Test("the other common CUE-OUT forms: DURATION=, bare, and n/m progress")
    func adMarkerForms() throws {
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:10
            #EXT-X-CUE-OUT:DURATION=30
            #EXTINF:10,
            a.ts
            #EXT-X-CUE-OUT-CONT:10/30
            #EXTINF:10,
            b.ts
            #EXT-X-CUE-OUT
            #EXT-X-CUE-OUT-CONT
            #EXTINF:10,
            c.ts
            #EXT-X-CUE-IN
            """
        )
        let tags = playlist.lines.compactMap(\.tag)
        let cueOuts = tags.compactMap { if case .cueOut(let cue) = $0 { cue } else { nil } }
        let conts = tags.compactMap { if case .cueOutCont(let cue) = $0 { cue } else { nil } }
        #expect(cueOuts.map(\.duration) == [ExactDecimal(30), nil])
        #expect(conts.map(\.elapsed) == [ExactDecimal(10), nil])
        #expect(conts.map(\.duration) == [ExactDecimal(30), nil])
        #expect(Tag.cueOut(CueOut(duration: ExactDecimal(significand: 305, exponent: 1))).serialized == "#EXT-X-CUE-OUT:30.5")
    }

    @Test("DATERANGEs before the first and after the last segment know where they stand")
    func dateRangePlacement() throws {
        let playlist = try #require(try Fixture.parse("apple-interstitials-vod.m3u8").media)
        #expect(playlist.segments.count == 9)
        #expect(playlist.dateRanges.map(\.dateRange.id) == ["preroll", "midroll-1", "postroll"])
        #expect(playlist.dateRanges.map(\.segmentIndex) == [0, 5, 9])
        #expect(playlist.dateRanges.map(\.line) == [9, 20, 30])
        #expect(playlist.dateRanges.allSatisfy { $0.dateRange.isInterstitial })
        let preroll = playlist.dateRanges[0].dateRange
        #expect(preroll.cue == ["PRE", "ONCE"])
        #expect(preroll.startDate == "2026-11-23T08:00:00.000+01:00")
        #expect(preroll.clientAttributes.map(\.name) == ["X-ASSET-LIST", "X-RESTRICT", "X-RESUME-OFFSET"])
        #expect(preroll.attributes.string("X-RESTRICT") == "SKIP,JUMP")
        let midroll = playlist.dateRanges[1].dateRange
        #expect(midroll.duration == ExactDecimal(significand: 15015, exponent: 3))
        #expect(midroll.attributes.decimal("X-RESUME-OFFSET") == ExactDecimal.zero)
        #expect(playlist.dateRanges[2].dateRange.cue == ["POST"])
    }

    @Test("SCTE-35 DATERANGEs keep their hexadecimal commands and planned duration")
    func scte35DateRanges() throws {
        let playlist = try #require(try Fixture.parse("mediapackage-scte35-live.m3u8").media)
        #expect(playlist.dateRanges.map(\.segmentIndex) == [2, 7])
        let out = playlist.dateRanges[0].dateRange
        #expect(out.plannedDuration == ExactDecimal(significand: 3003, exponent: 2))
        #expect(out.attributes["SCTE35-OUT"]?.rawValue.hasPrefix("0xFC3025") == true)
        let back = playlist.dateRanges[1].dateRange
        #expect(back.id == out.id)
        #expect(back.endDate == "2026-11-23T07:00:23.042Z")
        #expect(back.duration == ExactDecimal(significand: 3003, exponent: 2))
    }

    @Test("END-ON-NEXT=YES is read; absent it is false")
    func endOnNext() throws {
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:10
            #EXT-X-PROGRAM-DATE-TIME:2026-11-23T06:00:00.000Z
            #EXT-X-DATERANGE:ID="ad-1",CLASS="com.example.ad",START-DATE="2026-11-23T06:00:00.000Z",END-ON-NEXT=YES
            #EXTINF:10,
            a.ts
            #EXT-X-DATERANGE:ID="ad-2",CLASS="com.example.ad",START-DATE="2026-11-23T06:00:10.000Z"
            #EXTINF:10,
            b.ts
            """
        )
        #expect(playlist.dateRanges.map(\.dateRange.endOnNext) == [true, false])
        #expect(playlist.dateRanges.map(\.dateRange.dateRangeClass) == ["com.example.ad", "com.example.ad"])
    }

    // MARK: - Low-latency HLS

    @Test("a live LL-HLS playlist: server control, part info, parts per segment, trailing parts, hints and reports")
    func lowLatencyPlaylist() throws {
        let playlist = try #require(try Fixture.parse("apple-ll-hls-live.m3u8").media)
        #expect(!playlist.hasEndList)
        let control = try #require(playlist.serverControl)
        #expect(control.canBlockReload)
        #expect(control.partHoldBack == ExactDecimal(significand: 1002, exponent: 3))
        #expect(control.canSkipUntil == ExactDecimal(24))
        #expect(control.holdBack == nil)
        #expect(playlist.partInf?.partTarget == ExactDecimal(significand: 33334, exponent: 5))

        #expect(playlist.segments.map(\.mediaSequenceNumber) == Array(266...271))
        #expect(playlist.segments.map(\.parts.count) == [0, 0, 0, 0, 12, 12])
        let parts = playlist.segments[4].parts
        #expect(parts.first?.uri == "filePart270.0.mp4")
        #expect(parts.map(\.isIndependent) == (0..<12).map { $0 % 4 == 0 })
        #expect(parts.compactMap(\.duration).sum() == playlist.segments[4].duration)
        #expect(playlist.segments[0].programDateTime == "2026-11-23T06:40:12.106Z")
        #expect(playlist.segments.allSatisfy { $0.map?.uri == "init.mp4" })

        #expect(playlist.trailingParts.map(\.uri) == ["filePart272.0.mp4", "filePart272.1.mp4"])
        #expect(playlist.preloadHints.map(\.value.type) == ["PART"])
        #expect(playlist.preloadHints.map(\.value.uri) == ["filePart272.2.mp4"])
        #expect(playlist.renditionReports.map(\.value.uri) == ["../1M/waitForMSN.php", "../4M/waitForMSN.php"])
        #expect(playlist.renditionReports.allSatisfy { $0.value.lastMediaSequenceNumber == 272 && $0.value.lastPart == 1 })
    }

    @Test("a delta update's EXT-X-SKIP shifts the media sequence numbers of the segments that follow")
    func deltaUpdateSkip() throws {
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-VERSION:9
            #EXT-X-TARGETDURATION:4
            #EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=24.0,PART-HOLD-BACK=1.002
            #EXT-X-PART-INF:PART-TARGET=0.33334
            #EXT-X-MEDIA-SEQUENCE:266
            #EXT-X-SKIP:SKIPPED-SEGMENTS=4
            #EXTINF:4.00008,
            fileSequence270.ts
            #EXTINF:4.00008,
            fileSequence271.ts
            #EXT-X-PART:DURATION=0.33334,URI="filePart272.0.ts",INDEPENDENT=YES
            #EXT-X-PRELOAD-HINT:TYPE=PART,URI="filePart272.1.ts"
            """
        )
        #expect(playlist.skip?.value.skippedSegments == 4)
        #expect(playlist.skip?.line == 7)
        #expect(playlist.segments.map(\.mediaSequenceNumber) == [270, 271])
        #expect(playlist.trailingParts.count == 1)
        #expect(playlist.segments[0].startTime == .zero)
    }

    @Test("I-frame-only playlists say so and their segments are byte ranges of one file")
    func iFramesOnlyPlaylist() throws {
        let playlist = try #require(try Fixture.parse("apple-iframes-only.m3u8").media)
        #expect(playlist.isIFramesOnly)
        #expect(playlist.segments.count == 5)
        #expect(playlist.segments.allSatisfy { $0.uri == "main.ts" && $0.byteRange?.isOffsetExplicit == true })
        #expect(playlist.segments.map { $0.byteRange?.offset } == [376, 1_131_524, 2_262_484, 3_394_196, 4_519_024])
        #expect(playlist.duration == ExactDecimal(18))
    }

    @Test("a media playlist edited and rebuilt from its lines derives the new segments")
    func rebuildFromEditedLines() throws {
        let playlist = try #require(try Fixture.parse("ffmpeg-ts-vod.m3u8").media)
        var lines = Array(playlist.lines)
        let infIndex = playlist.segments[5].lineIndices.lowerBound
        lines[infIndex].content = .tag(.inf(Inf(duration: ExactDecimal(significand: 45, exponent: 1))))
        let rebuilt = try MediaPlaylist(lines: lines, url: playlist.url)
        #expect(rebuilt.segments[5].durationText == "4.500")
        #expect(rebuilt.duration == ExactDecimal(significand: 54_516_633, exponent: 6))
        #expect(PlaylistWriter().write(rebuilt).contains("#EXTINF:4.500,\nstream5.ts\n"))
    }
}

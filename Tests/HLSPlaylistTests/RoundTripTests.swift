import Foundation
import HLSPlaylist
import Testing

/// Parse then write gives back the bytes that were read, except for the normalisations the
/// parser documents (BOM, line endings, blank lines, final newline).
@Suite("Round trip")
struct RoundTripTests {
    // MARK: - Fixtures

    @Test("there are enough fixtures for the parameterized tests to mean something")
    func fixturesArePresent() {
        #expect(Fixture.names.count >= 12)
    }

    @Test("every fixture round-trips byte for byte", arguments: Fixture.names)
    func fixtureRoundTripsByteForByte(name: String) throws {
        let text = try Fixture.text(name)
        let playlist = try Fixture.parse(name)
        #expect(bytes(PlaylistWriter().write(playlist)) == bytes(text))
        #expect(bytes(PlaylistWriter().write(lines: playlist.lines)) == bytes(text))
        // Fixtures are canonical: parsing them needed no normalisation.
        #expect(playlist.source == SourceNotes())
    }

    @Test("every fixture written from its typed content (no original text) gives the same bytes", arguments: Fixture.names)
    func fixtureReserializedFromTypedContentIsIdentical(name: String) throws {
        let text = try Fixture.text(name)
        var lines = Array(try Fixture.parse(name).lines)
        for index in lines.indices {
            lines[index].content = lines[index].content  // drops the original text
            #expect(lines[index].original == nil)
        }
        let written = PlaylistWriter().write(lines: lines)
        #expect(bytes(written) == bytes(text))
    }

    @Test("writing is idempotent: the written text parses and writes to itself", arguments: Fixture.names)
    func writingIsIdempotent(name: String) throws {
        let once = PlaylistWriter().write(try Fixture.parse(name))
        let twice = try roundTrip(once)
        #expect(bytes(twice) == bytes(once))
    }

    // MARK: - Normalisations

    @Test("a byte order mark is stripped and the linter warns about it")
    func byteOrderMarkIsStripped() throws {
        let text = "\u{FEFF}" + canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXTINF:10,", "a.ts", "#EXT-X-ENDLIST")
        let playlist = try PlaylistParser().parse(text)
        #expect(playlist.source.strippedByteOrderMark)
        #expect(bytes(PlaylistWriter().write(playlist)) == bytes(String(text.dropFirst())))
        let bom = PlaylistLinter().lint(playlist).rule("bom")
        #expect(bom.count == 1)
        #expect(bom.first?.severity == .warning)
        #expect(bom.first?.line == 1)
    }

    @Test("a playlist without a byte order mark gets no bom warning")
    func noByteOrderMarkNoWarning() throws {
        let diagnostics = try lint(canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXTINF:10,", "a.ts"))
        #expect(diagnostics.rule("bom").isEmpty)
    }

    @Test("a byte order mark given as bytes is stripped too")
    func byteOrderMarkAsBytesIsStripped() throws {
        let body = canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXTINF:10,", "a.ts")
        let playlist = try PlaylistParser().parse(bytes: [0xEF, 0xBB, 0xBF] + Array(body.utf8))
        #expect(bytes(PlaylistWriter().write(playlist)) == bytes(body))
    }

    @Test("CRLF line endings become LF")
    func crlfBecomesLF() throws {
        let text = "#EXTM3U\r\n#EXT-X-TARGETDURATION:10\r\n#EXTINF:9.5,\r\nseg.ts\r\n#EXT-X-ENDLIST\r\n"
        let playlist = try PlaylistParser().parse(text)
        #expect(playlist.source.normalizedLineEndings)
        #expect(PlaylistWriter().write(playlist) == canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXTINF:9.5,", "seg.ts", "#EXT-X-ENDLIST"))
        #expect(playlist.media?.segments.first?.uri == "seg.ts")
    }

    @Test("lone CR line endings become LF, and CR-CR-LF leaves no blank line behind")
    func loneCRBecomesLF() throws {
        let text = "#EXTM3U\r#EXT-X-TARGETDURATION:10\r#EXTINF:9.5,\r\r\nseg.ts\r#EXT-X-ENDLIST"
        let playlist = try PlaylistParser().parse(text)
        #expect(playlist.source.normalizedLineEndings)
        #expect(PlaylistWriter().write(playlist) == canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXTINF:9.5,", "seg.ts", "#EXT-X-ENDLIST"))
    }

    @Test("blank and whitespace-only lines are dropped, even between EXTINF and its URI")
    func blankLinesAreDropped() throws {
        let text = "#EXTM3U\n\n#EXT-X-TARGETDURATION:10\n   \n#EXTINF:10,\n\n\t\nseg0.ts\n\n#EXTINF:10,\nseg1.ts\n\n"
        let playlist = try #require(try PlaylistParser().parse(text).media)
        #expect(playlist.source.droppedBlankLines == 6)
        let expected = canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXTINF:10,", "seg0.ts", "#EXTINF:10,", "seg1.ts")
        #expect(PlaylistWriter().write(playlist) == expected)
        #expect(playlist.segments.map(\.uri) == ["seg0.ts", "seg1.ts"])
        // Line numbers still count the dropped lines, so errors point at the source.
        #expect(playlist.segments[0].infLineNumber == 5)
        #expect(playlist.segments[0].uriLineNumber == 8)
    }

    @Test("a missing final newline is added")
    func finalNewlineIsAdded() throws {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nseg.ts\n#EXT-X-ENDLIST"
        let playlist = try PlaylistParser().parse(text)
        #expect(playlist.source.missingFinalNewline)
        #expect(PlaylistWriter().write(playlist) == text + "\n")
    }

    @Test("BOM, CRLF, blank lines and a missing final newline together normalise to the canonical text")
    func allNormalisationsTogether() throws {
        let text = "\u{FEFF}#EXTM3U\r\n\r\n#EXT-X-TARGETDURATION:10\r\n#EXTINF:10,\r\n  \r\nseg.ts"
        let playlist = try PlaylistParser().parse(text)
        #expect(playlist.source.strippedByteOrderMark)
        #expect(playlist.source.normalizedLineEndings)
        #expect(playlist.source.droppedBlankLines == 2)
        #expect(playlist.source.missingFinalNewline)
        #expect(PlaylistWriter().write(playlist) == canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXTINF:10,", "seg.ts"))
    }

    @Test("whitespace around a line is kept in the written text (only blank lines are dropped)")
    func surroundingWhitespaceIsKept() throws {
        let text = canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10 ", "#EXTINF:10,", "  seg.ts\t")
        let playlist = try #require(try PlaylistParser().parse(text).media)
        #expect(bytes(PlaylistWriter().write(playlist)) == bytes(text))
        #expect(playlist.targetDuration == 10)
        #expect(playlist.segments.first?.uri == "seg.ts")
    }

    // MARK: - Lines kept as written

    @Test("## comments and # text lines are kept in place")
    func commentsAreKeptInPlace() throws {
        let text = canonical(
            "#EXTM3U",
            "## Generated with https://github.com/shaka-project/shaka-packager version v3.2.0",
            "#EXT-X-TARGETDURATION:10",
            "# ad break follows",
            "#EXTINF:10,",
            "#",
            "seg.ts",
            "#EXT-X-ENDLIST",
            "# trailer, with: punctuation=kept"
        )
        let playlist = try #require(try PlaylistParser().parse(text).media)
        #expect(bytes(PlaylistWriter().write(playlist)) == bytes(text))
        let comments = playlist.lines.compactMap { line -> String? in
            if case .comment(let text) = line.content { return String(text) }
            return nil
        }
        #expect(
            comments == [
                "## Generated with https://github.com/shaka-project/shaka-packager version v3.2.0", "# ad break follows", "#",
                "# trailer, with: punctuation=kept",
            ]
        )
        #expect(playlist.segments.count == 1)
        #expect(playlist.lines[1].number == 2)
    }

    @Test("unknown #EXT tags are kept in place with their name and value")
    func unknownTagsAreKeptInPlace() throws {
        let text = canonical(
            "#EXTM3U",
            "#EXT-X-ALLOW-CACHE:NO",
            "#EXT-X-TARGETDURATION:10",
            "#EXT-X-ASSET:CAID=0x0000000020FB6501,GENRE=\"news, live\"",
            "#EXTINF:10,",
            "#EXT-X-SCTE35:CUE=\"/DAlAAAAAAAAAP/wFAUAAAABf+/+ANgNkv4AFJlwAAEBAQAAHBdExw==\"",
            "seg.ts",
            "#EXT-X-TWITCH-PREFETCH",
            "#EXT-X-EMPTY-VALUE:"
        )
        let playlist = try #require(try PlaylistParser().parse(text).media)
        #expect(bytes(PlaylistWriter().write(playlist)) == bytes(text))
        #expect(playlist.lines[1].tag == .unknown(name: "EXT-X-ALLOW-CACHE", value: "NO"))
        #expect(playlist.lines[3].tag == .unknown(name: "EXT-X-ASSET", value: "CAID=0x0000000020FB6501,GENRE=\"news, live\""))
        #expect(playlist.lines[7].tag == .unknown(name: "EXT-X-TWITCH-PREFETCH", value: nil))
        #expect(playlist.lines[8].tag == .unknown(name: "EXT-X-EMPTY-VALUE", value: ""))
        // The tag between EXTINF and the URI does not break the segment.
        #expect(playlist.segments.map(\.uri) == ["seg.ts"])
    }

    @Test("unknown tags written from typed content keep a bare name, an empty value and a value apart")
    func unknownTagsSerialiseFromContent() {
        #expect(Tag.unknown(name: "EXT-X-A", value: nil).serialized == "#EXT-X-A")
        #expect(Tag.unknown(name: "EXT-X-A", value: "").serialized == "#EXT-X-A:")
        #expect(Tag.unknown(name: "EXT-X-A", value: "B=1,C=\"x\"").serialized == "#EXT-X-A:B=1,C=\"x\"")
    }

    @Test("attribute order is kept, in the line text and in the typed attribute list")
    func attributeOrderIsKept() throws {
        let line = "#EXT-X-STREAM-INF:CODECS=\"avc1.640028,mp4a.40.2\",RESOLUTION=1920x1080,BANDWIDTH=8000000,FRAME-RATE=25.000"
        let text = canonical("#EXTM3U", line, "1080p.m3u8")
        let playlist = try #require(try PlaylistParser().parse(text).multivariant)
        #expect(bytes(PlaylistWriter().write(playlist)) == bytes(text))
        let streamInf = try #require(playlist.variants.first?.streamInf)
        #expect(streamInf.attributes.attributes.map(\.name) == ["CODECS", "RESOLUTION", "BANDWIDTH", "FRAME-RATE"])
        #expect(Tag.streamInf(streamInf).serialized == line)
    }

    @Test("commas and equals signs inside quoted values stay inside the value")
    func quotedValuesKeepCommasAndEquals() throws {
        let line = "#EXT-X-SESSION-DATA:DATA-ID=\"com.example.query\",VALUE=\"a=1,b=2, c = 3\",LANGUAGE=\"en\""
        let text = canonical("#EXTM3U", line)
        let playlist = try #require(try PlaylistParser().parse(text).multivariant)
        #expect(bytes(PlaylistWriter().write(playlist)) == bytes(text))
        let data = try #require(playlist.sessionData.first?.value)
        #expect(data.attributes.attributes.map(\.name) == ["DATA-ID", "VALUE", "LANGUAGE"])
        #expect(data.value == "a=1,b=2, c = 3")
        #expect(data.attributes["VALUE"]?.rawValue == "\"a=1,b=2, c = 3\"")
        #expect(Tag.sessionData(data).serialized == line)
    }

    @Test("enumerated and quoted values keep their form: NONE is not \"NONE\"")
    func enumeratedAndQuotedValuesAreKept() throws {
        let text = canonical(
            "#EXTM3U",
            "#EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID=\"NONE\",NAME=\"English\",INSTREAM-ID=\"CC1\",DEFAULT=YES,AUTOSELECT=YES",
            "#EXT-X-STREAM-INF:BANDWIDTH=1000000,CLOSED-CAPTIONS=NONE,HDCP-LEVEL=NONE",
            "a.m3u8",
            "#EXT-X-STREAM-INF:BANDWIDTH=2000000,CLOSED-CAPTIONS=\"NONE\",HDCP-LEVEL=TYPE-0",
            "b.m3u8"
        )
        let playlist = try #require(try PlaylistParser().parse(text).multivariant)
        #expect(bytes(PlaylistWriter().write(playlist)) == bytes(text))
        let first = playlist.variants[0].streamInf
        let second = playlist.variants[1].streamInf
        #expect(first.attributes["CLOSED-CAPTIONS"]?.isQuoted == false)
        #expect(first.closedCaptions == nil)
        #expect(second.attributes["CLOSED-CAPTIONS"]?.isQuoted == true)
        #expect(second.closedCaptions == "NONE")
        #expect(first.hdcpLevel == "NONE")
        #expect(playlist.renditions[0].value.isDefault)
    }

    @Test("hexadecimal values keep their 0x or 0X prefix and the case of their digits")
    func hexadecimalValuesAreKept() throws {
        let ivs = ["0x1a2b3c4d5e6f708192a3b4c5d6e7f801", "0X1A2B3C4D5E6F708192A3B4C5D6E7F801", "0xAbCdEf0123456789aBcDeF0123456789"]
        var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:10"]
        for (index, iv) in ivs.enumerated() {
            lines += ["#EXT-X-KEY:METHOD=AES-128,URI=\"k\(index).bin\",IV=\(iv)", "#EXTINF:10.0,", "s\(index).ts"]
        }
        let text = lines.joined(separator: "\n") + "\n"
        let playlist = try parseMedia(text)
        #expect(bytes(PlaylistWriter().write(playlist)) == bytes(text))
        #expect(playlist.segments.map { $0.keys.first?.iv } == ivs)
        // Also when the tag is written from its typed value.
        for segment in playlist.segments {
            let key = try #require(segment.keys.first)
            #expect(Tag.key(key).serialized.hasSuffix("IV=\(key.iv ?? "")"))
        }
    }

    @Test("FRAME-RATE 29.970 is written as 29.970, not 29.97")
    func frameRateIsKeptAsWritten() throws {
        let line = "#EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=1280x720,FRAME-RATE=29.970"
        let text = canonical("#EXTM3U", line, "720p.m3u8")
        let playlist = try parseMultivariant(text)
        #expect(PlaylistWriter().write(playlist) == text)
        let streamInf = playlist.variants[0].streamInf
        #expect(streamInf.frameRate == ExactDecimal(significand: 2997, exponent: 2))
        #expect(streamInf.frameRate?.description == "29.97")
        // Editing another attribute leaves the text of FRAME-RATE alone.
        var edited = streamInf
        edited.bandwidth = 2_100_000
        #expect(Tag.streamInf(edited).serialized == "#EXT-X-STREAM-INF:BANDWIDTH=2100000,RESOLUTION=1280x720,FRAME-RATE=29.970")
    }

    @Test("PROGRAM-DATE-TIME with Z, +01:00 and fractions is kept verbatim")
    func programDateTimeIsKeptVerbatim() throws {
        let dates = [
            "2026-11-23T06:00:00Z", "2026-11-23T07:00:10.000+01:00", "2026-11-23T06:00:20.123456Z", "2026-11-23T01:00:30.5-05:00",
        ]
        var lines = ["#EXTM3U", "#EXT-X-TARGETDURATION:10"]
        for (index, date) in dates.enumerated() {
            lines += ["#EXT-X-PROGRAM-DATE-TIME:\(date)", "#EXTINF:10,", "s\(index).ts"]
        }
        let text = lines.joined(separator: "\n") + "\n"
        let playlist = try parseMedia(text)
        #expect(bytes(PlaylistWriter().write(playlist)) == bytes(text))
        #expect(playlist.segments.map { $0.programDateTime.map(String.init) } == dates)
        // The text is kept, and its meaning is exact: each date is 10 s (and a fraction) after the last.
        let seconds = try dates.map { try #require(DateTime($0)).secondsSinceEpoch }
        #expect(seconds[1] - seconds[0] == ExactDecimal(10))
        #expect(seconds[2] - seconds[1] == ExactDecimal(significand: 10_123_456, exponent: 6))
        #expect(seconds[3] - seconds[0] == ExactDecimal(significand: 305, exponent: 1))
    }

    // MARK: - Editing

    @Test("editing one line re-serialises only that line; untouched lines keep their odd spacing")
    func editingOneLineChangesOnlyThatLine() throws {
        let text = canonical(
            "#EXTM3U",
            "#EXT-X-VERSION:6",
            "#EXT-X-TARGETDURATION:10 ",
            "#EXT-X-KEY:METHOD=AES-128, URI=\"key.bin\", IV=0x00000000000000000000000000000001",
            "#EXTINF:9.009,  title with  spaces",
            "seg0.ts",
            "#EXTINF:10,",
            "seg1.ts",
            "\t#EXT-X-ENDLIST"
        )
        let playlist = try parseMedia(text)
        var lines = Array(playlist.lines)
        let uriIndex = playlist.segments[1].lineIndices.upperBound - 1
        lines[uriIndex].content = .uri("https://ads.example.com/slate/seg1.ts")
        let written = PlaylistWriter().write(lines: lines)
        let before = text.split(separator: "\n", omittingEmptySubsequences: false)
        let after = written.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(before.count == after.count)
        let changed = zip(before, after).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        #expect(changed == [uriIndex])
        #expect(after[uriIndex] == "https://ads.example.com/slate/seg1.ts")
        #expect(lines[uriIndex].original == nil)
        #expect(lines[uriIndex].number == playlist.lines[uriIndex].number)
    }

    @Test("editing an attribute through the typed API keeps the other attributes' order and text")
    func editingAnAttributeKeepsTheRest() throws {
        let text = canonical(
            "#EXTM3U",
            "#EXT-X-STREAM-INF:AVERAGE-BANDWIDTH=900000,BANDWIDTH=1000000,CODECS=\"avc1.4d401f,mp4a.40.2\",RESOLUTION=640x360",
            "360p.m3u8",
            "#EXT-X-STREAM-INF:BANDWIDTH=2000000, CODECS=\"avc1.4d401f,mp4a.40.2\",RESOLUTION=1280x720",
            "720p.m3u8"
        )
        let playlist = try parseMultivariant(text)
        var lines = Array(playlist.lines)
        let variant = playlist.variants[0]
        var streamInf = variant.streamInf
        streamInf.bandwidth = 1_100_000
        lines[variant.tagIndex].content = .tag(.streamInf(streamInf))
        let written = PlaylistWriter().write(lines: lines)
        #expect(
            written
                == canonical(
                    "#EXTM3U",
                    "#EXT-X-STREAM-INF:AVERAGE-BANDWIDTH=900000,BANDWIDTH=1100000,CODECS=\"avc1.4d401f,mp4a.40.2\",RESOLUTION=640x360",
                    "360p.m3u8",
                    "#EXT-X-STREAM-INF:BANDWIDTH=2000000, CODECS=\"avc1.4d401f,mp4a.40.2\",RESOLUTION=1280x720",
                    "720p.m3u8"
                )
        )
    }

    @Test("non-ASCII text keeps its bytes, including its Unicode normalisation form")
    func nonASCIITextKeepsItsBytes() throws {
        func multivariant(name: String) -> String {
            canonical(
                "#EXTM3U",
                "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aud\",NAME=\"\(name)\",LANGUAGE=\"es\",URI=\"audio/es.m3u8\"",
                "#EXT-X-STREAM-INF:BANDWIDTH=1000000,AUDIO=\"aud\"",
                "v.m3u8"
            )
        }
        let decomposed = multivariant(name: "Espan\u{0303}ol")  // NFD: n + combining tilde
        let composed = multivariant(name: "Espa\u{00F1}ol")  // NFC
        #expect(decomposed == composed)  // canonically equivalent…
        #expect(bytes(decomposed) != bytes(composed))  // …but not the same bytes
        #expect(bytes(try roundTrip(decomposed)) == bytes(decomposed))
        #expect(bytes(try roundTrip(composed)) == bytes(composed))
    }
}

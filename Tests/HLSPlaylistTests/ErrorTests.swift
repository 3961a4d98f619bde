import Foundation
import HLSPlaylist
import Testing

/// Malformed playlists fail with a ``PlaylistError`` that says what and where; no input crashes.
@Suite("Parse errors")
struct ErrorTests {
    /// Parses `text` and checks the error's code and line.
    func expectError(_ text: String, _ code: PlaylistError.Code, line: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error = parseError(text) else {
            Issue.record("expected \(code) on line \(line), but the playlist parsed", sourceLocation: sourceLocation)
            return
        }
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        #expect(error.line == line, "\(error)", sourceLocation: sourceLocation)
        #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
    }

    // MARK: - Header

    @Test("a playlist must start with #EXTM3U on line 1")
    func missingHeader() {
        self.expectError(canonical("#EXT-X-TARGETDURATION:10", "#EXTINF:10,", "a.ts"), .missingHeader, line: 1)
        self.expectError(canonical("#EXT-X-TARGETDURATION:10", "#EXTM3U", "#EXTINF:10,", "a.ts"), .missingHeader, line: 1)
        self.expectError("", .missingHeader, line: 1)
        self.expectError("#EXTM3U8\n", .missingHeader, line: 1)
        // A blank first line moves the header off line 1; the error points at where it was found.
        self.expectError("\n#EXTM3U\n#EXT-X-TARGETDURATION:10\n", .missingHeader, line: 2)
    }

    @Test("#EXTM3U alone is a valid, empty media playlist (RFC 8216bis §4.1: valid but empty)")
    func headerAloneIsEmptyPlaylist() throws {
        let playlist = try PlaylistParser().parseMediaPlaylist("#EXTM3U\n")
        #expect(playlist.segments.isEmpty)
        #expect(playlist.duration == .zero)
    }

    // MARK: - Tags

    @Test("a malformed EXTINF is an error on its line")
    func malformedExtinf() {
        for value in ["ten,", "-1,", ",title", "1e1,", "10.0.1,", "+5,", "0x10,", ""] {
            self.expectError(
                canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXTINF:10,", "a.ts", "#EXTINF:\(value)", "b.ts"),
                .malformedTag,
                line: 5
            )
        }
    }

    @Test("malformed integer and enumerated tag values are errors on their line")
    func malformedTagValues() {
        self.expectError(canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10.5"), .malformedTag, line: 2)
        self.expectError(canonical("#EXTM3U", "#EXT-X-VERSION:three"), .malformedTag, line: 2)
        self.expectError(canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXT-X-MEDIA-SEQUENCE:-1"), .malformedTag, line: 3)
        self.expectError(canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXT-X-MEDIA-SEQUENCE"), .malformedTag, line: 3)
        self.expectError(canonical("#EXTM3U", "#EXT-X-MEDIA-SEQUENCE:99999999999999999999"), .malformedTag, line: 2)
        self.expectError(canonical("#EXTM3U", "#EXT-X-PLAYLIST-TYPE:LIVE"), .malformedTag, line: 2)
        self.expectError(canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXT-X-PROGRAM-DATE-TIME:"), .malformedTag, line: 3)
        self.expectError(canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXT-X-KEY"), .malformedTag, line: 3)
    }

    @Test("an attribute list with an unterminated quote is malformed")
    func unterminatedQuote() {
        self.expectError(
            canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXT-X-KEY:METHOD=AES-128,URI=\"key.bin", "#EXTINF:10,", "a.ts"),
            .malformedAttributeList,
            line: 3
        )
    }

    @Test("an attribute without = is malformed")
    func attributeWithoutEquals() {
        self.expectError(canonical("#EXTM3U", "#EXT-X-STREAM-INF:BANDWIDTH", "v.m3u8"), .malformedAttributeList, line: 2)
        self.expectError(canonical("#EXTM3U", "#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS", "v.m3u8"), .malformedAttributeList, line: 2)
    }

    @Test("other malformed attribute lists: empty value, empty name, stray comma, text after a quote")
    func otherMalformedAttributeLists() {
        for list in ["BANDWIDTH=", "=1", "BANDWIDTH=1,", "BANDWIDTH=1,,CODECS=\"a\"", "CODECS=\"avc1\"x,BANDWIDTH=1", ",BANDWIDTH=1"] {
            self.expectError(canonical("#EXTM3U", "#EXT-X-STREAM-INF:\(list)", "v.m3u8"), .malformedAttributeList, line: 2)
        }
    }

    @Test("an attribute given twice is an error (RFC 8216bis §4.2)")
    func duplicateAttribute() {
        self.expectError(canonical("#EXTM3U", "#EXT-X-STREAM-INF:BANDWIDTH=1,BANDWIDTH=2", "v.m3u8"), .duplicateAttribute, line: 2)
    }

    @Test("attribute values of the wrong type are errors on their line")
    func badAttributeTypes() {
        let variants = [
            "BANDWIDTH=abc", "BANDWIDTH=-1", "BANDWIDTH=1.5", "BANDWIDTH=1,RESOLUTION=1920X1080", "BANDWIDTH=1,FRAME-RATE=-30",
            "BANDWIDTH=1,CODECS=avc1", "BANDWIDTH=\"1\"", "BANDWIDTH=1,CLOSED-CAPTIONS=cc1", "BANDWIDTH=1,HDCP-LEVEL=\"TYPE-0\"",
        ]
        for attributes in variants {
            self.expectError(canonical("#EXTM3U", "#EXT-X-VERSION:6", "#EXT-X-STREAM-INF:\(attributes)", "v.m3u8"), .invalidAttributeValue, line: 3)
        }
        self.expectError(
            canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXT-X-KEY:METHOD=AES-128,URI=\"k\",IV=1234", "#EXTINF:10,", "a.ts"),
            .invalidAttributeValue,
            line: 3
        )
        self.expectError(
            canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXT-X-KEY:METHOD=\"AES-128\",URI=\"k\"", "#EXTINF:10,", "a.ts"),
            .invalidAttributeValue,
            line: 3
        )
        self.expectError(
            canonical(
                "#EXTM3U",
                "#EXT-X-TARGETDURATION:10",
                "#EXT-X-PROGRAM-DATE-TIME:2026-11-23T06:00:00Z",
                "#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"2026-11-23T06:00:00Z\",X-COM-EXAMPLE-FLAG=YES",
                "#EXTINF:10,",
                "a.ts"
            ),
            .invalidAttributeValue,
            line: 4
        )
    }

    // MARK: - Structure

    @Test("a URI line without an EXTINF before it is an error on the URI's line")
    func uriWithoutExtinf() {
        self.expectError(canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXTINF:10,", "a.ts", "b.ts"), .unexpectedURI, line: 5)
        self.expectError(canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "a.ts"), .unexpectedURI, line: 3)
    }

    @Test("an EXTINF at the end of the playlist without a URI is an error on the EXTINF's line")
    func extinfAtEndWithoutURI() {
        self.expectError(canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXTINF:10,", "a.ts", "#EXTINF:10,"), .segmentWithoutURI, line: 5)
        self.expectError(
            canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXTINF:10,", "a.ts", "#EXTINF:9,", "#EXT-X-ENDLIST"),
            .segmentWithoutURI,
            line: 5
        )
    }

    @Test("an EXTINF followed by another EXTINF is an error on the first one")
    func extinfFollowedByExtinf() {
        self.expectError(
            canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXTINF:10,", "#EXTINF:10,", "a.ts"),
            .segmentWithoutURI,
            line: 3
        )
    }

    @Test("an EXT-X-STREAM-INF without a URI after it is an error on the STREAM-INF's line")
    func streamInfWithoutURI() {
        self.expectError(
            canonical("#EXTM3U", "#EXT-X-STREAM-INF:BANDWIDTH=1", "a.m3u8", "#EXT-X-STREAM-INF:BANDWIDTH=2"),
            .variantWithoutURI,
            line: 4
        )
        self.expectError(
            canonical("#EXTM3U", "#EXT-X-STREAM-INF:BANDWIDTH=1", "#EXT-X-STREAM-INF:BANDWIDTH=2", "b.m3u8"),
            .variantWithoutURI,
            line: 2
        )
        self.expectError(
            canonical("#EXTM3U", "#EXT-X-STREAM-INF:BANDWIDTH=1", "# comment", "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"a\"", "a.m3u8"),
            .variantWithoutURI,
            line: 2
        )
    }

    @Test("a URI line in a multivariant playlist must follow an EXT-X-STREAM-INF")
    func multivariantURIWithoutStreamInf() {
        self.expectError(canonical("#EXTM3U", "#EXT-X-STREAM-INF:BANDWIDTH=1", "a.m3u8", "b.m3u8"), .unexpectedURI, line: 4)
    }

    @Test("multivariant and media tags in one playlist are an error on the later of the two")
    func mixedPlaylistTypes() {
        self.expectError(
            canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXT-X-STREAM-INF:BANDWIDTH=1", "a.m3u8"),
            .mixedPlaylistTypes,
            line: 3
        )
        self.expectError(
            canonical("#EXTM3U", "#EXT-X-STREAM-INF:BANDWIDTH=1", "a.m3u8", "#EXTINF:10,", "b.ts"),
            .mixedPlaylistTypes,
            line: 4
        )
        self.expectError(
            canonical("#EXTM3U", "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"a\"", "#EXT-X-CUE-IN"),
            .mixedPlaylistTypes,
            line: 3
        )
    }

    @Test("asking for the wrong kind of playlist is an error")
    func unexpectedPlaylistType() throws {
        let media = canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXTINF:10,", "a.ts")
        let multivariant = canonical("#EXTM3U", "#EXT-X-STREAM-INF:BANDWIDTH=1", "a.m3u8")
        #expect(throws: PlaylistError.self) { try PlaylistParser().parseMultivariantPlaylist(media) }
        #expect(throws: PlaylistError.self) { try PlaylistParser().parseMediaPlaylist(multivariant) }
        do {
            _ = try PlaylistParser().parseMediaPlaylist(multivariant)
        } catch {
            #expect(error.code == .unexpectedPlaylistType)
            #expect(error.line == 0)
        }
    }

    @Test("building a playlist of one kind from the lines of the other is an error")
    func buildingFromLinesOfTheOtherKind() throws {
        let multivariant = try #require(try Fixture.parse("apple-multivariant-hdr-sdr.m3u8").multivariant)
        let media = try #require(try Fixture.parse("ffmpeg-ts-vod.m3u8").media)
        let asMedia = URIAndVariableTests.error { () throws(PlaylistError) in _ = try MediaPlaylist(lines: multivariant.lines) }
        #expect(asMedia?.code == .unexpectedPlaylistType)
        #expect(asMedia?.line == 4)
        let asMultivariant = URIAndVariableTests.error { () throws(PlaylistError) in _ = try MultivariantPlaylist(lines: media.lines) }
        #expect(asMultivariant?.code == .unexpectedPlaylistType)
        #expect(asMultivariant?.line == 3)
    }

    @Test("invalid UTF-8 is an error for the whole playlist (line 0)")
    func invalidUTF8() throws {
        let valid = Array(canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXTINF:10,", "a.ts").utf8)
        for bad in [[0xFF], [0xC3], [0xED, 0xA0, 0x80], [0xC0, 0xAF]] as [[UInt8]] {
            do {
                _ = try PlaylistParser().parse(bytes: valid + bad + Array("b.ts\n".utf8))
                Issue.record("bytes \(bad) should not be accepted as UTF-8")
            } catch {
                #expect(error.code == .notUTF8)
                #expect(error.line == 0)
            }
        }
        #expect(try PlaylistParser().parse(bytes: valid).media?.segments.count == 1)
    }

    @Test("an error describes its line, what was wrong and the text at fault")
    func errorDescription() throws {
        let error = try #require(parseError(canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXTINF:ten,", "a.ts")))
        #expect(error.text == "#EXTINF:ten,")
        #expect(error.description.hasPrefix("line 3: "))
        #expect(error.description.hasSuffix("\"#EXTINF:ten,\""))
    }

    // MARK: - Robustness

    @Test("extreme numbers parse to an error or a model, and linting them does not trap")
    func extremeNumbersDoNotCrash() throws {
        let huge = "9999999999999999999"
        // One huge segment: parses, and the linter reports it against the target duration.
        let one = try parseMedia(canonical("#EXTM3U", "#EXT-X-VERSION:6", "#EXT-X-TARGETDURATION:10", "#EXTINF:\(huge).5,", "a.ts"))
        #expect(PlaylistLinter().lint(one).rule("target-duration").map(\.severity) == [.error])
        // Enough of them to overflow any exact total: an error, not a trap.
        var lines = ["#EXTM3U", "#EXT-X-TARGETDURATION:10"]
        for index in 0..<40 { lines += ["#EXTINF:\(huge),", "s\(index).ts"] }
        let error = try #require(parseError(lines.joined(separator: "\n")))
        #expect(error.code == .malformedTag)
        #expect(error.line > 2)
        // Sequence numbers past Int.max, and a byte range ending past it: an error, not a trap.
        let cases: [(header: String, middle: String, line: Int)] = [
            ("#EXT-X-MEDIA-SEQUENCE:\(Int.max)", "", 9),
            ("#EXT-X-DISCONTINUITY-SEQUENCE:\(Int.max)", "", 9),
            ("#EXT-X-MEDIA-SEQUENCE:\(Int.max - 1)\n#EXT-X-SKIP:SKIPPED-SEGMENTS=\(Int.max)", "", 6),
            ("", "#EXT-X-MEDIA-SEQUENCE:\(Int.max)", 9),  // after the first segment, where it does not belong
            ("#EXT-X-VERSION:4\n#EXT-X-BYTERANGE:\(Int.max)@\(Int.max)", "", 4),
        ]
        for (header, middle, line) in cases {
            let text = canonical(
                "#EXTM3U",
                "#EXT-X-TARGETDURATION:10",
                header,
                "#EXTINF:10,",
                "a.ts",
                middle,
                "#EXT-X-DISCONTINUITY",
                "#EXTINF:10,",
                "b.ts"
            )
            let error = parseError(text)
            #expect(error?.code == .malformedTag, "\(header)\(middle): \(String(describing: error))")
            #expect(error?.line == line, "\(header)\(middle): \(String(describing: error))")
        }
        // Large but representable values parse.
        let large = try parseMedia(
            canonical("#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXT-X-MEDIA-SEQUENCE:\(Int.max - 1)", "#EXTINF:10,", "a.ts", "#EXTINF:10,", "b.ts")
        )
        #expect(large.segments.map(\.mediaSequenceNumber) == [Int.max - 1, Int.max])
    }

    @Test("a few hundred mutated and truncated fixtures each parse or throw a PlaylistError — and never crash")
    func mutatedInputsNeverCrash() throws {
        var random = SplitMix64(seed: 0xAD57_17C4)
        let sources = try Fixture.names.map { Array(try Fixture.text($0).utf8) }
        var parsed = 0
        var failed = 0
        for round in 0..<480 {
            var input = sources[round % sources.count]
            for _ in 0..<random.int(in: 1...3) {
                input = Self.mutate(input, using: &random)
            }
            let lineCount = input.count(where: { $0 == 10 || $0 == 13 }) + 1
            do {
                let playlist = try PlaylistParser().parse(bytes: input)
                parsed += 1
                // Everything downstream of a successful parse must cope too.
                _ = PlaylistLinter().lint(playlist)
                let written = PlaylistWriter().write(playlist)
                let rewritten = try roundTrip(written)
                #expect(bytes(rewritten) == bytes(written), "round \(round): writing is not idempotent")
                if let media = playlist.media {
                    _ = Array(media.segments)
                    _ = PlaylistWriter(options: .init(explicitByteRangeOffsets: true)).write(media)
                    _ = try? media.resolvingVariables()
                }
                if let multivariant = playlist.multivariant {
                    _ = try? multivariant.resolvingVariables()
                }
            } catch {
                failed += 1
                #expect((0...lineCount).contains(error.line), "round \(round): \(error)")
                #expect(!error.message.isEmpty)
            }
        }
        // The mutations exercise both outcomes.
        #expect(parsed > 50)
        #expect(failed > 50)
    }

    /// One random edit of the kinds that break playlists: truncation, lost or repeated lines,
    /// stray syntax bytes, huge numbers, invalid UTF-8.
    static func mutate(_ input: [UInt8], using random: inout SplitMix64) -> [UInt8] {
        guard !input.isEmpty else { return Array("#EXTM3U".utf8) }
        var bytes = input
        let position = random.int(in: 0...(bytes.count - 1))
        var lines = bytes.split(separator: 10, omittingEmptySubsequences: false).map(Array.init)
        switch random.int(in: 0...8) {
        case 0:  // truncate
            bytes.removeSubrange(position...)
        case 1:  // drop a line (never the header, or nearly everything would fail the same way)
            guard lines.count > 2 else { break }
            lines.remove(at: random.int(in: 1...(lines.count - 1)))
            bytes = Array(lines.joined(separator: [10]))
        case 2:  // repeat a line
            let index = random.int(in: 0...(lines.count - 1))
            lines.insert(lines[index], at: index)
            bytes = Array(lines.joined(separator: [10]))
        case 3:  // swap two lines
            let (a, b) = (random.int(in: 1...max(1, lines.count - 1)), random.int(in: 1...max(1, lines.count - 1)))
            if a < lines.count, b < lines.count { lines.swapAt(a, b) }
            bytes = Array(lines.joined(separator: [10]))
        case 4:  // a stray syntax byte
            let stray: [[UInt8]] = [[34], [44], [61], [64], [35], [58], [13], [10], [45], [46], [120], [32], [9], Array("{$".utf8)]
            bytes.insert(contentsOf: stray.randomElement(using: &random)!, at: position)
        case 5:  // invalid or partial UTF-8
            bytes.insert(contentsOf: [[0xFF], [0xC3], [0xE2, 0x82], [0xEF, 0xBB, 0xBF]].randomElement(using: &random)!, at: position)
        case 6:  // replace a number with an extreme one
            guard let start = bytes[position...].firstIndex(where: { $0 &- 48 < 10 }) else { break }
            let end = bytes[start...].firstIndex(where: { $0 &- 48 >= 10 }) ?? bytes.endIndex
            let replacement = ["0", "99999999999999999999", "\(Int.max)", "18446744073709551615", "9999999999999999999.9999999999999999999"]
            bytes.replaceSubrange(start..<end, with: Array(replacement.randomElement(using: &random)!.utf8))
        case 7:  // delete a short run of bytes
            let end = min(bytes.count, position + random.int(in: 1...12))
            bytes.removeSubrange(position..<end)
        default:  // flip a byte to a random printable one
            bytes[position] = UInt8(random.int(in: 32...126))
        }
        return bytes
    }
}

import AdServer
import Foundation
import HLSPlaylist
import Testing

enum Fixture {
    static func data(_ name: String) throws -> Data {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil))
        return try Data(contentsOf: url)
    }

    static func vast(_ name: String) throws -> VASTDocument { try VASTDocument(Self.data(name)) }
}

@Suite("VAST documents")
struct VASTDocumentTests {
    @Test("VAST 4.3 inline: identity from UniversalAdId, duration exact, HLS media file found, every tracker kept")
    func inline() throws {
        let document = try Fixture.vast("inline-4.3.xml")
        #expect(document.version == "4.3")
        let ad = try #require(document.ads.first)
        #expect(document.ads.count == 1 && ad.id == "ad-4711" && ad.sequence == nil && !ad.isWrapper)
        guard case .inline(let creatives) = ad.kind else { throw VASTError(.schema, "not inline") }
        // The companion creative has no <Linear>: only the linear one stitches.
        let creative = try #require(creatives.first)
        #expect(creatives.count == 1)
        #expect(creative.identity == "ABCD1234000H" && creative.id == "cr-88")
        #expect(creative.duration == ExactDecimal(significand: 1536, exponent: 2))
        #expect(creative.mediaFiles.map(\.isHLS) == [false, true])
        #expect(creative.mediaFiles.last?.uri == "https://cdn.example/fizz/master.m3u8")
        #expect(ad.impressions == ["https://track.example/impression?ad=4711&cb=[CACHEBUSTING]", "https://verify.example/imp/4711"])
        #expect(ad.errors == ["https://track.example/error?ad=4711&code=[ERRORCODE]"])
        #expect(Set(ad.tracking.keys) == ["start", "firstQuartile", "midpoint", "thirdQuartile", "complete"])
        #expect(ad.title == "Fizzy Drink 15" && ad.adSystem == "Example Ad Server")
    }

    @Test("VAST 2.0: identity from the creative's AdID; text without CDATA, whitespace trimmed; another HLS MIME type")
    func version2() throws {
        let creative = try #require(
            try Fixture.vast("vast-2.0.xml").ads.first.flatMap { ad -> VASTCreative? in
                if case .inline(let creatives) = ad.kind { creatives.first } else { nil }
            }
        )
        #expect(creative.identity == "LEGACY-10")
        #expect(creative.duration == ExactDecimal(10))
        #expect(creative.mediaFiles.first?.uri == "https://old.example/legacy/master.m3u8" && creative.mediaFiles.first?.isHLS == true)
    }

    @Test("text joins character data and CDATA with the white space between them; only the ends are trimmed (CRLF too); attributes padded")
    func textShapes() throws {
        let answer = Data(
            "<VAST version=\"4.3\">\r\n  <Ad id=\"a\" sequence=\" 2 \">\r\n\t<InLine>\r\n    <AdTitle>\r\n  Ad <![CDATA[one]]> &amp; <![CDATA[two]]>\r\n</AdTitle>\r\n    <Impression>  <![CDATA[https://t.example/i?a=1&b=2]]>  </Impression>\r\n    <Creatives><Creative id=\"c\"><Linear><Duration>\r\n 00:00:10.500 </Duration>\r\n    <MediaFiles><MediaFile delivery=\"streaming\" type=\"application/x-mpegURL\">\r\n https://a.example/m.m3u8\r\n</MediaFile></MediaFiles></Linear></Creative></Creatives>\r\n  </InLine></Ad></VAST>\r\n"
                .utf8
        )
        let ad = try #require(try VASTDocument(answer).ads.first)
        #expect(ad.title == "Ad one & two")
        #expect(ad.sequence == 2)
        #expect(ad.impressions == ["https://t.example/i?a=1&b=2"])
        guard case .inline(let creatives) = ad.kind, let creative = creatives.first else {
            Issue.record("no inline creative")
            return
        }
        #expect(creative.duration == ExactDecimal("10.5"))
        #expect(creative.mediaFiles.map(\.uri) == ["https://a.example/m.m3u8"])
    }

    @Test("what conditioning reads: the <Mezzanine> when there is one, else the progressive video of most pixels; never a streaming file")
    func conditioningSource() throws {
        func creative(_ files: String) throws -> VASTCreative {
            let answer = Data(
                "<VAST version=\"4.3\"><Ad id=\"a\"><InLine><AdSystem>s</AdSystem><AdTitle>t</AdTitle><Impression>https://i</Impression><Creatives><Creative id=\"c\"><Linear><Duration>00:00:15</Duration><MediaFiles>\(files)</MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>"
                    .utf8
            )
            guard case .inline(let creatives)? = try VASTDocument(answer).ads.first?.kind, let first = creatives.first else {
                throw VASTError(.schema, "no creative")
            }
            return first
        }
        let small =
            "<MediaFile delivery=\"progressive\" type=\"video/mp4\" width=\"640\" height=\"360\" bitrate=\"800\">https://a/360.mp4</MediaFile>"
        let large =
            "<MediaFile delivery=\"progressive\" type=\"video/mp4\" width=\"1920\" height=\"1080\" bitrate=\"5000\">https://a/1080.mp4</MediaFile>"
        let stream = "<MediaFile delivery=\"streaming\" type=\"video/mp4\" width=\"3840\" height=\"2160\">https://a/dash.mp4</MediaFile>"
        let mezzanine = "<Mezzanine delivery=\"progressive\" type=\"video/mp4\" width=\"1920\" height=\"1080\"> https://a/mezzanine.mov </Mezzanine>"
        #expect(try creative(small + large + stream).conditioningSource == "https://a/1080.mp4")
        #expect(try creative(large + small).conditioningSource == "https://a/1080.mp4")
        #expect(try creative(small + mezzanine + large).conditioningSource == "https://a/mezzanine.mov")
        #expect(try creative(stream).conditioningSource == nil)
        #expect(VASTError.Code.mezzanineDownloading.rawValue == 407)
    }

    @Test(
        "an empty answer is no ad, with its root error URI; broken answers carry VAST's codes (100 not XML, 101 not VAST); a broken ad is rejected alone, with its code and error URIs, the others read"
    )
    func emptyAndBroken() throws {
        let empty = try Fixture.vast("empty.xml")
        #expect(empty.ads.isEmpty && empty.errors == ["https://ads.example/noad?c=[ERRORCODE]"])
        let cases: [(String, VASTError.Code)] = [
            ("<VAST version=\"4.3\"><Ad><InLine>", .xmlParsing),
            ("not xml at all", .xmlParsing),
            ("<VMAP/>", .schema),
        ]
        let good = "<Ad id=\"ok\"><InLine><Creatives><Creative><Linear><Duration>00:00:05</Duration></Linear></Creative></Creatives></InLine></Ad>"
        for bad in [
            "<Ad id=\"bad\"><Wrapper><Error>https://e.example/w</Error></Wrapper></Ad>",
            "<Ad id=\"bad\"><InLine><Error>https://e.example/w</Error><Creatives><Creative><Linear><Duration>15 s</Duration></Linear></Creative></Creatives></InLine></Ad>",
        ] {
            let document = try VASTDocument(Data("<VAST>\(bad)\(good)</VAST>".utf8))
            #expect(document.ads.map(\.id) == ["ok"], "\(bad)")
            #expect(document.rejected.map(\.id) == ["bad"] && document.rejected.map(\.error.code) == [.schema], "\(document.rejected)")
            #expect(document.rejected.first?.errors == ["https://e.example/w"])
        }
        for (text, code) in cases {
            #expect(throws: VASTError.self, "\(text)") { try VASTDocument(Data(text.utf8)) }
            do {
                _ = try VASTDocument(Data(text.utf8))
            } catch {
                #expect(error.code == code, "\(text): \(error)")
            }
        }
    }

    @Test("a document nested deeper than any VAST answer is refused, not recursed into")
    func deepNesting() {
        let text = String(repeating: "<a>", count: 5_000) + String(repeating: "</a>", count: 5_000)
        #expect(throws: VASTError.self) { try VASTDocument(Data(text.utf8)) }
    }

    @Test("entities are never substituted: a DTD's entities are not even declared, so a document using them is refused (100), fast")
    func entities() throws {
        let external = """
            <?xml version="1.0"?>
            <!DOCTYPE VAST [<!ENTITY leak SYSTEM "file:///etc/passwd">]>
            <VAST version="4.3"><Error>https://e.example/?x=&leak;</Error></VAST>
            """
        var laughs = "<?xml version=\"1.0\"?>\n<!DOCTYPE VAST [<!ENTITY l0 \"ha\">"
        for level in 1...9 { laughs += "<!ENTITY l\(level) \"" + String(repeating: "&l\(level - 1);", count: 10) + "\">" }
        laughs += "]><VAST version=\"4.3\"><Error>&l9;</Error></VAST>"
        for text in [external, laughs] {
            let started = ContinuousClock.now
            do {
                let document = try VASTDocument(Data(text.utf8))
                Issue.record("parsed: \(document.errors)")
            } catch {
                #expect(error.code == .xmlParsing && error.message.contains("not defined"), "\(error)")
            }
            #expect(ContinuousClock.now - started < .seconds(1))
        }
        // The predefined entities and character references of plain XML still read as text.
        let plain = try VASTDocument(Data("<VAST version=\"4.3\"><Error>https://e.example/?a=1&amp;b=&#50;</Error></VAST>".utf8))
        #expect(plain.errors == ["https://e.example/?a=1&b=2"])
    }

    @Test("VAST clock values: HH:MM:SS and HH:MM:SS.mmm, exact for every millisecond of an hour's sample; others refused")
    func clockValues() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let milliseconds = Int.random(in: 0..<(5 * 3_600_000), using: &generator)
            let (h, m, s, ms) = (milliseconds / 3_600_000, milliseconds / 60_000 % 60, milliseconds / 1000 % 60, milliseconds % 1000)
            let text = String(format: "%02d:%02d:%02d.%03d", h, m, s, ms)
            #expect(VASTTime.duration(text) == ExactDecimal(significand: milliseconds, exponent: 3), "\(text)")
        }
        #expect(VASTTime.duration("00:01:30") == ExactDecimal(90))
        #expect(VASTTime.duration("168:00:00") == ExactDecimal(168 * 3600))
        for bad in [
            "", "1:2", "00:60:00", "00:00:60", "-1:00:00", "00:00:xx", "00:00:05,000",
            // Signs anywhere, and hours past a week's programme (2⁶³ hours overflowed to a trap).
            "-00:00:10", "00:-0:10", "00:00:-10", "+00:00:10", "00:00:+1", "169:00:00", "9223372036854775807:00:00",
            "2562047788015216:00:00", "99999999999999999999:00:00", "00:00:.5", " : : ",
        ] {
            #expect(VASTTime.duration(bad) == nil, "\(bad)")
        }
    }

    @Test(
        "hostile numbers: a creative's <Duration> past an hour, of 0 or 2⁶³ hours, is rejected with its line; a media file's width × height past Int is read as not given; lists past their limits are cut"
    )
    func hostileNumbers() throws {
        func ad(_ duration: String, files: String = "") -> String {
            "<Ad id=\"a\"><InLine><Creatives><Creative><Linear><Duration>\(duration)</Duration><MediaFiles>\(files)</MediaFiles></Linear></Creative></Creatives></InLine></Ad>"
        }
        for duration in ["9223372036854775807:00:00", "2562047788015216:00:00", "01:00:00.001", "00:00:00", "-00:00:10", "24:00:00"] {
            let document = try VASTDocument(Data("<VAST>\(ad(duration))</VAST>".utf8))
            #expect(document.ads.isEmpty && document.rejected.count == 1, "\(duration)")
            #expect(document.rejected.first?.error.message.contains("line 1") == true, "\(document.rejected)")
        }
        #expect(try VASTDocument(Data("<VAST>\(ad("01:00:00"))</VAST>".utf8)).ads.count == 1)
        // Width × height of Int.max each would trap the choice of a conditioning source.
        let huge =
            "<MediaFile delivery=\"progressive\" type=\"video/mp4\" width=\"9223372036854775807\" height=\"9223372036854775807\" bitrate=\"-5\">https://c.example/a.mp4</MediaFile>"
        let fine = "<MediaFile delivery=\"progressive\" type=\"video/mp4\" width=\"640\" height=\"360\">https://c.example/b.mp4</MediaFile>"
        let document = try VASTDocument(Data("<VAST>\(ad("00:00:05", files: huge + fine))</VAST>".utf8))
        guard case .inline(let creatives)? = document.ads.first?.kind, let creative = creatives.first else {
            Issue.record("the ad reads")
            return
        }
        #expect(creative.mediaFiles.first?.width == nil && creative.mediaFiles.first?.bitrate == nil)
        #expect(creative.conditioningSource == "https://c.example/b.mp4")
        // 5,000 ads: the first 32 read, the rest counted; 500 impressions: 64 kept.
        let many = String(repeating: ad("00:00:05"), count: 5_000)
        let crowd = try VASTDocument(Data("<VAST>\(many)</VAST>".utf8))
        #expect(crowd.ads.count == AdServerLimits.maxAdsPerDocument && crowd.unread == 5_000 - AdServerLimits.maxAdsPerDocument)
        let pixels = String(repeating: "<Impression>https://t.example/i</Impression>", count: 500)
        let tracked = try VASTDocument(Data("<VAST><Ad><InLine>\(pixels)</InLine></Ad></VAST>".utf8))
        #expect(tracked.ads.first?.impressions.count == AdServerLimits.maxListEntries)
    }
}

@Suite("VMAP documents")
struct VMAPTests {
    @Test("every timeOffset form, inline VAST and ad tags, break types and tracking")
    func breaks() throws {
        let vmap = try VMAPDocument(Fixture.data("vmap.xml"))
        #expect(
            vmap.breaks.map(\.offset) == [
                .start, .time(ExactDecimal(significand: 6005, exponent: 1)), .position(2), .percent(ExactDecimal(50)), .end,
            ]
        )
        #expect(vmap.breaks.map(\.id) == ["preroll", "mid-time", nil, nil, "postroll"])
        #expect(vmap.breaks.map(\.isLinear) == [true, true, true, false, true])
        guard case .inline(let pre)? = vmap.breaks[0].source else {
            Issue.record("the pre-roll's VAST is inline")
            return
        }
        #expect(pre.ads.first?.id == "pre")
        #expect(vmap.breaks[1].source == .adTag("https://ads.example/vast?pos=mid&t=600"))
        #expect(vmap.breaks[3].source == nil)
        #expect(vmap.breaks[0].tracking["breakStart"] == ["https://t.example/break/pre"])
        for bad in [
            "<VMAP><AdBreak timeOffset=\"soon\"/></VMAP>", "<VMAP><AdBreak timeOffset=\"150%\"/></VMAP>", "<VMAP><AdBreak/></VMAP>",
            "<VMAP><AdBreak timeOffset=\"9223372036854775807:00:00\"/></VMAP>", "<VMAP><AdBreak timeOffset=\"-5%\"/></VMAP>",
            "<VMAP><AdBreak timeOffset=\"#99999999999999999999\"/></VMAP>",
            "<VMAP>" + String(repeating: "<AdBreak timeOffset=\"start\"/>", count: AdServerLimits.maxBreaksPerVMAP + 1) + "</VMAP>",
        ] {
            #expect(throws: VASTError.self, "\(bad.prefix(80))") { try VMAPDocument(Data(bad.utf8)) }
        }
    }

    @Test("a percentage offset is of the programme's duration, exactly, however long the programme (VMAP 1.0.1 §2.4.1)")
    func percentOffsets() throws {
        let week = ExactDecimal(7 * 86_400)
        let cases: [(String, ExactDecimal, ExactDecimal)] = [
            ("50%", ExactDecimal(7200), ExactDecimal(3600)),
            ("99.5%", week, ExactDecimal(significand: 601_776, exponent: 0)),
            ("100%", week, week),
            ("0%", week, .zero),
            ("33.333%", ExactDecimal(100), ExactDecimal(significand: 33_333, exponent: 3)),
            ("12.5%", ExactDecimal(significand: 3456, exponent: 2), ExactDecimal(significand: 432, exponent: 2)),
        ]
        for (text, total, expected) in cases {
            let offset = try #require(VMAPDocument.Offset(text))
            #expect(offset.time(inProgrammeOf: total) == expected, "\(text) of \(total)")
        }
        #expect(VMAPDocument.Offset("#2")?.time(inProgrammeOf: week) == nil)
        #expect(VMAPDocument.Offset("end")?.time(inProgrammeOf: week) == week)
    }
}

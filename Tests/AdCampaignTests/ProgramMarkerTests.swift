import AdCampaign
import Foundation
import HLSPlaylist
import Testing

/// The breaks a single programme asset's ad markers give (docs/campaign-format.md "Markers"), one test per shape
/// packagers write — CUE, DATERANGE, OATCLS/SPLICEPOINT; insertion and replacement; mixed — each
/// checking every break (where, which kind, how long) and the programme segments kept, in order.
/// SCTE-35 payloads are real sections (``SpliceSection``), decoded and CRC-checked by the loader.
@Suite("Programme ad markers")
struct ProgramMarkerTests {
    static let root = URL(fileURLWithPath: "/campaigns/markers")
    static let master = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS=\"avc1.42c01e,mp4a.40.2\",RESOLUTION=640x360\nv0.m3u8\n"
    static let campaign = """
        version: 1
        id: markers
        pools: { prime: [ { id: alpha, playlist: a/master.m3u8 } ] }
        program: { playlist: p/master.m3u8, breaks: markers }
        marker_breaks: { duration: 4, pools: [prime] }
        """
    static let dateTime = "#EXT-X-PROGRAM-DATE-TIME:2026-11-24T00:00:00.000Z"

    /// `count` segments `s0.ts`… of 4 s; `markers[i]` (lines) go before segment i, `markers[count]`
    /// after the last. Dated from 2026-11-24T00:00:00Z when `dated`.
    static func programme(_ markers: [Int: String], count: Int = 10, dated: Bool = false) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n" + (dated ? Self.dateTime + "\n" : "")
        for index in 0..<count {
            if let marker = markers[index] { text += marker + "\n" }
            text += "#EXTINF:4.000,\ns\(index).ts\n"
        }
        if let marker = markers[count] { text += marker + "\n" }
        return text + "#EXT-X-ENDLIST\n"
    }

    static func load(_ programme: String) throws(CampaignError) -> Campaign {
        let ad = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:4.000,\nad0.ts\n#EXT-X-ENDLIST\n"
        let playlists = ["p/master.m3u8": Self.master, "p/v0.m3u8": programme, "a/master.m3u8": Self.master, "a/v0.m3u8": ad]
        return try CampaignLoader.load(
            yaml: Self.campaign,
            file: Self.root.appendingPathComponent("campaign.yaml"),
            source: .memory(playlists, root: Self.root)
        )
    }

    /// The programme as it plays: each island's segments, each break where it sits —
    /// `[insert ID at CUT +DURATION]` or `[replace ID at CUT of REPLACED +DURATION]`, in seconds.
    static func timeline(_ campaign: Campaign) -> [String] {
        func describe(_ adBreak: AdBreak) -> String {
            let cut = adBreak.placement?.cut.description ?? "?"
            guard let replaced = adBreak.placement?.replaced else { return "[insert \(adBreak.id) at \(cut) +\(adBreak.duration)]" }
            return "[replace \(adBreak.id) at \(cut) of \(replaced) +\(adBreak.duration)]"
        }
        var timeline: [String] = []
        for island in campaign.islands {
            timeline += campaign.breaks.filter { $0.position == .before(island: island.id) }.map(describe)
            timeline += island.asset.variants[0].playlist.segments.map { String($0.uri) }
        }
        if let last = campaign.islands.last {
            timeline += campaign.breaks.filter { $0.position == .after(island: last.id) }.map(describe)
        }
        return timeline
    }

    /// The 1-based line of the `occurrence`th line of `text` that starts with `prefix`.
    static func line(_ prefix: String, in text: String, occurrence: Int = 1) -> Int {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let matches = lines.indices.filter { lines[$0].hasPrefix(prefix) }
        return matches.count >= occurrence ? matches[occurrence - 1] + 1 : 0
    }

    /// `START-DATE` text `seconds` after the programme's first date-time (under an hour).
    static func date(_ seconds: Int) -> String {
        "2026-11-24T00:\(String(format: "%02d:%02d", seconds / 60, seconds % 60)).000Z"
    }

    /// The loaded campaign's marker warnings, which the tests of usable markers expect to be none.
    static func markerWarnings(_ campaign: Campaign) -> [String] {
        campaign.warnings.filter { $0.field == "marker" }.map { "line \($0.line): \($0.message)" }
    }

    static let out = SpliceSection.hex(SpliceSection.insert(eventID: 42, outOfNetwork: true))
    static let outFor8 = SpliceSection.hex(SpliceSection.insert(eventID: 42, outOfNetwork: true, breakDuration: SpliceSection.ticks(8)))
    static let back = SpliceSection.hex(SpliceSection.insert(eventID: 42, outOfNetwork: false))

    // MARK: CUE

    @Test("CUE insertion points: EXT-X-CUE-OUT:0 with its EXT-X-CUE-IN, and EXT-X-CUE-OUT:0 alone")
    func cueInsertion() throws {
        let text = Self.programme([2: "#EXT-X-CUE-OUT:0\n#EXT-X-CUE-IN", 6: "#EXT-X-CUE-OUT:0"])
        let campaign = try Self.load(text)
        #expect(Self.markerWarnings(campaign).isEmpty)
        let (first, second) = (Self.line("#EXT-X-CUE-OUT", in: text), Self.line("#EXT-X-CUE-OUT", in: text, occurrence: 2))
        #expect(
            Self.timeline(campaign) == [
                "s0.ts", "s1.ts", "[insert cue-\(first) at 8 +4]", "s2.ts", "s3.ts", "s4.ts", "s5.ts",
                "[insert cue-\(second) at 24 +4]", "s6.ts", "s7.ts", "s8.ts", "s9.ts",
            ]
        )
    }

    @Test("CUE replacements: closed by EXT-X-CUE-IN, and by their own duration when nothing closes them")
    func cueReplacement() throws {
        let text = Self.programme([3: "#EXT-X-CUE-OUT:8", 4: "#EXT-X-CUE-OUT-CONT:4/8", 5: "#EXT-X-CUE-IN", 7: "#EXT-X-CUE-OUT:DURATION=8"])
        let campaign = try Self.load(text)
        #expect(Self.markerWarnings(campaign).isEmpty)
        let (first, second) = (Self.line("#EXT-X-CUE-OUT:8", in: text), Self.line("#EXT-X-CUE-OUT:DURATION", in: text))
        #expect(
            Self.timeline(campaign) == [
                "s0.ts", "s1.ts", "s2.ts", "[replace cue-\(first) at 12 of 8 +8]", "s5.ts", "s6.ts",
                "[replace cue-\(second) at 28 of 8 +8]", "s9.ts",
            ]
        )
    }

    // MARK: DATERANGE

    @Test("DATERANGE insertion points: SCTE35-OUT (splice_insert, no break_duration) with PLANNED-DURATION=0 or DURATION=0, no end")
    func dateRangeInsertion() throws {
        let text = Self.programme(
            [
                2: "#EXT-X-DATERANGE:ID=\"ins-1\",START-DATE=\"\(Self.date(8))\",PLANNED-DURATION=0,SCTE35-OUT=\(Self.out)",
                6: "#EXT-X-DATERANGE:ID=\"ins-2\",START-DATE=\"\(Self.date(24))\",DURATION=0,SCTE35-OUT=\(Self.out)",
            ],
            dated: true
        )
        let campaign = try Self.load(text)
        #expect(Self.markerWarnings(campaign).isEmpty)
        #expect(
            Self.timeline(campaign) == [
                "s0.ts", "s1.ts",
                "[insert ins-1 at 8 +4]",
                "s2.ts", "s3.ts", "s4.ts", "s5.ts",
                "[insert ins-2 at 24 +4]",
                "s6.ts", "s7.ts", "s8.ts", "s9.ts",
            ]
        )
    }

    @Test("DATERANGE replacements: SCTE35-OUT … SCTE35-IN with the same ID, and SCTE35-CMD alone (time_signal with a duration)")
    func dateRangeReplacement() throws {
        let start = SpliceSection.hex(SpliceSection.timeSignal(eventID: 7, typeID: 0x34, duration: SpliceSection.ticks(8)))
        let text = Self.programme(
            [
                3: "#EXT-X-DATERANGE:ID=\"rep-1\",START-DATE=\"\(Self.date(12))\",PLANNED-DURATION=8,SCTE35-OUT=\(Self.outFor8)",
                5: "#EXT-X-DATERANGE:ID=\"rep-1\",START-DATE=\"\(Self.date(12))\",END-DATE=\"\(Self.date(20))\",SCTE35-IN=\(Self.back)",
                7: "#EXT-X-DATERANGE:ID=\"cmd-1\",START-DATE=\"\(Self.date(28))\",SCTE35-CMD=\(start)",
            ],
            dated: true
        )
        let campaign = try Self.load(text)
        #expect(Self.markerWarnings(campaign).isEmpty)
        #expect(
            Self.timeline(campaign) == [
                "s0.ts", "s1.ts", "s2.ts", "[replace rep-1 at 12 of 8 +8]", "s5.ts", "s6.ts", "[replace cmd-1 at 28 of 8 +8]", "s9.ts",
            ]
        )
    }

    // MARK: OATCLS and SPLICEPOINT

    @Test("OATCLS/SPLICEPOINT insertion points: a splice out and back in at one place; a placement opportunity's start and end at one place")
    func oatclsInsertion() throws {
        let out = SpliceSection.base64(SpliceSection.insert(eventID: 7, outOfNetwork: true))
        let back = SpliceSection.base64(SpliceSection.insert(eventID: 7, outOfNetwork: false))
        let start = SpliceSection.base64(SpliceSection.timeSignal(eventID: 9, typeID: 0x34))
        let end = SpliceSection.base64(SpliceSection.timeSignal(eventID: 9, typeID: 0x35))
        let text = Self.programme([
            2: "#EXT-OATCLS-SCTE35:\(out)\n#EXT-OATCLS-SCTE35:\(back)",
            6: "#EXT-X-SPLICEPOINT-SCTE35:\(start)\n#EXT-X-SPLICEPOINT-SCTE35:\(end)",
        ])
        let campaign = try Self.load(text)
        #expect(Self.markerWarnings(campaign).isEmpty)
        #expect(
            Self.timeline(campaign) == [
                "s0.ts", "s1.ts",
                "[insert scte-7 at 8 +4]",
                "s2.ts", "s3.ts", "s4.ts", "s5.ts",
                "[insert scte-9 at 24 +4]",
                "s6.ts", "s7.ts", "s8.ts", "s9.ts",
            ]
        )
    }

    @Test("OATCLS replacements: a splice_insert with break_duration closed by it; one without, closed by its splice back in")
    func oatclsReplacement() throws {
        let outFor8 = SpliceSection.base64(SpliceSection.insert(eventID: 42, outOfNetwork: true, breakDuration: SpliceSection.ticks(8)))
        let out = SpliceSection.base64(SpliceSection.insert(eventID: 43, outOfNetwork: true))
        let back = SpliceSection.base64(SpliceSection.insert(eventID: 43, outOfNetwork: false))
        let text = Self.programme([3: "#EXT-OATCLS-SCTE35:\(outFor8)", 6: "#EXT-OATCLS-SCTE35:\(out)", 8: "#EXT-OATCLS-SCTE35:\(back)"])
        let campaign = try Self.load(text)
        #expect(Self.markerWarnings(campaign).isEmpty)
        // scte-43 gives no duration: marker_breaks' 4 s fills it.
        #expect(
            Self.timeline(campaign) == [
                "s0.ts", "s1.ts", "s2.ts", "[replace scte-42 at 12 of 8 +8]", "s5.ts", "[replace scte-43 at 24 of 8 +4]", "s8.ts", "s9.ts",
            ]
        )
    }

    // MARK: Mixed

    @Test("every shape in one playlist: a date-range insertion point, then replacements and insertions of each kind")
    func mixed() throws {
        let timeSignal = SpliceSection.base64(SpliceSection.timeSignal(eventID: 11, typeID: 0x34, duration: SpliceSection.ticks(8)))
        let text = Self.programme(
            [
                1: "#EXT-X-DATERANGE:ID=\"point\",START-DATE=\"\(Self.date(4))\",PLANNED-DURATION=0,SCTE35-OUT=\(Self.out)",
                3: "#EXT-X-DATERANGE:ID=\"swap\",START-DATE=\"\(Self.date(12))\",PLANNED-DURATION=8,SCTE35-OUT=\(Self.outFor8)",
                5: "#EXT-X-DATERANGE:ID=\"swap\",START-DATE=\"\(Self.date(12))\",END-DATE=\"\(Self.date(20))\",SCTE35-IN=\(Self.back)",
                6: "#EXT-X-CUE-OUT:0\n#EXT-X-CUE-IN",
                8: "#EXT-X-CUE-OUT:4",
                9: "#EXT-X-CUE-IN",
                11: "#EXT-X-SPLICEPOINT-SCTE35:\(timeSignal)",
                14: "#EXT-X-PLACEMENT-OPPORTUNITY",
            ],
            count: 16,
            dated: true
        )
        let campaign = try Self.load(text)
        #expect(Self.markerWarnings(campaign).isEmpty)
        let (cueOut0, cueOut4) = (Self.line("#EXT-X-CUE-OUT:0", in: text), Self.line("#EXT-X-CUE-OUT:4", in: text))
        let placement = Self.line("#EXT-X-PLACEMENT-OPPORTUNITY", in: text)
        #expect(
            Self.timeline(campaign) == [
                "s0.ts",
                "[insert point at 4 +4]",
                "s1.ts", "s2.ts",
                "[replace swap at 12 of 8 +8]",
                "s5.ts",
                "[insert cue-\(cueOut0) at 24 +4]",
                "s6.ts", "s7.ts",
                "[replace cue-\(cueOut4) at 32 of 4 +4]",
                "s9.ts", "s10.ts",
                "[replace scte-11 at 44 of 8 +8]",
                "s13.ts",
                "[insert cue-\(placement) at 56 +4]",
                "s14.ts", "s15.ts",
            ]
        )
    }

    // MARK: Recovery

    @Test("a date-range insertion point without an end does not swallow the replacement after it")
    func insertionPointThenReplacement() throws {
        let text = Self.programme(
            [
                0: "#EXT-X-DATERANGE:ID=\"io-1\",START-DATE=\"\(Self.date(8))\",PLANNED-DURATION=0,SCTE35-OUT=\(Self.out)",
                4: "#EXT-X-DATERANGE:ID=\"br-1\",START-DATE=\"\(Self.date(20))\",PLANNED-DURATION=8,SCTE35-OUT=\(Self.outFor8)",
                9: "#EXT-X-DATERANGE:ID=\"br-1\",START-DATE=\"\(Self.date(20))\",END-DATE=\"\(Self.date(28))\",SCTE35-IN=\(Self.back)",
            ],
            dated: true
        )
        let campaign = try Self.load(text)
        #expect(Self.markerWarnings(campaign).isEmpty)
        #expect(campaign.breaks.count == 2)
        #expect(
            Self.timeline(campaign) == [
                "s0.ts", "s1.ts", "[insert io-1 at 8 +4]", "s2.ts", "s3.ts", "s4.ts", "[replace br-1 at 20 of 8 +8]", "s7.ts", "s8.ts", "s9.ts",
            ]
        )
    }

    @Test("a break that nothing ends and that has no duration is abandoned at the next opening, which still counts")
    func abandonedAtNextOpening() throws {
        let out = SpliceSection.base64(SpliceSection.insert(eventID: 5, outOfNetwork: true))
        let text = Self.programme([1: "#EXT-OATCLS-SCTE35:\(out)", 5: "#EXT-X-CUE-OUT:8", 7: "#EXT-X-CUE-IN"])
        let campaign = try Self.load(text)
        let (abandoned, resumed) = (Self.line("#EXT-OATCLS-SCTE35", in: text), Self.line("#EXT-X-CUE-OUT", in: text))
        #expect(
            Self.markerWarnings(campaign) == [
                "line \(resumed): a break starts here while the one opened on line \(abandoned) is still open (nothing ended it and it has no duration); "
                    + "reading resumes at line \(resumed) and the break opened at line \(abandoned) is abandoned; that break is skipped"
            ]
        )
        let warning = try #require(campaign.warnings.first { $0.field == "marker" })
        #expect(warning.file == "/campaigns/markers/p/v0.m3u8")
        #expect(
            Self.timeline(campaign) == [
                "s0.ts", "s1.ts", "s2.ts", "s3.ts", "s4.ts", "[replace cue-\(resumed) at 20 of 8 +8]", "s7.ts", "s8.ts", "s9.ts",
            ]
        )
    }

    @Test("an open break whose duration runs past the next opening is abandoned there; one whose duration ends before it closes")
    func settledAtNextOpening() throws {
        let text = Self.programme([1: "#EXT-X-CUE-OUT:4", 3: "#EXT-X-CUE-OUT:20", 5: "#EXT-X-CUE-OUT:8", 7: "#EXT-X-CUE-IN"])
        let campaign = try Self.load(text)
        let lines = (1...3).map { Self.line("#EXT-X-CUE-OUT", in: text, occurrence: $0) }
        #expect(
            Self.markerWarnings(campaign) == [
                "line \(lines[2]): a break starts here while the one opened on line \(lines[1]) is still open (nothing ended it and its 20 s run past here); "
                    + "reading resumes at line \(lines[2]) and the break opened at line \(lines[1]) is abandoned; that break is skipped"
            ]
        )
        #expect(
            Self.timeline(campaign) == [
                "s0.ts",
                "[replace cue-\(lines[0]) at 4 of 4 +4]",
                "s2.ts", "s3.ts", "s4.ts",
                "[replace cue-\(lines[2]) at 20 of 8 +8]",
                "s7.ts", "s8.ts", "s9.ts",
            ]
        )
    }

    @Test("an end with another id leaves the open break open: its own end still closes it")
    func endOfAnotherBreak() throws {
        let text = Self.programme(
            [
                3: "#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"\(Self.date(12))\",PLANNED-DURATION=8,SCTE35-OUT=\(Self.outFor8)",
                4: "#EXT-X-DATERANGE:ID=\"b\",START-DATE=\"\(Self.date(12))\",END-DATE=\"\(Self.date(16))\",SCTE35-IN=\(Self.back)",
                5: "#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"\(Self.date(12))\",END-DATE=\"\(Self.date(20))\",SCTE35-IN=\(Self.back)",
            ],
            dated: true
        )
        let campaign = try Self.load(text)
        let (opening, stray) = (Self.line("#EXT-X-DATERANGE:ID=\"a\"", in: text), Self.line("#EXT-X-DATERANGE:ID=\"b\"", in: text))
        #expect(
            Self.markerWarnings(campaign) == [
                "line \(stray): the break ending here (b) is not the one open (a, line \(opening)); "
                    + "this end marker is skipped and the break opened at line \(opening) stays open"
            ]
        )
        #expect(Self.timeline(campaign) == ["s0.ts", "s1.ts", "s2.ts", "[replace a at 12 of 8 +8]", "s5.ts", "s6.ts", "s7.ts", "s8.ts", "s9.ts"])
    }

    @Test("an end after a zero-duration opening ends nothing: the opening is an insertion point, the warning says so")
    func endAfterZeroDuration() throws {
        let text = Self.programme([2: "#EXT-X-CUE-OUT:0", 4: "#EXT-X-CUE-IN"])
        let campaign = try Self.load(text)
        let (opening, end) = (Self.line("#EXT-X-CUE-OUT", in: text), Self.line("#EXT-X-CUE-IN", in: text))
        #expect(
            Self.markerWarnings(campaign) == [
                "line \(end): a break ends here but none is open (the one on line \(opening) has duration 0: an insertion point); that break is skipped"
            ]
        )
        #expect(
            Self.timeline(campaign) == [
                "s0.ts", "s1.ts", "[insert cue-\(opening) at 8 +4]", "s2.ts", "s3.ts", "s4.ts", "s5.ts", "s6.ts", "s7.ts", "s8.ts", "s9.ts",
            ]
        )
    }
}

/// ``SpliceSection`` writes what an independent encoder writes: sections made with threefive for
/// the stitching tests, byte for byte (so their CRC_32 too).
@Suite("SCTE-35 sections for tests")
struct SpliceSectionBuilderTests {
    @Test("splice_insert out with an 8 s break and back in; time_signal placement opportunity start (8 s) and end")
    func matchesThreefive() {
        #expect(
            SpliceSection.base64(SpliceSection.insert(eventID: 42, outOfNetwork: true, breakDuration: SpliceSection.ticks(8)))
                == "/DAlAAAAAAAAAP/wFAUAAAAqf+/+ABt3QP4ACvyAAAEAAAAAKLcVEw=="
        )
        #expect(SpliceSection.base64(SpliceSection.insert(eventID: 42, outOfNetwork: false)) == "/DAgAAAAAAAAAP/wDwUAAAAqf0/+ABt3QAABAAAAALjGeoE=")
        #expect(
            SpliceSection.hex(SpliceSection.insert(eventID: 42, outOfNetwork: false))
                == "0xFC302000000000000000FFF00F050000002A7F4FFE001B7740000100000000B8C67A81"
        )
        #expect(
            SpliceSection.base64(SpliceSection.timeSignal(eventID: 7, typeID: 0x34, duration: SpliceSection.ticks(8)))
                == "/DAsAAAAAAAAAP/wBQb+ABt3QAAWAhRDVUVJAAAAB3//AAAK/IAPADQAAGdLT8g="
        )
        #expect(
            SpliceSection.base64(SpliceSection.timeSignal(eventID: 7, typeID: 0x35)) == "/DAnAAAAAAAAAP/wBQb+ABt3QAARAg9DVUVJAAAAB3+/DwA1AABbVWNW"
        )
    }
}

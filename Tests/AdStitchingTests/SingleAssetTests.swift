import AdCampaign
import AdDecision
import Foundation
import HLSPlaylist
import Testing

@testable import AdStitching

/// One programme asset cut at its breaks (docs/campaign-format.md "One programme asset"): breaks from its CUE markers (an insertion
/// point, a replaced stretch) and at a programme time, filled and stitched like islands.
@Suite("A single programme asset")
struct SingleAssetTests {
    static let root = URL(fileURLWithPath: "/campaigns/single")
    static let master =
        "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS=\"avc1.42c01e,mp4a.40.2\",RESOLUTION=640x360\nv0.m3u8\n"
        + "#EXT-X-STREAM-INF:BANDWIDTH=400000,CODECS=\"avc1.42c01e,mp4a.40.2\",RESOLUTION=320x180\nv1.m3u8\n"

    /// Ten 4 s segments; `markers[i]` lines go before segment i.
    static func programme(_ markers: [Int: String] = [:]) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        for index in 0..<10 {
            if let marker = markers[index] { text += marker + "\n" }
            text += "#EXTINF:4.000,\ns\(index).ts\n"
        }
        if let marker = markers[10] { text += marker + "\n" }
        return text + "#EXT-X-ENDLIST\n"
    }

    /// An insertion point before s2 (8 s), a replaced stretch s5–s6 (20–28 s).
    static let marked = programme([
        2: "#EXT-X-CUE-OUT:0\n#EXT-X-CUE-IN",
        5: "#EXT-X-CUE-OUT:DURATION=8",
        6: "#EXT-X-CUE-OUT-CONT:ElapsedTime=4,Duration=8,SCTE35=/DAlAAAAAAAAAP/wFAUAAAABf+/+ANgNkv4AFH/4AAAAAAAAAAAA",
        7: "#EXT-X-CUE-IN",
    ])

    static func load(_ yaml: String, programme: String = Self.marked) throws(CampaignError) -> Campaign {
        let ad = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:4.000,\nad0.ts\n#EXT-X-ENDLIST\n"
        let playlists = [
            "p/master.m3u8": Self.master, "p/v0.m3u8": programme, "p/v1.m3u8": programme,
            "a/master.m3u8": Self.master, "a/v0.m3u8": ad, "a/v1.m3u8": ad,
        ]
        let text =
            "version: 1\nid: single\npools: { prime: [ { id: alpha, playlist: a/master.m3u8 }, { id: bravo, playlist: a/master.m3u8 } ] }\n" + yaml
        return try CampaignLoader.load(
            yaml: text,
            file: Self.root.appendingPathComponent("campaign.yaml"),
            source: .memory(playlists, root: Self.root)
        )
    }

    static let campaign = """
        program: { playlist: p/master.m3u8, breaks: markers }
        marker_breaks: { duration: 4, pools: [prime] }
        breaks:
          - { id: late, at: 34.0, duration: 4, pools: [prime], restrict: [skip] }
        """

    @Test("markers and at: cut the programme into virtual islands; the replaced segments are gone; content times skip them")
    func cutsAndStitches() throws {
        let campaign = try Self.load(Self.campaign)
        #expect(campaign.islands.map(\.id) == ["part-1", "part-2", "part-3", "part-4"])
        #expect(campaign.islands.map(\.asset.duration) == [8, 12, 4, 8])
        #expect(campaign.islands.map(\.contentStart) == [0, 8, 28, 32])
        let kinds = campaign.breaks.map { ($0.id, $0.placement?.replaced, $0.placement?.cut, $0.duration) }
        #expect(kinds.map(\.0) == ["cue-9", "cue-17", "late"], "break ids from the marker lines, then the campaign's")
        #expect(kinds.map(\.1) == [nil, 8, nil], "an insertion point, a replacement of 8 s, an insertion")
        #expect(kinds.map(\.2) == [8, 20, 32])
        #expect(kinds.map(\.3) == [4, 8, 4], "the replacement marker's own duration wins over marker_breaks")
        #expect(campaign.breaks.last?.placement?.requested == 34)
        #expect(
            campaign.warnings.contains {
                $0.message.contains("asked for at 34.0 s cuts at 32.000 s") || $0.message.contains("asked for at 34 s cuts at 32 s")
            },
            "\(campaign.warnings)"
        )

        let layout = try StitchLayout(campaign: campaign, uris: .relative(to: Self.root))
        let plan = Planner().plan(campaign, for: ViewerContext(session: "s-1", at: Date(timeIntervalSince1970: 1_795_800_000)))
        for rendition in layout.renditions {
            let text = try SessionRenderer(layout: layout).mediaPlaylist(plan, rendition: rendition)
            let uris = text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: "/").last.map(String.init) ?? "" }
            #expect(
                uris == ["s0.ts", "s1.ts", "ad0.ts", "s2.ts", "s3.ts", "s4.ts", "ad0.ts", "ad0.ts", "s7.ts", "ad0.ts", "s8.ts", "s9.ts"],
                "\(rendition.id): \(uris)"
            )
            #expect(!text.contains("CUE"), "the source's markers are not passed through")
            #expect(text.components(separatedBy: "#EXT-X-DISCONTINUITY\n").count == 8, "seven discontinuities between eight pieces")
            let parsed = try PlaylistParser().parseMediaPlaylist(text)
            #expect(parsed.duration == 48)
        }
        let manifest = BoundaryManifest(plan)
        #expect(manifest.islands.map(\.contentStart) == [0, 8, 28, 32])
        #expect(manifest.islands.map(\.start) == [0, 12, 32, 40])
        let report = PlanReport(plan)
        #expect(
            report.text.contains("Break cue-17: 24–32 s, 8 of 8 s from prime, replacing 8 s of programme at 20 s (marker on line 17)"),
            "\(report.text)"
        )
        #expect(
            report.text.contains("inserted at 32 s (asked for 34 s)") || report.text.contains("inserted at 32.000 s (asked for 34.0 s)"),
            "\(report.text)"
        )
    }

    @Test(
        "the programme's blocks are written on first use, rendition by rendition: a session's start writes none (its multivariant playlist's figures come from the playlists), a media playlist its own; an encrypted programme's start writes what declares its session keys"
    )
    func blocksWrittenOnFirstUse() throws {
        for encrypted in [false, true] {
            let key = "#EXT-X-KEY:METHOD=AES-128,URI=\"k.key\",IV=0x00000000000000000000000000000001"
            // Two cuts: the campaign's break at 34 s (the programme has no markers).
            let campaign = try Self.load(Self.campaign, programme: Self.programme(encrypted ? [0: key] : [:]))
            let layout = try StitchLayout(campaign: campaign, uris: .relative(to: Self.root))
            let renderer = SessionRenderer(layout: layout)
            let plan = Planner().plan(campaign, for: ViewerContext(session: "s-1", at: Date(timeIntervalSince1970: 1_795_800_000)))
            let cuts = try campaign.islands.map { island throws in try layout.row(island.asset) }
            let whole = try layout.row(try #require(campaign.programAsset))
            #expect(
                cuts.count == 2 && cuts.allSatisfy { $0.written.isEmpty } && whole.written.isEmpty,
                "nothing written at load: \(cuts.map(\.written)) \(whole.written)"
            )

            let master = try renderer.multivariant(plan, playlistURI: { "\($0.id).m3u8" }, boundariesURI: "b.json")
            #expect(master.contains("#EXT-X-SESSION-KEY:METHOD=AES-128,URI=\"p/k.key\"") == encrypted, "\(master)")
            // The programme's session keys are its blocks' own: the encrypted cuts are written to list them.
            #expect(cuts.allSatisfy { $0.written == (encrypted ? [0, 1] : []) }, "\(cuts.map(\.written))")
            #expect(whole.written.isEmpty, "a stitched session never plays the programme whole")

            let second = try #require(layout.renditions.last)
            let text = try renderer.mediaPlaylist(plan, rendition: second)
            #expect(text.hasSuffix("p/s9.ts\n#EXT-X-ENDLIST\n"), "\(text)")
            #expect(cuts.allSatisfy { $0.written == (encrypted ? [0, 1] : [1]) }, "\(cuts.map(\.written))")
            #expect(try renderer.mediaPlaylist(plan, rendition: second) == text)
        }
    }

    // SCTE-35 sections (made with threefive, checked by the SCTE35 module's CRC): splice_insert
    // out of the network with an 8 s break (event 42) and back in; time_signal placement
    // opportunity start with 8 s (event 7) and end.
    static let insertOut = "/DAlAAAAAAAAAP/wFAUAAAAqf+/+ABt3QP4ACvyAAAEAAAAAKLcVEw=="
    static let insertIn = "/DAgAAAAAAAAAP/wDwUAAAAqf0/+ABt3QAABAAAAALjGeoE="
    static let insertOutHex = "0xFC302500000000000000FFF014050000002A7FEFFE001B7740FE000AFC8000010000000028B71513"
    static let insertInHex = "0xFC302000000000000000FFF00F050000002A7F4FFE001B7740000100000000B8C67A81"
    static let placementStart = "/DAsAAAAAAAAAP/wBQb+ABt3QAAWAhRDVUVJAAAAB3//AAAK/IAPADQAAGdLT8g="
    static let placementEnd = "/DAnAAAAAAAAAP/wBQb+ABt3QAARAg9DVUVJAAAAB3+/DwA1AABbVWNW"
    static let dateTime = "#EXT-X-PROGRAM-DATE-TIME:2026-11-24T00:00:00.000Z"

    @Test(
        "each marker shape packagers write cuts the same replacement (20–28 s), with its id",
        arguments: [
            ([5: "#EXT-X-CUE-OUT:8", 7: "#EXT-X-CUE-IN"], "cue-", true),
            (
                [
                    0: dateTime,
                    5: "#EXT-X-DATERANGE:ID=\"splice-42\",START-DATE=\"2026-11-24T00:00:20.000Z\",PLANNED-DURATION=8,SCTE35-OUT=\(insertOutHex)",
                    7:
                        "#EXT-X-DATERANGE:ID=\"splice-42\",START-DATE=\"2026-11-24T00:00:20.000Z\",END-DATE=\"2026-11-24T00:00:28.000Z\",SCTE35-IN=\(insertInHex)",
                ],
                "splice-42", true
            ),
            (
                [0: dateTime, 5: "#EXT-X-DATERANGE:ID=\"po 7\",START-DATE=\"2026-11-24T00:00:20.000Z\",SCTE35-CMD=\(insertOutHex)"],
                "po-7", true
            ),
            ([5: "#EXT-OATCLS-SCTE35:\(insertOut)", 7: "#EXT-OATCLS-SCTE35:\(insertIn)"], "scte-42", true),
            ([5: "#EXT-X-SPLICEPOINT-SCTE35:\(placementStart)", 7: "#EXT-X-SPLICEPOINT-SCTE35:\(placementEnd)"], "scte-7", true),
            ([5: "#EXT-OATCLS-SCTE35:\(insertOut)\n#EXT-X-CUE-OUT:8", 7: "#EXT-X-CUE-IN\n#EXT-OATCLS-SCTE35:\(insertIn)"], "scte-42", true),
            ([5: "#EXT-X-PLACEMENT-OPPORTUNITY"], "cue-", false),
            // Both date ranges written at the top: placed by START-DATE and END-DATE on the
            // PROGRAM-DATE-TIME timeline, not where they stand.
            (
                [
                    0: dateTime
                        + "\n#EXT-X-DATERANGE:ID=\"top-42\",START-DATE=\"2026-11-24T00:00:20.000Z\",PLANNED-DURATION=8,SCTE35-OUT=\(insertOutHex)"
                        + "\n#EXT-X-DATERANGE:ID=\"top-42\",START-DATE=\"2026-11-24T00:00:20.000Z\",END-DATE=\"2026-11-24T00:00:28.000Z\",SCTE35-IN=\(insertInHex)"
                ],
                "top-42", true
            ),
        ]
    )
    func markerShapes(_ markers: [Int: String], _ id: String, _ replaces: Bool) throws {
        let campaign = try Self.load(Self.markerCampaign, programme: Self.programme(markers))
        #expect(campaign.warnings.filter { $0.field == "marker" }.isEmpty, "\(campaign.warnings)")
        let adBreak = try #require(campaign.breaks.first)
        #expect(campaign.breaks.count == 1)
        #expect(adBreak.id.hasPrefix(id), "\(adBreak.id)")
        #expect(adBreak.placement?.cut == 20)
        #expect(adBreak.placement?.replaced == (replaces ? 8 : nil))
        #expect(adBreak.duration == (replaces ? 8 : 4))
        #expect(campaign.islands.map(\.asset.duration) == (replaces ? [20, 12] : [20, 20]))
    }

    @Test("markers_passthrough keeps the programme's own marker tags before the segments they stand before; replaced ones go")
    func passthrough() throws {
        let campaign = try Self.load(Self.campaign + "\nmarkers_passthrough: true")
        let layout = try StitchLayout(campaign: campaign, uris: .relative(to: Self.root))
        let plan = Planner().plan(campaign, for: ViewerContext(session: "s-1", at: Date(timeIntervalSince1970: 1_795_800_000)))
        for rendition in layout.renditions {
            let text = try SessionRenderer(layout: layout).mediaPlaylist(plan, rendition: rendition)
            #expect(text.contains("#EXT-X-DISCONTINUITY\n#EXT-X-CUE-OUT:0\n#EXT-X-CUE-IN\n#EXTINF:4.000,\np/s2.ts\n"), "\(text)")
            #expect(text.contains("#EXT-X-DISCONTINUITY\n#EXT-X-CUE-IN\n#EXTINF:4.000,\np/s7.ts\n"), "\(text)")
            #expect(!text.contains("DURATION=8") && !text.contains("CUE-OUT-CONT"), "the replaced stretch's markers go with it")
            #expect(PlaylistLinter().lint(try PlaylistParser().parseMediaPlaylist(text)).filter { $0.severity == .error }.isEmpty)
        }
    }

    static let markerCampaign = "program: { playlist: p/master.m3u8, breaks: markers }\nmarker_breaks: { duration: 4, pools: [prime] }\n"

    @Test(
        "a marker that cannot be used is skipped with a warning at its playlist line; the rest still cut",
        arguments: [
            (programme([3: "#EXT-X-CUE-IN"]), 11, "a break ends here but none is open", 0),
            (programme([3: "#EXT-X-CUE-OUT"]), 11, "a break starts here without a duration and nothing ends it", 0),
            (programme([3: "#EXT-X-CUE-OUT:8", 4: "#EXT-X-CUE-OUT:8", 6: "#EXT-X-CUE-IN"]), 14, "is still open", 1),
            (
                programme([3: "#EXT-OATCLS-SCTE35:/DAlAAAAAAAAAP/wFAUAAAAqf+/+ABt3QP4ACvyAAAEAAAAAKLcVFA=="]), 11,
                "the SCTE-35 section does not decode: CRC_32", 0
            ),
        ]
    )
    func skippedMarkers(_ programme: String, _ line: Int, _ message: String, _ breaks: Int) throws {
        let campaign = try Self.load(Self.markerCampaign, programme: programme)
        let warning = campaign.warnings.first { $0.message.contains(message) }
        #expect(warning?.file == "/campaigns/single/p/v0.m3u8" && warning?.line == line, "\(campaign.warnings)")
        #expect(warning?.message.hasSuffix("that break is skipped") == true)
        #expect(campaign.breaks.count == breaks)
    }

    @Test(
        "break errors name the campaign line and what to do",
        arguments: [
            ("  - { id: inside, at: 22, duration: 4, pools: [prime] }", "overlaps break \"inside\""),
            ("  - { id: past, at: 41, duration: 4, pools: [prime] }", "is past the programme's end"),
            ("  - { id: nosuch, pools: [prime] }", "has no at: and no marker of the programme has that id"),
            ("  - { id: wrong, after: part-1, duration: 4, pools: [prime] }", "has no islands to name; give the break's programme time with at:"),
        ]
    )
    func errors(_ entry: String, _ message: String) {
        let error = #expect(throws: CampaignError.self) { try Self.load(Self.markerCampaign + "breaks:\n" + entry) }
        let issue = error?.issues.first { $0.message.contains(message) }
        #expect(issue != nil, "\(String(describing: error))")
        #expect(issue?.file == "/campaigns/single/campaign.yaml" && (issue?.line ?? 0) >= 4, "\(String(describing: issue))")
    }

    @Test("a breaks: entry with a marker's id sets its duration, pools and restrict")
    func markerOverride() throws {
        let campaign = try Self.load(Self.markerCampaign + "breaks:\n  - { id: cue-9, duration: 8, pools: [prime], restrict: [skip, jump] }")
        let insertion = try #require(campaign.breaks.first { $0.id == "cue-9" })
        #expect(insertion.duration == 8 && insertion.restrict == [.skip, .jump] && insertion.placement?.replaced == nil)
        // The replacement keeps its own duration (8 s, the marker's) and marker_breaks' settings.
        let replacement = try #require(campaign.breaks.first { $0.id == "cue-17" })
        #expect(replacement.duration == 8 && replacement.restrict.isEmpty)
    }

    @Test("at: needs a single programme asset")
    func atNeedsOneAsset() {
        let yaml = "program: { islands: [ { id: a, playlist: p/master.m3u8 } ] }\nbreaks:\n  - { id: b, at: 4, duration: 4, pools: [prime] }"
        let error = #expect(throws: CampaignError.self) { try Self.load(yaml) }
        #expect(
            error?.issues.contains { $0.field == "breaks[0].at" && $0.message.contains("with islands, place breaks before: or after:") } == true,
            "\(String(describing: error))"
        )
    }
}

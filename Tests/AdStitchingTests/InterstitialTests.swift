import AdCampaign
import AdDecision
import AdStitching
import Foundation
import HLSPlaylist
import Testing

/// Interstitial sessions (RFC 8216bis Appendix D; docs/architecture.md "Interstitial sessions"),
/// judged from their rendered files as a player reads them: the demos' 50 varied viewers each.
@Suite("HLS Interstitials output")
struct InterstitialTests {
    /// One viewer's interstitial session: every file rendered, playlists parsed back.
    struct Session {
        let stitched: StitchedSession
        let files: [String: String]
        let playlists: [String: MediaPlaylist]

        init(_ stitched: StitchedSession) throws {
            self.stitched = stitched
            var files: [String: String] = [:]
            var playlists: [String: MediaPlaylist] = [:]
            for rendered in try SessionRenderer(layout: stitched.layout).session(.interstitials).renderAll(stitched.plan) {
                files[rendered.file.name] = rendered.text
                if case .playlist(let rendition) = rendered.file { playlists[rendition.id] = try PlaylistParser().parseMediaPlaylist(rendered.text) }
            }
            self.files = files
            self.playlists = playlists
        }

        var plan: Plan { self.stitched.plan }
        var description: String { self.stitched.description }
    }

    static func sessions(_ demo: Demo) throws -> [Session] {
        try DemoSessions.of(demo).sessions.map(Session.init)
    }

    /// The `EXT-X-DATERANGE` lines of a playlist text, in order.
    static func dateRangeLines(_ text: String) -> [String] {
        text.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-DATERANGE:") }.map(String.init)
    }

    @Test(
        "every primary playlist: lint-clean, PDT before the first DATERANGE, the same unique date ranges in every rendition, no ads",
        arguments: Demo.allCases
    )
    func primaryPlaylists(_ demo: Demo) throws {
        for session in try Self.sessions(demo) {
            let schedule = InterstitialSchedule(session.plan)
            var reference: [String]?
            for rendition in session.stitched.renditions {
                let text = try #require(session.files["\(rendition.id).m3u8"])
                let playlist = try #require(session.playlists[rendition.id])
                let errors = PlaylistLinter().lint(playlist).filter { $0.severity == .error }
                #expect(errors.isEmpty, "\(rendition.id) of \(session.description): \(errors)")
                let lines = text.split(separator: "\n")
                let pdt = lines.firstIndex { $0.hasPrefix("#EXT-X-PROGRAM-DATE-TIME:") }
                let firstRange = lines.firstIndex { $0.hasPrefix("#EXT-X-DATERANGE:") }
                if let firstRange { #expect(pdt.map { $0 < firstRange } == true, "\(rendition.id): PDT must come first") }
                let ranges = Self.dateRangeLines(text)
                #expect(ranges.count == schedule.interstitials.count)
                if let reference { #expect(ranges == reference, "\(rendition.id) of \(session.description): date ranges differ") }
                reference = reference ?? ranges
                let ids = playlist.dateRanges.compactMap(\.dateRange.id)
                #expect(Set(ids).count == ids.count, "ids unique: \(ids)")
                #expect(!lines.contains { $0.hasPrefix("#EXT-X-CUE") }, "no stitched markers in a primary playlist")
                // The primary alone: its pieces and nothing else, exactly.
                let pieces = StitchedSession.pieces(of: playlist)
                #expect(pieces.count == schedule.primary.count)
                if case .video = rendition.kind { #expect(playlist.duration == schedule.duration, "\(rendition.id) of \(session.description)") }
            }
        }
    }

    @Test("every interstitial date range: required attributes, quoting, times, cues, restrictions", arguments: Demo.allCases)
    func dateRangeAttributes(_ demo: Demo) throws {
        for session in try Self.sessions(demo) {
            let schedule = InterstitialSchedule(session.plan)
            let playlist = try #require(session.playlists["v0"])
            let text = try #require(session.files["v0.m3u8"])
            let anchor = try #require(playlist.segments.first?.programDateTime.flatMap { DateTime($0) })
            #expect(playlist.dateRanges.count == schedule.interstitials.count)
            for (entry, interstitial) in zip(playlist.dateRanges, schedule.interstitials) {
                let range = entry.dateRange
                let adBreak = interstitial.planned.adBreak
                #expect(range.id == adBreak.id)
                #expect(range.isInterstitial)
                let start = try #require(range.startDate.flatMap { DateTime($0) })
                let offset = interstitial.isPostRoll ? schedule.duration : interstitial.start
                #expect(
                    ((start.secondsSinceEpoch - anchor.secondsSinceEpoch) * 1000).roundedToInteger == (offset * 1000).roundedToInteger,
                    "\(adBreak.id): START-DATE \(range.startDate ?? "") for primary time \(offset)"
                )
                #expect(range.cue.contains("PRE") == (offset == .zero && !interstitial.isPostRoll))
                #expect(range.cue.contains("POST") == interstitial.isPostRoll)
                #expect(range.cue.contains("ONCE") == adBreak.once)
                let attributes = range.attributes
                // Appendix D.4: the asset list names the interstitial it is of.
                #expect(attributes.string("X-ASSET-LIST") == "assets-\(adBreak.id).json?_HLS_interstitial_id=\(adBreak.id)")
                #expect(attributes.decimal("X-RESUME-OFFSET") == (adBreak.placement?.replaced ?? .zero))
                #expect(attributes.decimal("X-PLAYOUT-LIMIT") == adBreak.duration)
                #expect(range.duration == (interstitial.isReplacement ? interstitial.resumeOffset : interstitial.planned.duration))
                let restrict = attributes.string("X-RESTRICT").map { Set($0.split(separator: ",").map(String.init)) } ?? []
                #expect(restrict == Set(adBreak.restrict.names.map { $0.uppercased() }))
                #expect(attributes.string("X-TIMELINE-OCCUPIES") == (interstitial.isReplacement ? "RANGE" : "POINT"))
                #expect(attributes.string("X-TIMELINE-STYLE") == "HIGHLIGHT")
                // Quoted where Appendix D says quoted-string, bare where a number.
                let line = try #require(Self.dateRangeLines(text).first { $0.contains("ID=\"\(adBreak.id)\"") })
                for quoted in ["ID", "CLASS", "START-DATE", "X-ASSET-LIST", "X-TIMELINE-OCCUPIES", "X-TIMELINE-STYLE", "X-AD-CREATIVE-SIGNALING"] {
                    #expect(line.contains("\(quoted)=\""), "\(quoted) is quoted: \(line)")
                }
                for number in ["DURATION", "X-RESUME-OFFSET", "X-PLAYOUT-LIMIT"] {
                    #expect(line.contains(",\(number)=") && !line.contains("\(number)=\""), "\(number) is a number: \(line)")
                }
                // SVTA 2053-2: the break's ads, base64 JSON, in play order.
                let signaling = try #require(attributes.string("X-AD-CREATIVE-SIGNALING").flatMap { Data(base64Encoded: $0) })
                let json = try ExactJSON.parse(String(decoding: signaling, as: UTF8.self))
                #expect(json["type"]?.string == "slot")
                #expect(
                    json["payload"]?.items?.compactMap { $0["identifiers"]?.items?.first?["value"]?.string } == interstitial.planned.ads.map(\.id)
                )
            }
        }
    }

    @Test("every asset list: matches docs/asset-list.schema.json, the break's pieces in order with exact durations", arguments: Demo.allCases)
    func assetLists(_ demo: Demo) throws {
        let schema = try ManifestSchema.assetList.get()
        let uris = Demo.uris(for: try demo.campaign())
        for session in try Self.sessions(demo) {
            let schedule = InterstitialSchedule(session.plan)
            for interstitial in schedule.interstitials {
                let text = try #require(session.files["assets-\(interstitial.id).json"], "\(interstitial.id) of \(session.description)")
                let json = try ExactJSON.parse(text)
                #expect(schema.violations(of: json) == [], "\(interstitial.id) of \(session.description)")
                let assets = try #require(json["ASSETS"]?.items)
                #expect(assets.compactMap { $0["URI"]?.string } == interstitial.pieces.map { uris.write($0.asset.url, as: .media) })
                #expect(assets.compactMap { $0["DURATION"]?.decimal } == interstitial.pieces.map(\.duration))
                #expect(assets.compactMap { $0["DURATION"]?.decimal }.sum() == interstitial.planned.duration)
            }
            // A break that plays has a list; one that does not has none.
            let listed = Set(session.files.keys.filter { $0.hasPrefix("assets-") })
            #expect(listed == Set(schedule.interstitials.map { "assets-\($0.id).json" }))
        }
    }

    /// A break nothing fills (no ad the viewer may get, no slate) does not play: its asset list is
    /// a file the session's kind knows by name but this session does not have — the server's
    /// 404, not a failure to stitch.
    @Test("a break nothing fills: no interstitial, no asset list in the session's files, and asked for, a file the session does not have")
    func unfilledBreak() throws {
        let file = Repository.campaign(Demo.eveningNews.rawValue)
        let yaml = try String(contentsOf: file, encoding: .utf8)
        let slate = "slate: { playlist: media/slate/master.m3u8 }\n"
        #expect(yaml.contains(slate))
        let edited = yaml.replacingOccurrences(of: slate, with: "").replacingOccurrences(
            of: "rules:\n",
            with: "rules:\n  - name: no-ads-in-french\n    when: { attributes: { locale: '^fr' } }\n    then: { exclude: ['.'] }\n"
        )
        let campaign = try CampaignLoader.load(yaml: edited, file: file)
        let kind = SessionRenderer(layout: try StitchLayout(campaign: campaign, uris: Demo.uris(for: campaign))).session(.interstitials)
        let french = Planner().plan(campaign, for: viewer(["locale": "fr-FR"], session: "unfilled", at: "2026-11-25T12:00:00Z"))
        #expect(InterstitialSchedule(french).interstitials.isEmpty)
        #expect(!kind.files(playing: french).contains { if case .assetList = $0 { true } else { false } })
        for adBreak in campaign.breaks {
            #expect(kind.file(named: "assets-\(adBreak.id).json") == .assetList(adBreak.id))
            #expect {
                try kind.render(.assetList(adBreak.id), french)
            } throws: {
                ($0 as? StitchError)?.reason == .notInSession
            }
        }
        // Another viewer's breaks play, and their lists render.
        let english = Planner().plan(campaign, for: viewer(["locale": "en-GB"], session: "filled", at: "2026-11-25T12:00:00Z"))
        #expect(!InterstitialSchedule(english).interstitials.isEmpty)
        for interstitial in InterstitialSchedule(english).interstitials {
            #expect(try kind.render(.assetList(interstitial.id), english).text.contains("\"ASSETS\""))
        }
    }

    /// `skip:` on a break: its date range offers the skip control (Appendix D: offset, duration,
    /// label), its asset list says the same (`SKIP-CONTROL`, within the list's schema); a break
    /// without one says nothing of skipping; a stitched session, whose breaks are its timeline's,
    /// has no such attribute anywhere.
    @Test(
        "skip: on a break: X-SKIP-CONTROL-OFFSET, -DURATION and -LABEL-ID on its date range, SKIP-CONTROL in its asset list; nothing on other breaks"
    )
    func skipControl() throws {
        let file = Repository.campaign(Demo.eveningNews.rawValue)
        let yaml = try String(contentsOf: file, encoding: .utf8)
        let midRoll = "pools: [prime, house], restrict: [skip, jump] }"
        #expect(yaml.contains(midRoll))
        let edited = yaml.replacingOccurrences(
            of: midRoll,
            with: "pools: [prime, house], restrict: [jump], skip: { after: 5, for: 4.5, label: skip-ad } }"
        )
        let campaign = try CampaignLoader.load(yaml: edited, file: file)
        #expect(campaign.breaks.first { $0.id == "mid-1" }?.skip == SkipControl(after: 5, duration: ExactDecimal("4.5"), label: "skip-ad"))
        let layout = try StitchLayout(campaign: campaign, uris: Demo.uris(for: campaign))
        let kind = SessionRenderer(layout: layout).session(.interstitials)
        let plan = Planner().plan(campaign, for: viewer(["locale": "en-GB"], session: "skip", at: "2026-11-25T12:00:00Z"))
        let primary = try PlaylistParser().parseMediaPlaylist(try kind.render(.playlist(layout.renditions[0]), plan).text)
        let ranges = primary.dateRanges.map(\.dateRange)
        let mid = try #require(ranges.first { $0.id == "mid-1" })
        #expect(mid.attributes.decimal("X-SKIP-CONTROL-OFFSET") == 5 && mid.attributes.decimal("X-SKIP-CONTROL-DURATION") == ExactDecimal("4.5"))
        #expect(mid.attributes.string("X-SKIP-CONTROL-LABEL-ID") == "skip-ad" && mid.attributes.string("X-RESTRICT") == "JUMP")
        for other in ranges where other.id != "mid-1" { #expect(other.attributes.decimal("X-SKIP-CONTROL-OFFSET") == nil) }
        let list = try ExactJSON.parse(try kind.render(.assetList("mid-1"), plan).text)
        #expect(try ManifestSchema.assetList.get().violations(of: list) == [])
        #expect(list["SKIP-CONTROL"]?["OFFSET"]?.decimal == 5 && list["SKIP-CONTROL"]?["DURATION"]?.decimal == ExactDecimal("4.5"))
        #expect(list["SKIP-CONTROL"]?["LABEL-ID"]?.string == "skip-ad")
        let preroll = try ExactJSON.parse(try kind.render(.assetList("preroll"), plan).text)
        #expect(preroll["SKIP-CONTROL"] == nil)
        let stitched = try SessionRenderer(layout: layout).session(.stitched).render(.playlist(layout.renditions[0]), plan).text
        #expect(!stitched.contains("SKIP-CONTROL"))
    }

    /// The property the two modes rest on: one session, one plan. The stitched playlist's ad
    /// pieces (traced to their source files) and the interstitial asset lists name the same ads
    /// in the same order, break by break, and the two manifests agree on every break and ad.
    @Test("the same session in both modes gets the same ads in the same order", arguments: Demo.allCases)
    func sameAdsInBothModes(_ demo: Demo) throws {
        let campaign = try demo.campaign()
        let uris = Demo.uris(for: campaign)
        var byURI: [String: String] = [:]
        for ad in campaign.ads { byURI[uris.write(ad.asset.url, as: .media)] = ad.id }
        if let slate = campaign.slate { byURI[uris.write(slate.url, as: .media)] = "slate" }
        // Each ad's and the slate's segment files in video, to trace stitched pieces to them.
        var bySegment: [String: String] = [:]
        for (id, asset) in campaign.ads.map({ ($0.id, $0.asset) }) + (campaign.slate.map { [("slate", $0)] } ?? []) {
            for variant in asset.variants {
                for segment in variant.playlist.segments {
                    let url = URL(string: String(segment.uri), relativeTo: variant.playlist.url)!.absoluteURL
                    bySegment[uris.write(url, as: .media)] = id
                }
            }
        }
        var compared = 0
        for session in try Self.sessions(demo) {
            // Stitched: the ad pieces of v0, in order.
            let video = try #require(session.stitched.renditions.first)
            let stitchedAds = StitchedSession.pieces(of: session.stitched.playlist(video))
                .compactMap { $0.first.flatMap { bySegment[String($0.uri)] } }
            // Interstitial: every asset list, in date-range order.
            let playlist = try #require(session.playlists["v0"])
            var interstitialAds: [String] = []
            for entry in playlist.dateRanges {
                let name = (entry.dateRange.attributes.string("X-ASSET-LIST") ?? "").split(separator: "?").first.map(String.init) ?? ""
                let list = try ExactJSON.parse(try #require(session.files[name]))
                interstitialAds += (list["ASSETS"]?.items ?? []).map { byURI[$0["URI"]?.string ?? ""] ?? "?" }
            }
            #expect(stitchedAds == interstitialAds, "\(session.description)")
            compared += stitchedAds.count
            // The manifests: the same breaks and ads at the same stream times.
            let stitched = try ExactJSON.parse(session.stitched.manifestText)
            let interstitial = try ExactJSON.parse(try #require(session.files["boundaries.json"]))
            #expect(interstitial["insertion"]?.string == "interstitials" && stitched["insertion"]?.string == "stitched")
            func ads(_ manifest: ExactJSON) -> [String] {
                (manifest["breaks"]?.items ?? []).flatMap { item in
                    (item["ads"]?.items ?? []).map { "\(item["id"]?.string ?? "")/\($0["id"]?.string ?? "")@\($0["start"]?.numberText ?? "")" }
                }
            }
            #expect(ads(stitched) == ads(interstitial), "\(session.description)")
            #expect(try ManifestSchema.shared.get().violations(of: interstitial) == [])
        }
        #expect(compared > 0, "some session has ads to compare")
    }

    @Test("the boundary manifest of an interstitial session places each break on the primary timeline", arguments: Demo.allCases)
    func manifestPrimaryPlacement(_ demo: Demo) throws {
        for session in try Self.sessions(demo) {
            let schedule = InterstitialSchedule(session.plan)
            let manifest = try ExactJSON.parse(try #require(session.files["boundaries.json"]))
            #expect(manifest["primaryDuration"]?.decimal == schedule.duration)
            let breaks = manifest["breaks"]?.items ?? []
            #expect(breaks.map { $0["id"]?.string } == schedule.interstitials.map(\.id))
            for (item, interstitial) in zip(breaks, schedule.interstitials) {
                #expect(item["primary"]?["start"]?.decimal == (interstitial.isPostRoll ? schedule.duration : interstitial.start))
                #expect(item["primary"]?["resumeOffset"]?.decimal == interstitial.resumeOffset)
            }
        }
    }

    /// The single-asset demo's replacements are cut on the first variant's boundaries; where
    /// another variant has none there, `X-SNAP` says so (and only there).
    @Test("X-SNAP where a video variant has no segment boundary at a break of one programme asset")
    func snap() throws {
        let campaign = try Demo.singleAsset.campaign()
        let programme = try #require(campaign.programAsset)
        let session = try #require(try Self.sessions(.singleAsset).first)
        let playlist = try #require(session.playlists["v0"])
        for entry in playlist.dateRanges {
            let adBreak = try #require(campaign.breaks.first { $0.id == entry.dateRange.id })
            let placement = try #require(adBreak.placement)
            func onEveryBoundary(_ time: ExactDecimal) -> Bool {
                programme.variants.allSatisfy { variant in
                    variant.playlist.segments.contains { $0.startTime == time } || variant.playlist.duration == time
                }
            }
            let snap = entry.dateRange.attributes.string("X-SNAP").map { Set($0.split(separator: ",").map(String.init)) } ?? []
            #expect(snap.contains("OUT") == !onEveryBoundary(placement.cut), "\(adBreak.id)")
            let resume = placement.replaced.map { placement.cut + $0 }
            #expect(snap.contains("IN") == (resume.map { !onEveryBoundary($0) } ?? false), "\(adBreak.id)")
        }
    }

    /// A programme whose second variant is segmented a little differently (within a frame, so it
    /// stitches): a break cut on the first variant's boundary at 2 s has no boundary in the second
    /// (`X-SNAP="OUT"`), one at 4 s has one in both (no `X-SNAP`).
    @Test("X-SNAP=OUT exactly where a variant has no boundary at the cut")
    func snapWhereVariantsDiffer() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("snap-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        func write(_ path: String, _ text: String) throws {
            let url = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        func media(_ durations: [String], prefix: String) -> String {
            "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n"
                + durations.enumerated().map { "#EXTINF:\($1),\n\(prefix)\($0).ts\n" }.joined() + "#EXT-X-ENDLIST\n"
        }
        let codecs = "CODECS=\"avc1.42c01e,mp4a.40.2\",FRAME-RATE=25"
        try write(
            "program/master.m3u8",
            "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000000,RESOLUTION=640x360,\(codecs)\nv0.m3u8\n"
                + "#EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=1280x720,\(codecs)\nv1.m3u8\n"
        )
        try write("program/v0.m3u8", media(["2.000", "2.000", "2.000", "2.000"], prefix: "a"))
        try write("program/v1.m3u8", media(["2.020", "1.980", "2.000", "2.000"], prefix: "b"))
        try write("ad/master.m3u8", "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000000,RESOLUTION=640x360,\(codecs)\nv.m3u8\n")
        try write("ad/v.m3u8", media(["2.000"], prefix: "c"))
        for name in ["program/a0", "program/a1", "program/a2", "program/a3", "program/b0", "program/b1", "program/b2", "program/b3", "ad/c0"] {
            try write(name + ".ts", "")
        }
        try write(
            "campaign.yaml",
            """
            version: 1
            id: snap
            program: { playlist: program/master.m3u8 }
            breaks:
              - { id: mid, at: 2, duration: 2, pools: [p] }
              - { id: late, at: 4, duration: 2, pools: [p] }
            pools:
              p:
                - { id: ad, playlist: ad/master.m3u8, tracking: { impression: ['https://t.example/i?q="x"\\y&t=1'] } }

            """
        )
        let campaign = try CampaignLoader.load(folder.appendingPathComponent("campaign.yaml"))
        let layout = try StitchLayout(campaign: campaign, uris: Demo.uris(for: campaign))
        let plan = Planner().plan(campaign, for: viewer([:], session: "snap-1", at: "2026-11-25T12:00:00Z"))
        // Client-side: the signalling lists the trackers (a server-side session's lists none).
        let text = try SessionRenderer(layout: layout).session(.interstitials, reporting: .client).render(.playlist(layout.renditions[1]), plan).text
        let playlist = try PlaylistParser().parseMediaPlaylist(text)
        let snaps = Dictionary(uniqueKeysWithValues: playlist.dateRanges.map { ($0.dateRange.id ?? "", $0.dateRange.attributes.string("X-SNAP")) })
        #expect(snaps.count == 2)
        #expect(snaps["mid"] == .some("OUT"), "\(text)")
        #expect(snaps["late"] == .some(nil), "\(text)")
        // The creative signalling is JSON whatever a tracking URL holds (quotes, backslashes).
        for entry in playlist.dateRanges {
            let data = try #require(entry.dateRange.attributes.string("X-AD-CREATIVE-SIGNALING").flatMap { Data(base64Encoded: $0) })
            let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let creative = try #require((json["payload"] as? [[String: Any]])?.first)
            let tracking = try #require((creative["tracking"] as? [[String: Any]])?.first)
            #expect(tracking["urls"] as? [String] == ["https://t.example/i?q=\"x\"\\y&t=1"])
        }
    }
}

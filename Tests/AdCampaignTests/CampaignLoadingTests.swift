import AdCampaign
import Foundation
import HLSPlaylist
import Testing

@Suite("Loading a valid campaign")
struct CampaignLoadingTests {
    @Test func loadsIdentityIslandsAndBreaks() throws {
        let campaign = try Fixture.load("valid.yaml")
        #expect(campaign.id == "fixture-news")
        #expect(campaign.title == "Fixture News")
        #expect(campaign.file == Fixture.url("valid.yaml"))
        #expect(campaign.islands.map(\.id) == ["act-1", "act-2"])
        #expect(campaign.islands.map(\.asset.duration) == [decimal("7.68"), decimal("5.76")])
        #expect(campaign.islands[0].asset.url.path == Fixture.path("media/program/act-1/master.m3u8"))
        #expect(campaign.islands[0].asset.variants.map(\.streamInf.resolution?.description) == ["320x180", "640x360"])

        #expect(campaign.breaks.map(\.id) == ["preroll", "mid-1", "postroll"])
        #expect(campaign.breaks.map(\.position) == [.before(island: "act-1"), .after(island: "act-1"), .after(island: "act-2")])
        #expect(campaign.breaks.map(\.duration) == [decimal("4"), decimal("12.5"), decimal("6")])
        #expect(campaign.breaks.map(\.pools) == [["house"], ["prime", "house"], ["house"]])
        #expect(campaign.breaks.map(\.restrict) == [[], [.skip, .jump], []])
    }

    @Test func loadsPoolsWeightsAndTracking() throws {
        let campaign = try Fixture.load("valid.yaml")
        #expect(campaign.pools.map(\.id) == ["prime", "house"])
        #expect(campaign.pool("prime")?.ads.map(\.id) == ["alpha", "bravo", "long"])
        #expect(campaign.pool("house")?.ads.map(\.id) == ["charlie", "bravo"])
        #expect(campaign.pool("missing") == nil)
        // `weight` defaults to 1.
        #expect(campaign.pool("prime")?.ads.map(\.weight) == [2, 1, 0.5])
        #expect(campaign.pool("house")?.ads.map(\.weight) == [1, 1])
        // An ad in two pools is one ad.
        #expect(campaign.ads.map(\.id) == ["alpha", "bravo", "long", "charlie"])
        #expect(campaign.ads.map(\.asset.duration) == [decimal("5.76"), decimal("3.84"), decimal("7.68"), decimal("1.92")])

        let alpha = try #require(campaign.ads.first)
        #expect(
            alpha.tracking == [
                "impression": ["https://t.example/i?ad=alpha"], "complete": ["https://t.example/c?ad=alpha", "https://u.example/done"],
            ]
        )
        #expect(campaign.ads[1].tracking.isEmpty)

        let slate = try #require(campaign.slate)
        #expect(slate.duration == decimal("1.92"))
        #expect(slate.variants.allSatisfy { $0.segmentFormat == .mpegTS } && !slate.usesFragmentedMP4)
        #expect(campaign.markers == [.daterange, .cue])
    }

    @Test func loadsRules() throws {
        let campaign = try Fixture.load("valid.yaml")
        #expect(campaign.rules.map(\.name) == ["spanish-speakers", "evening", "already-seen", "december"])

        let spanish = campaign.rules[0]
        #expect(spanish.condition.attributes.map(\.name) == ["locale"])
        #expect(spanish.condition.attributes.map(\.pattern.source) == ["^es(-|$)"])
        #expect(spanish.action.exclude.map(\.source) == ["^bravo$"])
        #expect(!spanish.action.excludeSeen)

        let evening = campaign.rules[1]
        let window = try #require(evening.condition.time)
        #expect(window.from == 18 * 60)
        #expect(window.to == 23 * 60 + 30)
        #expect(window.zone == "Europe/Madrid")
        #expect(evening.condition.days == [.fri, .sat])
        #expect(evening.action.boost == ["alpha": 3])

        let seen = campaign.rules[2]
        #expect(seen.condition.seen?.source == ".")
        #expect(seen.action.excludeSeen)

        // Bare dates are midnight in the flight's zone: 2026-12-01T00:00+01:00 is 2026-11-30T23:00Z.
        let december = campaign.rules[3]
        #expect(december.condition.flight?.from == ExactDecimal(1_796_079_600))
        #expect(december.condition.flight?.until == ExactDecimal(1_798_758_000))
        #expect(december.action.pools == ["postroll": ["prime"]])
    }

    @Test func loadsStartupPicks() throws {
        let campaign = try Fixture.load("valid.yaml")
        #expect(campaign.startup.count == 3)

        #expect(campaign.startup[0].condition.attributes.map(\.name) == ["device"])
        var tv = StartupPick()
        tv.maxBandwidth = 3_000_000
        #expect(campaign.startup[0].pick == tv)

        var hinted = StartupPick()
        hinted.bandwidthSafety = 0.8
        hinted.codecs = "avc1"
        hinted.maxResolution = Resolution(width: 1280, height: 720)
        hinted.videoRange = .sdr
        #expect(campaign.startup[1].pick == hinted)

        var lowest = StartupPick()
        lowest.lowest = true
        #expect(campaign.startup[2].pick == lowest)
        #expect(campaign.startup[2].condition.isEmpty)
    }

    @Test func loadsFragmentedMP4AndDemuxedAudioAssets() throws {
        let yaml = """
            version: 1
            id: demuxed
            program:
              islands:
                - { id: act-1, playlist: media/program-demuxed/act-1/master.m3u8 }
            breaks:
              - { id: mid, after: act-1, duration: 10, pools: [prime] }
            pools:
              prime:
                - { id: dubbed, playlist: media/ads/demuxed/master.m3u8 }
            """
        let campaign = try CampaignLoader.load(yaml: yaml, file: Fixture.url("inline.yaml"))
        let ad = try #require(campaign.ads.first)
        #expect(ad.asset.audioRenditions.map(\.media.language) == ["en", "es"])
        #expect(
            ad.asset.audioRenditions.map { $0.url?.path } == [
                Fixture.path("media/ads/demuxed/audio_en/index.m3u8"), Fixture.path("media/ads/demuxed/audio_es/index.m3u8"),
            ]
        )
        #expect(ad.asset.duration == decimal("3.84"))
        #expect(campaign.islands[0].asset.audioRenditions.count == 2)
    }

    @Test func revisionIsStableAcrossLoads() throws {
        let first = try Fixture.load("valid.yaml")
        let second = try Fixture.load("valid.yaml")
        #expect(first.revision == second.revision)
        #expect(first.revision.count == 16)
        #expect(first.revision.allSatisfy { $0.isHexDigit })
    }

    /// Plans are seeded with the revision and docs/architecture.md promises one session the same ads on any
    /// replica: where a replica keeps the campaign must not change it.
    @Test func revisionDoesNotDependOnWhereTheCampaignLives() throws {
        let one = try TemporaryCopy()
        let two = try TemporaryCopy()
        defer {
            one.remove()
            two.remove()
        }
        #expect(try one.load().revision == two.load().revision)
        #expect(try one.load().revision == Fixture.load("valid.yaml").revision)
    }

    @Test func revisionChangesWhenAPlaylistByteChanges() throws {
        let copy = try TemporaryCopy()
        defer { copy.remove() }
        let before = try copy.load().revision

        // One digit of one EXTINF in one media playlist of one ad.
        let playlist = copy.directory.appendingPathComponent("media/ads/bravo/360p/index.m3u8")
        let text = try String(contentsOf: playlist, encoding: .utf8)
        try text.replacingOccurrences(of: "#EXTINF:1.920000,\nseg_001.ts", with: "#EXTINF:1.920001,\nseg_001.ts")
            .write(to: playlist, atomically: true, encoding: .utf8)

        let after = try copy.load()
        #expect(after.revision != before)
        #expect(after.pool("prime")?.ads[1].asset.variants[1].playlist.duration == decimal("3.840001"))
    }
}

/// The fixtures copied to a fresh temporary folder, to edit or to move.
struct TemporaryCopy {
    let directory: URL

    init() throws {
        self.directory = FileManager.default.temporaryDirectory.appendingPathComponent("adcampaign-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: Fixture.directory, to: self.directory)
    }

    func load(_ name: String = "valid.yaml") throws(CampaignError) -> Campaign {
        try CampaignLoader.load(self.directory.appendingPathComponent(name))
    }

    func remove() {
        try? FileManager.default.removeItem(at: self.directory)
    }
}

/// `text` as an `ExactDecimal`.
func decimal(_ text: String) -> ExactDecimal {
    guard let value = ExactDecimal(text) else { preconditionFailure("\(text) is not a decimal") }
    return value
}

@Suite("Playlist sources")
struct PlaylistSourceTests {
    @Test("a campaign loads from playlists held in memory exactly as from the same files, revision included")
    func memoryMatchesFiles() throws {
        let fromFiles = try Fixture.load("valid.yaml")
        var playlists: [String: String] = [:]
        let root = Fixture.directory.standardizedFileURL.path + "/"
        for url in fromFiles.files.playlists {
            playlists[String(url.standardizedFileURL.path.dropFirst(root.count))] = try String(contentsOf: url, encoding: .utf8)
        }
        let yaml = try String(contentsOf: Fixture.url("valid.yaml"), encoding: .utf8)
        let elsewhere = URL(fileURLWithPath: "/in-memory/campaigns", isDirectory: true)
        let fromMemory = try CampaignLoader.load(
            yaml: yaml,
            file: elsewhere.appendingPathComponent("valid.yaml"),
            source: .memory(playlists, root: elsewhere)
        )
        #expect(fromMemory.revision == fromFiles.revision)
        #expect(fromMemory.ads.map(\.id) == fromFiles.ads.map(\.id))
        // A playlist the memory does not hold cannot be read, as a missing file cannot.
        var missing = playlists
        missing.removeValue(forKey: try #require(playlists.keys.first { $0.hasSuffix("master.m3u8") }))
        #expect(throws: CampaignError.self) {
            _ = try CampaignLoader.load(yaml: yaml, file: elsewhere.appendingPathComponent("valid.yaml"), source: .memory(missing, root: elsewhere))
        }
    }
}

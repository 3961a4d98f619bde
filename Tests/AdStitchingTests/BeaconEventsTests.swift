import AdCampaign
import AdDecision
import AdStitching
import Foundation
import HLSPlaylist
import Testing

/// Where an ad's VAST events fall among its segments (docs/http-api.md "Beacons"), and how a
/// session's playlists list those segments by their links: nothing else of the playlist changes.
@Suite("Beacon events")
struct BeaconEventsTests {
    static func seconds(_ values: [String]) -> [ExactDecimal] { values.compactMap { ExactDecimal($0) } }

    @Test(
        "the first segment carries impression and start, the last complete, a quartile the segment that crosses it (a boundary: the one ending there)",
        arguments: [
            (["6"], [0: 63]),
            (["1.92", "1.92"], [0: 15, 1: 48]),
            (["1", "1", "6"], [0: 3, 1: 4, 2: 56]),
            (["2", "2", "2", "2"], [0: 7, 1: 8, 2: 16, 3: 32]),
            (["0.1", "0.1", "0.1"], [0: 7, 1: 8, 2: 48]),
            (["3.84", "0.04"], [0: 31, 1: 32]),
        ]
    )
    func schedule(durations: [String], expected: [Int: Int]) {
        let schedule = BeaconEvents.schedule(BeaconEvents(rawValue: 63), durations: Self.seconds(durations))
        #expect(schedule.mapValues(\.rawValue) == expected, "\(durations)")
        // Every event exactly once.
        #expect(schedule.values.reduce(0) { $0 + $1.rawValue } == 63 && schedule.values.allSatisfy { !$0.isEmpty })
    }

    @Test("only the events an ad has URLs for; an empty ad has none")
    func tracked() {
        let tracked = BeaconEvents(tracking: ["impression": ["https://t.example/i"], "midpoint": ["https://t.example/m"], "complete": []])
        #expect(tracked == [.impression, .midpoint] && tracked.names == ["impression", "midpoint"])
        #expect(BeaconEvents.schedule(tracked, durations: Self.seconds(["2", "2", "2"])).mapValues(\.rawValue) == [0: 1, 1: 8])
        #expect(BeaconEvents.schedule(tracked, durations: []).isEmpty)
        #expect(BeaconEvents.schedule([], durations: Self.seconds(["2"])).isEmpty)
    }

    @Test("a session's video playlists list the event segments by their links and are otherwise the same bytes; other renditions are untouched")
    func playlists() throws {
        var linked = 0
        for demo in Demo.allCases {
            let campaign = try demo.campaign()
            let renderer = SessionRenderer(layout: try StitchLayout(campaign: campaign, uris: Demo.uris(for: campaign)))
            let links = BeaconLinks { piece, events, target in "BEACON \(piece) \(events.rawValue) \(target)" }
            for context in variedViewers(20) {
                let plan = Planner().plan(campaign, for: context)
                for rendition in renderer.layout.renditions {
                    let plain = try renderer.mediaPlaylistBytes(plan, rendition: rendition).text
                    let text = try renderer.mediaPlaylistBytes(plan, rendition: rendition, beacons: links).text
                    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
                    let restored = lines.map { line in line.hasPrefix("BEACON ") ? line.split(separator: " ", maxSplits: 3)[3] : line }
                    #expect(restored.joined(separator: "\n") == plain, "\(demo) \(rendition.id): only the links differ")
                    let beacons = lines.filter { $0.hasPrefix("BEACON ") }
                    guard case .video = rendition.kind else {
                        #expect(beacons.isEmpty, "\(demo) \(rendition.id): only video playlists carry links")
                        continue
                    }
                    // One link per ad with tracking that plays (all its events on one segment or more).
                    let tracked = plan.pieces.enumerated().filter { _, piece in
                        if case .ad(let ad, _) = piece.kind { !BeaconEvents(tracking: ad.tracking).isEmpty } else { false }
                    }
                    for (position, piece) in tracked {
                        guard case .ad(let ad, _) = piece.kind else { continue }
                        let mine = beacons.filter { $0.split(separator: " ")[1] == "\(position)" }
                        let events = mine.reduce(0) { $0 | (Int($1.split(separator: " ")[2]) ?? 0) }
                        #expect(events == BeaconEvents(tracking: ad.tracking).rawValue, "\(demo) \(rendition.id) piece \(position)")
                    }
                    #expect(beacons.count >= tracked.count)
                    linked += beacons.count
                }
            }
        }
        #expect(linked > 0, "no demo ad with tracking played: the test checks nothing")
    }

    @Test(
        "an interstitial session's tracked ads play from its own copies of their playlists: the asset list names them, the multivariant keeps every variant, rendition and I-frame variant, and each variant's media playlist is the ad's own segments, lint-clean, with its event segments by their links"
    )
    func interstitialAdPlaylists() throws {
        var checked = 0
        for demo in Demo.allCases {
            let campaign = try demo.campaign()
            let uris = Demo.uris(for: campaign)
            let renderer = SessionRenderer(layout: try StitchLayout(campaign: campaign, uris: uris))
            let links = BeaconLinks { piece, events, target in "BEACON \(piece) \(events.rawValue) \(target)" }
            for context in variedViewers(20) {
                let plan = Planner().plan(campaign, for: context)
                let schedule = renderer.schedule(plan)
                for interstitial in schedule.interstitials {
                    let list = try #require(renderer.assetList(schedule, breakID: interstitial.id, trackers: false, adPlaylistURI: { "AD \($0)" }))
                    let assets = try #require(
                        (try JSONSerialization.jsonObject(with: Data(list.utf8)) as? [String: Any])?["ASSETS"] as? [[String: Any]]
                    )
                    #expect(assets.count == interstitial.pieces.count)
                    for (offset, asset) in assets.enumerated() {
                        let position = interstitial.firstPiece + offset
                        #expect(plan.pieces[position].asset === interstitial.pieces[offset].asset, "the plan's piece at its place")
                        guard let (piece, tracked) = renderer.trackedAd(plan, piece: position) else {
                            #expect((asset["URI"] as? String)?.hasPrefix("AD ") == false, "an ad without tracking plays its own playlists")
                            continue
                        }
                        #expect(asset["URI"] as? String == "AD \(position)")
                        try Self.checkAdPlaylists(renderer, plan, piece: piece, position: position, tracked: tracked, links: links, uris: uris)
                        checked += 1
                    }
                }
                // A piece that is not a tracked ad has no playlist of its own.
                let untracked = try #require(plan.pieces.indices.first { renderer.trackedAd(plan, piece: $0) == nil })
                #expect(throws: StitchError.self) { try renderer.adPlaylist(plan, piece: untracked, variant: nil, beacons: links) }
                #expect(throws: StitchError.self) { try renderer.adPlaylist(plan, piece: plan.pieces.count, variant: nil, beacons: links) }
            }
        }
        #expect(checked > 0, "no demo ad with tracking played as an interstitial: the test checks nothing")
    }

    @Test("an ad playlist's name: decimal piece and variant without leading zeros, only in interstitial sessions that report server-side")
    func adPlaylistNames() throws {
        let campaign = try Demo.eveningNews.campaign()
        let renderer = SessionRenderer(layout: try StitchLayout(campaign: campaign, uris: Demo.uris(for: campaign)))
        let named: [(String, SessionFile?)] = [
            ("ad-0.m3u8", .adPlaylist(piece: 0, variant: nil)), ("ad-7.m3u8", .adPlaylist(piece: 7, variant: nil)),
            ("ad-12-v0.m3u8", .adPlaylist(piece: 12, variant: 0)), ("ad-99999-v99999.m3u8", .adPlaylist(piece: 99_999, variant: 99_999)),
            ("ad-07.m3u8", nil), ("ad-7-v01.m3u8", nil), ("ad-100000.m3u8", nil), ("ad--1.m3u8", nil), ("ad-.m3u8", nil),
            ("ad-7-0.m3u8", nil), ("ad-7-v.m3u8", nil), ("ad-7-v1-v2.m3u8", nil), ("ad-7.m3u", nil), ("ad-٣.m3u8", nil), ("ad-+7.m3u8", nil),
        ]
        for (name, file) in named {
            #expect(renderer.session(.interstitials, reporting: .server).file(named: name) == file, "\(name)")
            if let file { #expect(file.name == name) }
            #expect(renderer.session(.interstitials, reporting: .client).file(named: name) == nil, "\(name): client-side reporting")
            #expect(renderer.session(.stitched, reporting: .server).file(named: name) == nil, "\(name): a stitched session")
        }
    }

    /// One tracked ad's session playlists against the ad's own.
    static func checkAdPlaylists(
        _ renderer: SessionRenderer,
        _ plan: Plan,
        piece: Piece,
        position: Int,
        tracked: BeaconEvents,
        links: BeaconLinks,
        uris: URIStyle
    ) throws {
        let asset = piece.asset
        let text = try renderer.adPlaylist(plan, piece: position, variant: nil, beacons: links)
        let multivariant = try PlaylistParser().parseMultivariantPlaylist(text)
        #expect(PlaylistLinter().lint(multivariant).filter { $0.severity == .error }.isEmpty, "\(text)")
        #expect(multivariant.variants.map { String($0.uri) } == asset.variants.indices.map { "ad-\(position)-v\($0).m3u8" })
        #expect(multivariant.variants.map(\.streamInf) == asset.variants.map(\.streamInf))
        #expect(
            multivariant.renditions.map { $0.value.uri }
                == asset.multivariant.renditions.map { $0.value.uri.flatMap(asset.multivariant.resolve).map { uris.write($0, as: .media) } }
        )
        #expect(multivariant.iFrameVariants.map { $0.value.uri } == asset.iFrameVariants.map { uris.write($0.url, as: .media) })
        for (index, variant) in asset.variants.enumerated() {
            let media = try renderer.adPlaylist(plan, piece: position, variant: index, beacons: links)
            #expect(media.hasSuffix("#EXT-X-ENDLIST\n"))
            let lines = media.split(separator: "\n", omittingEmptySubsequences: false)
            let beacons = lines.filter { $0.hasPrefix("BEACON ") }
            #expect(beacons.allSatisfy { $0.split(separator: " ")[1] == "\(position)" })
            #expect(beacons.reduce(0) { $0 | (Int($1.split(separator: " ")[2]) ?? 0) } == tracked.rawValue, "every tracked event once")
            let restored = lines.map { line in line.hasPrefix("BEACON ") ? line.split(separator: " ", maxSplits: 3)[3] : line }.joined(
                separator: "\n"
            )
            let parsed = try PlaylistParser().parseMediaPlaylist(restored)
            #expect(PlaylistLinter().lint(parsed).filter { $0.severity == .error }.isEmpty, "\(restored)")
            let source = variant.playlist
            #expect(parsed.segments.map(\.duration) == source.segments.map(\.duration))
            #expect(parsed.segments.map(\.byteRange) == source.segments.map(\.byteRange))
            guard plan.rewrites.isEmpty else { continue }
            #expect(parsed.segments.map { String($0.uri) } == source.segments.map { uris.write(source.resolve($0.uri)!, as: .media) })
            #expect(
                parsed.segments.map { $0.map?.uri } == source.segments.map { $0.map?.uri.flatMap(source.resolve).map { uris.write($0, as: .media) } }
            )
        }
        #expect(throws: StitchError.self) { try renderer.adPlaylist(plan, piece: position, variant: asset.variants.count, beacons: links) }
    }
}

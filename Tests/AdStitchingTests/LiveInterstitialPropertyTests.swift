import AdCampaign
import AdDecision
import AdLive
import AdStitching
import Foundation
import HLSPlaylist
import Testing

/// A live channel's primary playlists for its interstitial sessions
/// (``SessionRenderer/channelPrimary(rendition:window:breaks:live:)``) over the origin shapes of
/// ``LiveCutPropertyTests`` — segments that are not whole target durations, dates on the wall
/// clock, hours off it or jumping, replicas polling out of phase, a stall and a restart — and a
/// break that ends when announced or before (an early return): at every refresh, every replica's
/// answer is the same bytes; the numbering keeps RFC 8216bis §6.2.1–6.2.2; and every date range
/// keeps Appendix D and §4.4.5.1 across refreshes (``LiveInterstitialChecks/checkDateRanges(_:_:)``).
///
/// In ``LiveCutPropertyTests``' suite, which runs its cases one at a time.
extension LiveCutPropertyTests {

    @Test(
        "the channel's primary playlist is the same bytes on every replica at every refresh, and its date ranges keep Appendix D",
        arguments: Shape.all,
        Dates.dated
    )
    func primaries(shape: Shape, dates: Dates) async throws {
        let run = Double(max(160, 32 * shape.targetDuration))
        // As announced (16 s), and announced as 24 s but back after 16 (an early return).
        for announced in [16, 24] {
            let origin = ShapedOrigin(shape, dates: dates, run: run, announced: announced)
            let poll = max(0.25, Double(shape.targetDuration) / 2)
            // Replicas a quarter and half a poll apart, and three (in phase agree trivially; the
            // stitched cut's test has that fleet).
            for fleet in Fleet.all.dropFirst() {
                // Each run is a few hundred milliseconds of CPU: the end-to-end tests' waits
                // (two cooperative threads on this machine) get theirs between runs.
                await Task.yield()
                let context = "\(shape.testDescription), dates \(dates), announced \(announced) s, \(fleet.testDescription)"
                var replicas = LiveFleet(
                    replicas: fleet.phases.count,
                    phases: fleet.phases.map { ($0 * poll / LiveFleet.tick).rounded() * LiveFleet.tick },
                    targetDuration: shape.targetDuration,
                    until: run
                )
                replicas.campaign = "insertion: interstitials\nreporting: client"
                replicas.interstitials = true
                replicas.checkEvery = 8
                if dates == .jumping { replicas.passedOn = ["program-date-time"] }
                let refreshes = try replicas.play { rendition, t in origin.playlist(rendition, at: t) }
                #expect(refreshes.count > Int(run - 40), "\(context): \(refreshes.count) refreshes")
                // Every replica answers the same bytes at the same instant — once their sightings
                // have met in the shared history: a fleet started at once on a fresh channel (no
                // history yet) agrees a hold-back and a poll later; a replica started on a running
                // channel reads the history's first.
                var differing = 0
                for refresh in refreshes where refresh.t >= replicas.start + Double(3 * shape.targetDuration) {
                    for (offset, other) in refresh.others.enumerated() {
                        guard let other, other != refresh.text else { continue }
                        differing += 1
                        if differing <= 2 {
                            Issue.record(
                                "\(context) t=\(refresh.t): replica \(refresh.replica) and another (\(offset)) differ:\n\(refresh.text)\nvs\n\(other)"
                            )
                        }
                    }
                }
                #expect(differing == 0, "\(context): \(differing) refreshes differ between replicas")
                #expect(refreshes.contains { !$0.others.isEmpty && $0.others.allSatisfy { $0 != nil } }, "\(context): no refresh compared")
                LiveFleet.checkNumbering(refreshes, context)
                let ranges = LiveInterstitialChecks.checkDateRanges(refreshes, context)
                // The break was announced, and ends as the origin says (at the first segment
                // boundary 16 s in): a date range that gets that DURATION — and X-PLAYOUT-LIMIT
                // that long whatever was announced, when it announced more.
                let length = origin.starts[origin.breakEnd] - origin.starts[origin.breakAt]
                let id = try #require(ranges.keys.first, "\(context): no interstitial date range in any refresh")
                let final = try #require(ranges[id]?.last)
                #expect(final.duration == length, "\(context): \(id) ends with DURATION \(final.duration.map { "\($0)" } ?? "none"), not \(length)")
                #expect(
                    final.playoutLimit == min(length, ExactDecimal(announced)),
                    "\(context): \(id)'s X-PLAYOUT-LIMIT is \(final.playoutLimit.map { "\($0)" } ?? "none")"
                )
                #expect(final.planned == ExactDecimal(announced), "\(context): PLANNED-DURATION \(final.planned.map { "\($0)" } ?? "none")")
                #expect(replicas.refusals.isEmpty, "\(context): \(replicas.refusals.prefix(5))")
            }
        }
    }

}

/// Appendix D's rules over a run of refreshes of a channel's primary playlists.
enum LiveInterstitialChecks {
    /// One interstitial date range as a refresh lists it.
    struct Seen: Equatable {
        var start: String
        var planned: ExactDecimal?
        var duration: ExactDecimal?
        var playoutLimit: ExactDecimal?
        var assetList: String
        var others: [String: String]
    }

    /// Appendix D and §4.4.5.1 over every refresh of the first rendition: the playlist is version
    /// 11 and imports the token (`EXT-X-DEFINE:QUERYPARAM`); each interstitial date range's
    /// `X-ASSET-LIST`, resolved, is the viewer's asset list of its ID with `_HLS_interstitial_id`;
    /// it has no `X-RESUME-OFFSET` (live: the primary resumes as long after as the interstitial
    /// played), occupies a range and starts at a segment's date (or before the window); and from
    /// one refresh to the next an ID's attributes never change — `DURATION` is only added, and
    /// `X-PLAYOUT-LIMIT` only lowered to it (the early return). Returns what each ID was seen as.
    static func checkDateRanges(_ refreshes: [LiveFleet.Refresh], _ context: String) -> [String: [Seen]] {
        var seen: [String: [Seen]] = [:]
        var failures = 0
        func expect(_ condition: Bool, _ message: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation) {
            guard !condition, failures < 3 else { return }
            failures += 1
            Issue.record(Comment(rawValue: message()), sourceLocation: sourceLocation)
        }
        for refresh in refreshes {
            let playlist = refresh.playlist
            let where_ = "\(context) t=\(refresh.t) replica \(refresh.replica)"
            expect(playlist.version ?? 1 >= 11, "\(where_): EXT-X-VERSION \(playlist.version ?? 1) with QUERYPARAM\n\(refresh.text)")
            expect(refresh.text.contains("#EXT-X-DEFINE:QUERYPARAM=\"token\"\n"), "\(where_): no QUERYPARAM definition\n\(refresh.text)")
            let resolved: MediaPlaylist
            do {
                resolved = try playlist.resolvingVariables()
            } catch {
                expect(false, "\(where_): \(error)\n\(refresh.text)")
                continue
            }
            let dates = Set(resolved.segments.compactMap { $0.programDateTime.flatMap { DateTime(String($0))?.secondsSinceEpoch } })
            let windowStart = resolved.segments.first?.programDateTime.flatMap { DateTime(String($0))?.secondsSinceEpoch }
            for entry in resolved.dateRanges where entry.dateRange.isInterstitial {
                let range = entry.dateRange
                guard let id = range.id, let start = range.startDate else {
                    expect(false, "\(where_): an interstitial without ID or START-DATE\n\(refresh.text)")
                    continue
                }
                let list = range.attributes.string("X-ASSET-LIST") ?? ""
                expect(
                    list == "../sessions/viewer-token/assets-\(id).json?_HLS_interstitial_id=\(id)",
                    "\(where_): \(id)'s X-ASSET-LIST resolves to \(list)"
                )
                expect(range.attributes.string("X-RESUME-OFFSET") == nil, "\(where_): \(id) has an X-RESUME-OFFSET")
                expect(range.attributes.string("X-TIMELINE-OCCUPIES") == "RANGE", "\(where_): \(id) does not occupy a range")
                let startSeconds = DateTime(start)?.secondsSinceEpoch
                expect(
                    startSeconds.map { at in dates.contains(at) || windowStart.map { at < $0 } == true } == true,
                    "\(where_): \(id) starts at \(start), no segment's date in the window\n\(refresh.text)"
                )
                var others: [String: String] = [:]
                for attribute in range.attributes.attributes
                where !["DURATION", "X-PLAYOUT-LIMIT", "PLANNED-DURATION", "START-DATE"].contains(attribute.name) {
                    others[attribute.name] = attribute.rawValue
                }
                let now = Seen(
                    start: start,
                    planned: range.plannedDuration,
                    duration: range.duration,
                    playoutLimit: range.attributes.decimal("X-PLAYOUT-LIMIT"),
                    assetList: list,
                    others: others
                )
                if let before = seen[id]?.last, before != now {
                    expect(
                        before.start == now.start && before.planned == now.planned && before.others == now.others,
                        "\(where_): \(id) changed from \(before) to \(now)"
                    )
                    expect(before.duration == nil || before.duration == now.duration, "\(where_): \(id)'s DURATION changed from \(before) to \(now)")
                    expect(
                        before.playoutLimit == now.playoutLimit || (now.duration != nil && now.playoutLimit == now.duration),
                        "\(where_): \(id)'s X-PLAYOUT-LIMIT changed other than to its DURATION: \(before) to \(now)"
                    )
                }
                seen[id, default: []].append(now)
            }
        }
        return seen
    }
}

/// A viewer's asset list of a live break (``SessionRenderer/liveAssetList(_:live:adBreak:decided:startOffset:trackers:base:)``)
/// over where the player joins (`_HLS_start_offset`: none, 0, inside each piece, on each piece's
/// boundary, past the break) and how the break ends (open, as announced, early, late).
@Suite("Live interstitial asset lists")
struct LiveAssetListTests {
    @Test("joining mid-break trims the list to the piece playing and after, never to nothing; an early return drops what no longer plays")
    func trimmed() throws {
        let campaign = try LiveSessionTests.load(LiveSessionTests.campaign + "\ninsertion: interstitials\nreporting: client")
        let live = try #require(campaign.live)
        let renderer = SessionRenderer(layout: try StitchLayout(campaign: campaign, uris: .absolute))
        let start = ExactDecimal(LiveSessionTests.epoch + 20)
        var checked = 0
        for seed in 0..<6 {
            let plan = Planner().plan(
                campaign,
                for: ViewerContext(session: "viewer-\(seed)", milliseconds: Int64(LiveSessionTests.epoch) * 1000, attributes: [:])
            )
            // Announced 8 s (marker_breaks.duration): open, back at 8, early at 4 and 5, late at 12.
            for closedAfter in [nil, 8, 4, 5, 12] as [Int?] {
                let closing = closedAfter.map {
                    LiveBreak.Closing(end: 10 + $0 / 2, time: start + ExactDecimal($0), discontinuitySequence: 0, isDiscontinuity: false)
                }
                let adBreak = LiveBreak(id: "b1", first: 10, start: start, enteringDiscontinuity: 0, closing: closing)
                let pieces = LiveSchedule.pieces(adBreak, plan: plan, live: live, nominal: 8, upTo: 8, ads: true, decided: [])
                let limit = min(ExactDecimal(8), closedAfter.map { ExactDecimal($0) } ?? 8)
                #expect(pieces.map(\.asset.duration).sum() >= 8 && !pieces.isEmpty, "the pieces fill the planned 8 s")
                var offsets: [ExactDecimal?] = [nil, .zero, 9, 30]
                for piece in pieces {
                    offsets += [piece.start, piece.start + ExactDecimal(significand: 5, exponent: 1), piece.start + piece.asset.duration]
                }
                for offset in offsets {
                    let text = try renderer.liveAssetList(
                        plan,
                        live: live,
                        adBreak: adBreak,
                        decided: [],
                        startOffset: offset,
                        trackers: true,
                        base: "http://adstitch.test"
                    )
                    let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
                    let assets = try #require(json["ASSETS"] as? [[String: Any]])
                    let context = "seed \(seed), closed after \(closedAfter.map { "\($0)" } ?? "-"), offset \(offset.map { "\($0)" } ?? "-"): \(text)"
                    #expect(!assets.isEmpty, "never an empty list: \(context)")
                    // What plays: the pieces that start before the limit and end after the offset.
                    let playing = pieces.filter { $0.start < limit && $0.start + $0.asset.duration > (offset ?? .zero) }
                    let expected = playing.isEmpty ? [pieces.last { $0.start < limit } ?? pieces[0]] : playing
                    #expect(assets.count == expected.count, "\(context)")
                    for (asset, piece) in zip(assets, expected) {
                        #expect(asset["DURATION"] as? Double == piece.asset.duration.doubleValue, "\(context)")
                        let uri = asset["URI"] as? String ?? ""
                        #expect(uri.hasPrefix("http://adstitch.test/") || uri.hasPrefix("file:"), "\(context)")
                        #expect((asset["X-AD-CREATIVE-SIGNALING"] != nil) == (piece.ad != nil), "ads signal, the slate does not: \(context)")
                    }
                    checked += 1
                }
            }
        }
        #expect(checked > 200, "\(checked) lists")
    }
}

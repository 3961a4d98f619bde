import AdCampaign
import AdDecision
import AdLive
import AdStitching
import Foundation
import HLSPlaylist
import Testing

/// A live channel served by a fleet of simulated replicas, as `LiveChannel` drives its
/// ``LiveChannelTimeline`` in `serve`: each replica polls every rendition every half target
/// duration at its own phase, its new segments' sightings reach the shared history a moment later
/// and every replica reads the history's back every half target duration; breaks' openings and
/// closings are recorded once, the first written winning. One viewer refreshes every half second
/// on each replica in turn. Time is simulated: ticks of 50 ms, so a run of minutes takes
/// milliseconds.
struct LiveFleet {
    /// An origin: rendition `rendition`'s playlist at `t` seconds after ``LiveSessionTests/epoch``,
    /// or nil when it does not answer.
    typealias Origin = (_ rendition: String, _ t: Double) -> String?

    var replicas = 2
    /// Each replica's first poll, in seconds after `start` (one per replica).
    var phases: [Double] = [0, 0.5]
    /// The channel's target duration: replicas poll every half of it (at least 0.25 s).
    var targetDuration = 2
    /// How long a replica's sightings take to reach the shared history.
    var shareDelay = 0.25
    var start = 10.0
    var until = 100.0
    /// Campaign lines added to ``LiveSessionTests/campaign``.
    var campaign = ""
    var renditions = ["v0", "v1"]
    /// Every how many refreshes each is linted and the boundary manifest written (1: every one).
    var checkEvery = 1
    /// Lint rules the origin's own playlists break, passed on as the origin wrote them (its dates
    /// going back: `program-date-time`).
    var passedOn: Set<String> = []
    /// Each refresh gets the channel's primary playlists (a live interstitial session's:
    /// ``SessionRenderer/channelPrimary(rendition:window:breaks:live:)``), requested with
    /// ``primaryQuery``, instead of the viewer's stitched ones; and every other replica's answer
    /// of the first rendition at the same instant (``Refresh/others``).
    var interstitials = false
    static let primaryQuery = "?token=viewer-token"

    /// One viewer refresh: every rendition's playlist as the replica answered it (the first
    /// rendition's alone on refreshes ``checkEvery`` skips).
    struct Refresh {
        let t: Double
        let replica: Int
        let playlists: [MediaPlaylist]
        let texts: [String]
        /// Empty on refreshes ``checkEvery`` skips.
        let manifest: String
        /// With ``interstitials``: the other replicas' primary playlist of the first rendition at
        /// the same instant (nil where one has no window yet).
        var others: [String?] = []
        var playlist: MediaPlaylist { self.playlists[0] }
        var text: String { self.texts[0] }
    }

    /// What each poll refused, by replica: (t, why).
    private(set) var refusals: [(t: Double, replica: Int, why: String)] = []

    static let tick = 0.05

    /// Plays the channel from `start` to `until`; returns every refresh.
    mutating func play(_ origin: Origin) throws -> [Refresh] {
        precondition(self.phases.count == self.replicas)
        let campaign = try LiveSessionTests.load(LiveSessionTests.campaign + "\n" + self.campaign)
        let live = try #require(campaign.live)
        let layout = try StitchLayout(campaign: campaign, uris: .absolute)
        let renderer = SessionRenderer(layout: layout)
        let epoch = ExactDecimal(LiveSessionTests.epoch)
        let plan = Planner().plan(
            campaign,
            for: ViewerContext(session: "viewer", milliseconds: Int64(LiveSessionTests.epoch) * 1000, attributes: [:])
        )
        var fleet = (0..<self.replicas).map { _ in
            var tracker = LiveBreakTracker(defaultDuration: live.defaultDuration)
            tracker.stallAfter = live.stall?.after
            tracker.confirmsStallClosings = self.replicas > 1
            return LiveChannelTimeline(renditions: self.renditions.count, tracker: tracker)
        }
        // The shared history: breaks by id, and each segment's earliest sighting.
        var history: [String: LiveBreak] = [:]
        var stored: [Int: ExactDecimal] = [:]
        var inFlight: [(due: Int, replica: Int, sightings: [Int: ExactDecimal])] = []
        let poll = max(0.25, Double(self.targetDuration) / 2)
        let pollTicks = Int((poll / Self.tick).rounded())
        let phaseTicks = self.phases.map { Int(($0 / Self.tick).rounded()) }
        let shareTicks = Int((self.shareDelay / Self.tick).rounded())
        let firstTick = Int((self.start / Self.tick).rounded())
        let lastTick = Int((self.until / Self.tick).rounded())
        var refreshes: [Refresh] = []
        var joined: Int?
        var lintFailures = 0
        var parsed: [String: MediaPlaylist] = [:]
        for tick in firstTick...lastTick {
            let t = Double(tick) * Self.tick
            let now = epoch + ExactDecimal(significand: tick * 50, exponent: 3)
            let step = tick - firstTick
            for index in fleet.indices where step >= phaseTicks[index] && (step - phaseTicks[index]) % pollTicks == 0 {
                var changed: [LiveBreak] = []
                var seen: [Int: ExactDecimal] = [:]
                for (number, rendition) in self.renditions.enumerated() {
                    guard let text = origin(rendition, t) else { continue }
                    // The origin answers the same text until it publishes: parsed once.
                    let playlist: MediaPlaylist
                    if let known = parsed[text] {
                        playlist = known
                    } else {
                        playlist = try PlaylistParser().parseMediaPlaylist(text, url: URL(string: "https://origin.test/channel/\(rendition).m3u8")!)
                        parsed[text] = playlist
                    }
                    let accepted = fleet[index].accept(playlist, rendition: number, at: now)
                    if let why = accepted.refusal { self.refusals.append((t, index, why)) }
                    changed += accepted.changed
                    seen.merge(accepted.sightings) { min($0, $1) }
                }
                if !seen.isEmpty { inFlight.append((tick + shareTicks, index, seen)) }
                if let opened = fleet[index].stall(at: now) { changed.append(opened) }
                if self.replicas > 1 {
                    // An opening, then a closing, once each; the first written wins.
                    var kept: [LiveBreak] = []
                    for item in changed {
                        var record = history[item.id] ?? item
                        if record.closing == nil { record.closing = item.closing }
                        history[item.id] = record
                        kept.append(record)
                    }
                    fleet[index].confirm(kept)
                }
                // The history's sightings read back every poll (after the replica's own).
                fleet[index].share(stored)
            }
            // Sightings reaching the history: each segment's earliest stands, and the writer
            // learns what is stored for what it wrote.
            for delivery in inFlight where delivery.due == tick {
                stored.merge(delivery.sightings) { min($0, $1) }
                fleet[delivery.replica].share(stored.filter { delivery.sightings[$0.key] != nil })
            }
            inFlight.removeAll { $0.due <= tick }
            // The viewer refreshes every half second, on each replica in turn.
            guard step % 10 == 5 else { continue }
            let replica = (step / 10) % self.replicas
            let timeline = fleet[replica]
            let cut = timeline.cut(at: now, sightings: self.interstitials)
            let (windows, clock) = (cut.windows, cut.clock)
            guard let first = windows.first ?? nil, windows.allSatisfy({ $0 != nil }) else { continue }
            let listed = windows.compactMap { $0 }
            if joined == nil { joined = (first.segments.last?.sequence ?? 0) + 1 }
            let schedule = try LiveSchedule(
                plan: plan,
                live: live,
                layout: layout,
                breaks: cut.breaks,
                joined: try #require(joined),
                liveEdge: listed.compactMap { $0.segments.last?.end }.max() ?? .zero,
                clock: clock
            )
            var playlists: [MediaPlaylist] = []
            var texts: [String] = []
            let checked = refreshes.count % self.checkEvery == 0
            // The other renditions on checked refreshes only (their numbers are the first's): the
            // viewer's stitched playlists, or the channel's primaries.
            for (index, window) in listed.enumerated() where index == 0 || checked {
                let rendition = layout.renditions[index]
                let text =
                    self.interstitials
                    ? try renderer.channelPrimary(rendition: rendition, window: window, breaks: cut.breaks, live: live).text
                    : try renderer.livePlaylist(schedule, rendition: rendition, window: window).text
                let url =
                    self.interstitials
                    ? "https://adstitch.test/v1/campaigns/live/channel/v\(index).m3u8" + Self.primaryQuery : "https://adstitch.test/s/v\(index).m3u8"
                let playlist = try PlaylistParser().parseMediaPlaylist(text, url: URL(string: url)!)
                let errors = checked ? PlaylistLinter().lint(playlist).filter { $0.severity == .error && !self.passedOn.contains($0.rule) } : []
                if !errors.isEmpty, lintFailures < 3 {
                    lintFailures += 1
                    Issue.record("t=\(t) replica \(replica): \(errors)\n\(text)")
                }
                playlists.append(playlist)
                texts.append(text)
            }
            if self.interstitials {
                let others = try fleet.indices.filter { $0 != replica }.map { other -> String? in
                    let cut = fleet[other].cut(at: now, sightings: true)
                    guard let window = cut.windows[0] else { return nil }
                    return try renderer.channelPrimary(rendition: layout.renditions[0], window: window, breaks: cut.breaks, live: live).text
                }
                refreshes.append(Refresh(t: t, replica: replica, playlists: playlists, texts: texts, manifest: "", others: others))
                continue
            }
            let manifest = checked ? schedule.manifest(listed[0], trackers: true).text(pretty: false) : ""
            refreshes.append(Refresh(t: t, replica: replica, playlists: playlists, texts: texts, manifest: manifest))
        }
        return refreshes
    }

    /// The segment a URI names, without its rendition: `s12.ts`, `v0-alpha1.ts` → `alpha1.ts`.
    static func identity(_ segment: MediaSegment) -> String {
        let name = String(segment.uri.split(separator: "/").last ?? Substring(segment.uri))
        for rendition in ["v0-", "v1-"] where name.hasPrefix(rendition) { return String(name.dropFirst(rendition.count)) }
        return name
    }

    /// The numbering invariants of RFC 8216bis §6.2.1–6.2.2 across every refresh, whichever
    /// replica answered, for each rendition: EXT-X-MEDIA-SEQUENCE and EXT-X-DISCONTINUITY-SEQUENCE
    /// never go back, nor the live edge; a number never names two segments, nor a segment two
    /// discontinuity numbers; every rendition lists the same numbers at once.
    static func checkNumbering(_ refreshes: [Refresh], _ context: String = "") {
        guard let renditions = refreshes.map(\.playlists.count).max() else { return }
        // Past the first few, a shape's failures say nothing new (and each carries a playlist).
        var failures = 0
        func expect(_ condition: Bool, _ message: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation) {
            guard !condition, failures < 3 else { return }
            failures += 1
            Issue.record(Comment(rawValue: message()), sourceLocation: sourceLocation)
        }
        for rendition in 0..<renditions {
            var names: [Int: String] = [:]
            var discontinuities: [Int: Int] = [:]
            var previous: MediaPlaylist?
            var previousText = ""
            var previousNewest = Int.min
            for refresh in refreshes where refresh.playlists.count > rendition {
                let playlist = refresh.playlists[rendition]
                let segments = Array(playlist.segments)
                let where_ = "\(context) t=\(refresh.t) replica \(refresh.replica) v\(rendition)"
                if let previous {
                    expect(
                        playlist.mediaSequence >= previous.mediaSequence,
                        "\(where_): EXT-X-MEDIA-SEQUENCE went back\n\(refresh.texts[rendition])\nafter\n\(previousText)"
                    )
                    expect(
                        playlist.discontinuitySequence >= previous.discontinuitySequence,
                        "\(where_): EXT-X-DISCONTINUITY-SEQUENCE went back\n\(refresh.texts[rendition])\nafter\n\(previousText)"
                    )
                    let newest = previousNewest
                    expect(
                        (segments.last?.mediaSequenceNumber ?? .min) >= newest,
                        "\(where_): the live edge went back from \(newest)\n\(refresh.texts[rendition])\nafter\n\(previousText)"
                    )
                }
                for segment in segments {
                    let number = segment.mediaSequenceNumber
                    let name = Self.identity(segment)
                    if let earlier = names[number] { expect(earlier == name, "\(where_): \(number) was \(earlier), now \(name)") }
                    if let earlier = discontinuities[number] {
                        expect(earlier == segment.discontinuitySequenceNumber, "\(where_): \(number)'s discontinuity number moved")
                    }
                    names[number] = name
                    discontinuities[number] = segment.discontinuitySequenceNumber
                }
                previous = playlist
                previousNewest = segments.last.map(\.mediaSequenceNumber) ?? .min
                previousText = refresh.texts[rendition]
            }
        }
        for refresh in refreshes where refresh.playlists.count > 1 {
            let numbers = refresh.playlists.map { $0.segments.map(\.mediaSequenceNumber) }
            expect(Set(numbers.map { $0 }).count == 1, "\(context) t=\(refresh.t): the renditions list other numbers: \(numbers)")
        }
    }
}

import AdCampaign
import AdDecision
import AdLive
import AdStitching
import Foundation
import HLSPlaylist
import Testing

/// A viewer's live playlists (docs/design-decisions.md "Live") rendered from a simulated channel as its poller would see
/// it, window after window: the campaign loaded with `program: { live: URL }`, breaks tracked from
/// the channel's CUE markers, every rendition rendered at every poll and read back.
@Suite("Live sessions")
struct LiveSessionTests {
    static let root = URL(fileURLWithPath: "/campaigns/live")
    static let live = URL(string: "https://origin.test/channel/master.m3u8")!
    static let epoch = 1_800_000_000
    static let master =
        "#EXTM3U\n#EXT-X-INDEPENDENT-SEGMENTS\n"
        + "#EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS=\"avc1.42c01e,mp4a.40.2\",RESOLUTION=640x360\nv0.m3u8\n"
        + "#EXT-X-STREAM-INF:BANDWIDTH=400000,CODECS=\"avc1.42c01e,mp4a.40.2\",RESOLUTION=320x180\nv1.m3u8\n"

    /// A channel of 2 s segments dated from ``epoch``, a discontinuity before segment 20, and
    /// breaks: a CUE-OUT announcing `announced` segments before `first`, a CUE-IN `actual` later.
    struct Channel {
        var breaks: [(first: Int, announced: Int, actual: Int?)]
        var window = 6

        func playlist(_ rendition: String, last: Int) -> String {
            let first = max(0, last - self.window + 1)
            let discontinuities = (0..<first).count { $0 == 20 }
            var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
            text += "#EXT-X-DISCONTINUITY-SEQUENCE:\(discontinuities)\n"
            for sequence in first...last {
                for item in self.breaks {
                    if sequence == item.first { text += "#EXT-X-CUE-OUT:DURATION=\(item.announced * 2)\n" }
                    if let actual = item.actual, sequence == item.first + actual { text += "#EXT-X-CUE-IN\n" }
                }
                if sequence == 20 { text += "#EXT-X-DISCONTINUITY\n" }
                text += "#EXT-X-PROGRAM-DATE-TIME:\(DateTime.iso8601(millisecondsSinceEpoch: Int64(LiveSessionTests.epoch + 2 * sequence) * 1000))\n"
                text += "#EXTINF:2.000,\n\(rendition)/s\(sequence).ts\n"
            }
            return text
        }
    }

    static func vod(_ name: String, segments: Int) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        for index in 0..<segments { text += "#EXTINF:2.000,\n\(name)\(index).ts\n" }
        return text + "#EXT-X-ENDLIST\n"
    }

    /// The campaign on `channel` at segment `last`: ads alpha (4 s), bravo (2 s), long (6 s), a 2 s slate.
    static func load(_ yaml: String, channel: Channel = Channel(breaks: []), last: Int = 5) throws(CampaignError) -> Campaign {
        var playlists = ["s/master.m3u8": Self.master, "s/v0.m3u8": Self.vod("slate", segments: 1), "s/v1.m3u8": Self.vod("slate", segments: 1)]
        for (name, segments) in [("alpha", 2), ("bravo", 1), ("long", 3)] {
            // `long` runs above the channel's lowest variant (450 kb/s for 400): the session's BANDWIDTH must say so.
            playlists["\(name)/master.m3u8"] =
                name == "long"
                ? Self.master.replacingOccurrences(of: "800000", with: "950000").replacingOccurrences(of: "400000", with: "450000") : Self.master
            for rendition in ["v0", "v1"] { playlists["\(name)/\(rendition).m3u8"] = Self.vod("\(rendition)-\(name)", segments: segments) }
        }
        let remote: PlaylistSource.Fetch = { url, _ in
            switch url.lastPathComponent {
            case "master.m3u8": (Data(Self.master.utf8), url)
            case let name: (Data(channel.playlist(String(name.dropLast(5)), last: last).utf8), url)
            }
        }
        return try CampaignLoader.load(
            yaml: "version: 1\nid: live\n" + yaml,
            file: Self.root.appendingPathComponent("campaign.yaml"),
            source: .memory(playlists, root: Self.root, remote: remote)
        )
    }

    static let campaign = """
        program: { live: "https://origin.test/channel/master.m3u8" }
        marker_breaks: { duration: 8, pools: [prime], restrict: [skip] }
        slate: { playlist: s/master.m3u8 }
        pools:
          prime:
            - { id: alpha, playlist: alpha/master.m3u8 }
            - { id: bravo, playlist: bravo/master.m3u8 }
          long:
            - { id: long, playlist: long/master.m3u8 }
        markers: [daterange, cue]
        """

    /// What a viewer's playlists listed over the polls, per rendition: each media sequence
    /// number's segment (URI without its rendition) and discontinuity number.
    struct Observed {
        var segments: [Int: String] = [:]
        var discontinuities: [Int: Int] = [:]
        var mediaSequences: [Int] = []
        var manifests: [String] = []
    }

    /// The channel's window of each rendition (`v0`, `v1`) at segment `last`, as the poller reads
    /// them; `tracker` observes the first.
    static func windows(_ channel: Channel, last: Int, tracker: inout LiveBreakTracker) throws -> [LiveRenditionWindow] {
        var windows: [LiveRenditionWindow] = []
        for rendition in ["v0", "v1"] {
            let playlist = try PlaylistParser().parseMediaPlaylist(
                channel.playlist(rendition, last: last),
                url: URL(string: "https://origin.test/channel/\(rendition).m3u8")!
            )
            if rendition == "v0" { tracker.observe(playlist) }
            windows.append(try #require(LiveRenditionWindow(playlist)))
        }
        return windows
    }

    /// Polls the channel from segment `from` to `to`, the viewer joining after segment
    /// `joinedAfter`; the tracker starts with `history` (a replica starting late reads it).
    static func watch(
        _ campaign: Campaign,
        _ channel: Channel,
        joinedAfter: Int,
        from: Int,
        to: Int,
        session: String = "viewer-1",
        history: [LiveBreak] = [],
        breaks: ((([LiveBreak]) -> Void))? = nil
    ) throws -> [String: Observed] {
        let live = try #require(campaign.live)
        let layout = try StitchLayout(campaign: campaign, uris: .absolute)
        let renderer = SessionRenderer(layout: layout)
        let plan = Planner().plan(campaign, for: ViewerContext(session: session, milliseconds: Int64(Self.epoch) * 1000, attributes: [:]))
        var tracker = LiveBreakTracker(defaultDuration: live.defaultDuration, history: history)
        defer { breaks?(tracker.breaks) }
        var observed: [String: Observed] = [:]
        for last in from...to {
            let windows = try Self.windows(channel, last: last, tracker: &tracker)
            // The session's files as the server makes them: through the live session kind, over
            // the channel at this poll (its live edge the windows' latest end).
            let kind = LiveSessionKind(
                renderer: renderer,
                reporting: campaign.reporting,
                channel: LiveSessionKind.Channel(windows: windows, breaks: tracker.breaks, joined: joinedAfter + 1)
            )
            #expect(kind.files == [.multivariant] + layout.renditions.map(SessionFile.playlist) + [.boundaries])
            #expect(kind.file(named: "tracking.json") == nil && kind.file(named: "assets-x.json") == nil)
            let ends = windows.compactMap { $0.segments.last?.end }
            let edge = try #require(ends.max())
            let schedule = try LiveSchedule(plan: plan, live: live, layout: layout, breaks: tracker.breaks, joined: joinedAfter + 1, liveEdge: edge)
            for (index, rendition) in layout.renditions.enumerated() {
                let text = try kind.render(.playlist(rendition), plan).text
                #expect(text == (try renderer.livePlaylist(schedule, rendition: rendition, window: windows[index]).text))
                let playlist = try PlaylistParser().parseMediaPlaylist(text, url: URL(string: "https://adstitch.test/s/\(rendition.id).m3u8")!)
                let errors = PlaylistLinter().lint(playlist).filter { $0.severity == .error }
                #expect(errors.isEmpty, "poll \(last), \(rendition.id): \(errors)\n\(text)")
                #expect(!playlist.hasEndList && playlist.playlistType == nil, "a live playlist")
                var seen = observed[rendition.id, default: Observed()]
                seen.mediaSequences.append(playlist.mediaSequence)
                for segment in playlist.segments {
                    // `s12.ts`, `alpha0.ts`, `slate0.ts`: the file without its rendition.
                    let file = String(segment.uri.split(separator: "/").last ?? Substring(segment.uri))
                    let identity = file.hasPrefix("v0-") || file.hasPrefix("v1-") ? String(file.dropFirst(3)) : file
                    let number = segment.mediaSequenceNumber
                    if let earlier = seen.segments[number] {
                        #expect(earlier == identity, "poll \(last), \(rendition.id): segment \(number) was \(earlier), now \(identity)")
                    }
                    if let earlier = seen.discontinuities[number] {
                        #expect(
                            earlier == segment.discontinuitySequenceNumber,
                            "poll \(last), \(rendition.id): segment \(number)'s discontinuity number moved"
                        )
                    }
                    seen.segments[number] = identity
                    seen.discontinuities[number] = segment.discontinuitySequenceNumber
                }
                if index == 0 {
                    let manifest = schedule.manifest(windows[0], trackers: true).text(pretty: false)
                    #expect(
                        try kind.render(.boundaries, plan).text
                            == schedule.manifest(windows[0], trackers: kind.reporting.handsTrackersToPlayer).text()
                    )
                    let violations = try ManifestSchema.live.get().violations(of: try ExactJSON.parse(manifest))
                    #expect(violations.isEmpty, "poll \(last): \(violations)\n\(manifest)")
                    seen.manifests.append(manifest)
                }
                observed[rendition.id] = seen
            }
        }
        return observed
    }

    @Test(
        "a live campaign's sessions are live, stitched or as the channel's interstitials; without the channel read, a playlist or an asset list is an error, not an empty file"
    )
    func liveKind() throws {
        let channel = Channel(breaks: [(10, 4, 4)])
        let campaign = try Self.load(Self.campaign, channel: channel)
        let renderer = SessionRenderer(layout: try StitchLayout(campaign: campaign, uris: .absolute))
        let plan = Planner().plan(campaign, for: ViewerContext(session: "kind", milliseconds: Int64(Self.epoch) * 1000, attributes: [:]))
        for insertion in [Insertion.stitched, .interstitials] {
            let kind = renderer.session(insertion, reporting: .client)
            #expect(
                insertion == .stitched
                    ? kind.name == "live" && kind is LiveSessionKind : kind.name == "live interstitial" && kind is LiveInterstitialSessionKind
            )
            #expect(!kind.files.contains(.tracking), "a live session's player fires its events from the boundary manifest or the asset lists")
            #expect(throws: StitchError.self) { try kind.render(.playlist(renderer.layout.renditions[0]), plan) }
            #expect(throws: StitchError.self) { try kind.render(.tracking, plan) }
            if insertion == .stitched {
                #expect(throws: StitchError.self) { try kind.render(.boundaries, plan) }
            } else {
                #expect(kind.file(named: "assets-seq-10.json") == .assetList("seq-10"))
                #expect(kind.file(named: "assets-a%2Fb.json") == nil && kind.file(named: "assets-.json") == nil)
                #expect(throws: StitchError.self) { try kind.render(.assetList("seq-10"), plan) }
            }
            let text = try kind.render(.multivariant, plan).text
            let master = try PlaylistParser().parseMultivariantPlaylist(text)
            #expect(master.variants.count == renderer.layout.renditions.count)
            // An interstitial session has no boundary manifest: its player reads the date ranges.
            #expect(text.contains("boundaries.json") == (insertion == .stitched))
        }
    }

    @Test("numbers never change across polls and agree across renditions; ads replace exactly the marked stretches; lint-clean")
    func numbersAndStretches() throws {
        // A 8 s break at 10–13, one announced 8 s ending early at 24 (22–23), one announced 6 s
        // whose CUE-IN never comes (ends at its duration: 32–34).
        let channel = Channel(breaks: [(10, 4, 4), (22, 4, 2), (32, 3, nil)])
        let campaign = try Self.load(Self.campaign, channel: channel)
        let observed = try Self.watch(campaign, channel, joinedAfter: 5, from: 5, to: 45)
        let v0 = try #require(observed["v0"])
        let v1 = try #require(observed["v1"])
        #expect(v0.segments == v1.segments, "the same segment under every number in both renditions")
        #expect(v0.discontinuities == v1.discontinuities)
        for sequences in [v0.mediaSequences, v1.mediaSequences] { #expect(sequences == sequences.sorted(), "EXT-X-MEDIA-SEQUENCE never goes back") }

        // In play order: programme segments are exactly those outside the replaced stretches.
        let order = v0.segments.sorted { $0.key < $1.key }.map(\.value)
        let programme = order.compactMap { $0.hasPrefix("s") ? Int($0.dropFirst().dropLast(3)) : nil }
        let replaced = Set(10..<14).union(22..<24).union(32..<35)
        #expect(programme == (0...45).filter { !replaced.contains($0) && $0 >= programme.first ?? 0 }, "\(programme)")
        // What plays instead, in order, between the programme around each stretch.
        func fill(after before: Int) throws -> [String] {
            let start = try #require(order.firstIndex(of: "s\(before).ts"))
            return Array(order[(start + 1)...].prefix { !$0.hasPrefix("s") || $0.hasPrefix("slate") })
        }
        let first = try fill(after: 9)
        #expect(first.count == 4 && first.allSatisfy { $0.hasPrefix("alpha") || $0.hasPrefix("bravo") || $0.hasPrefix("slate") }, "\(first)")
        #expect(first.filter { $0.hasPrefix("alpha") } == ["alpha0.ts", "alpha1.ts"], "alpha plays whole: \(first)")
        #expect(try fill(after: 21).count == 2, "an early CUE-IN: the fill ends with the stretch (4 s)")
        #expect(try fill(after: 31).count == 3, "no CUE-IN: the break ends at its announced 6 s")

        // Discontinuities: one before each piece of a fill and at the return, the origin's own kept.
        let numbers = v0.segments.keys.sorted()
        for (previous, number) in zip(numbers, numbers.dropFirst()) {
            let step = (v0.discontinuities[number] ?? 0) - (v0.discontinuities[previous] ?? 0)
            let (before, after) = (v0.segments[previous] ?? "", v0.segments[number] ?? "")
            let programme = { (uri: String) in uri.hasPrefix("s") && !uri.hasPrefix("slate") }
            let samePiece = programme(before) && programme(after) && after != "s20.ts" || before == "alpha0.ts" && after == "alpha1.ts"
            #expect(step == (samePiece ? 0 : 1), "\(before) → \(after): discontinuity step \(step)")
        }
    }

    @Test("the same viewer gets the same ads on every poll and every replica; another viewer's draw differs somewhere")
    func deterministicAds() throws {
        let channel = Channel(breaks: [(10, 4, 4), (20, 4, 4), (30, 4, 4), (40, 4, 4)])
        let campaign = try Self.load(Self.campaign, channel: channel)
        // A replica that starts polling at segment 32, after two breaks left the window, with the
        // history of what it missed, numbers every segment as the one that saw them all.
        var seen: [LiveBreak] = []
        let early = try Self.watch(campaign, channel, joinedAfter: 5, from: 5, to: 50) { seen = $0 }
        #expect(seen.count == 4 && seen.allSatisfy { $0.closing != nil })
        let history = seen.filter { $0.first < 26 }
        let late = try Self.watch(campaign, channel, joinedAfter: 5, from: 32, to: 50, history: history)
        let lateSegments = try #require(late["v0"]?.segments)
        #expect(!lateSegments.isEmpty && lateSegments == early["v0"]?.segments.filter { lateSegments.keys.contains($0.key) })
        #expect(lateSegments.keys.min().map { $0 > 20 } == true)
        let withoutHistory = try Self.watch(campaign, channel, joinedAfter: 5, from: 32, to: 50)
        #expect(withoutHistory["v0"]?.discontinuities != late["v0"]?.discontinuities, "the history is what makes them agree")
        var differs = false
        for index in 2...12 {
            let other = try Self.watch(campaign, channel, joinedAfter: 5, from: 40, to: 50, session: "viewer-\(index)")
            let mine = early["v0"]?.segments.filter { $0.key >= 40 }
            if other["v0"]?.segments.filter({ $0.key >= 40 }) != mine { differs = true }
        }
        #expect(differs, "ads are drawn per viewer")
    }

    @Test("join_mid_break: slate fills the rest of the break airing at the join; program leaves it as broadcast")
    func joinMidBreak() throws {
        let channel = Channel(breaks: [(10, 4, 4)])
        let slate = try Self.watch(try Self.load(Self.campaign, channel: channel), channel, joinedAfter: 11, from: 11, to: 20)
        let slateOrder = try #require(slate["v0"]).segments.sorted { $0.key < $1.key }.map(\.value)
        #expect(!slateOrder.contains("s12.ts") && !slateOrder.contains("s13.ts"))
        #expect(slateOrder.filter { $0.hasPrefix("slate") }.count >= 2 && !slateOrder.contains { $0.hasPrefix("alpha") || $0.hasPrefix("bravo") })
        let program = try Self.watch(
            try Self.load(Self.campaign + "\njoin_mid_break: program", channel: channel),
            channel,
            joinedAfter: 11,
            from: 11,
            to: 20
        )
        let programOrder = try #require(program["v0"]).segments.sorted { $0.key < $1.key }.map(\.value)
        #expect(programOrder.contains("s12.ts") && programOrder.contains("s13.ts") && !programOrder.contains { $0.hasPrefix("slate") })
    }

    @Test(
        "server-side reporting: each tracked ad's event segments are beacon links placed by the break and the ad's place in its fill, the same at every poll; the rest of the playlist is the same bytes; an ad a break's early end cuts short never reaches its complete"
    )
    func beaconLinks() throws {
        // alpha (two 2 s segments) tracks every event, bravo (one) its impression; the second
        // break ends after 2 s, cutting whatever ad opens it.
        let tracked = Self.campaign.replacingOccurrences(
            of: "{ id: alpha, playlist: alpha/master.m3u8 }",
            with: """
                { id: alpha, playlist: alpha/master.m3u8, tracking: { impression: [i], start: [s], firstQuartile: [q1], midpoint: [m], thirdQuartile: [q3], complete: [c] } }
                """
        ).replacingOccurrences(
            of: "{ id: bravo, playlist: bravo/master.m3u8 }",
            with: "{ id: bravo, playlist: bravo/master.m3u8, tracking: { impression: [i] } }"
        )
        let channel = Channel(breaks: [(10, 4, 4), (20, 4, 1)])
        let campaign = try Self.load(tracked, channel: channel)
        let live = try #require(campaign.live)
        let layout = try StitchLayout(campaign: campaign, uris: .absolute)
        let renderer = SessionRenderer(layout: layout)
        let links = BeaconLinks { place, events, target in "BEACON \(place) \(events.rawValue) \(target)" }
        var tracker = LiveBreakTracker(defaultDuration: live.defaultDuration)
        var linked: [String: Set<String>] = [:]  // rendition: "break/piece events segment"
        var checked = 0
        for viewer in 0..<6 {
            let plan = Planner().plan(
                campaign,
                for: ViewerContext(session: "beacons-\(viewer)", milliseconds: Int64(Self.epoch) * 1000, attributes: [:])
            )
            tracker = LiveBreakTracker(defaultDuration: live.defaultDuration)
            var stable: [String: String] = [:]  // "rendition number" → its link, across polls
            for last in 5...30 {
                let windows = try Self.windows(channel, last: last, tracker: &tracker)
                let kind = LiveSessionKind(
                    renderer: renderer,
                    reporting: .server,
                    channel: LiveSessionKind.Channel(windows: windows, breaks: tracker.breaks, joined: 6)
                )
                let schedule = try kind.schedule(plan)
                for rendition in layout.renditions {
                    let plain = try kind.render(.playlist(rendition), plan).text
                    let text = try kind.render(.playlist(rendition), plan, links: SessionLinks(beacons: links)).text
                    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
                    let restored = lines.map { $0.hasPrefix("BEACON ") ? $0.split(separator: " ", maxSplits: 3)[3] : $0 }
                    #expect(restored.joined(separator: "\n") == plain, "poll \(last) \(rendition.id): only the links differ")
                    // Each segment's line by its media sequence number: a number keeps its link.
                    let numbered = try PlaylistParser().parseMediaPlaylist(text, url: URL(string: "https://adstitch.test/s/v.m3u8")!)
                    for segment in numbered.segments where segment.uri.hasPrefix("BEACON ") {
                        let line = String(segment.uri)
                        let fields = line.split(separator: " ", maxSplits: 3).map(String.init)
                        let place = fields[1].split(separator: "/")
                        let fill = try #require(schedule.fills[String(place[0])], "\(line)")
                        let ad = try #require(fill.pieces[Int(place[1]) ?? -1].ad, "\(line): the place names an ad")
                        #expect(fields[3].contains("/\(rendition.id)-\(ad.id)"), "\(line): the link goes to the ad's own segment")
                        let key = "\(rendition.id) \(segment.mediaSequenceNumber)"
                        if let earlier = stable[key] { #expect(earlier == line, "poll \(last): the link moved") }
                        stable[key] = line
                        linked[rendition.id, default: []].insert("\(fields[1]) \(fields[2]) \(fields[3].split(separator: "/").last ?? "")")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked > 0, "no tracked ad played: the test checks nothing")
        // Each rendition's links, the events where they fall: alpha's first segment impression to
        // midpoint (15), its second the third quartile and complete (48); bravo's its impression.
        for (rendition, seen) in linked {
            for entry in seen {
                let fields = entry.split(separator: " ")
                switch fields[2] {
                case "\(rendition)-alpha0.ts": #expect(fields[1] == "15", "\(entry)")
                case "\(rendition)-alpha1.ts": #expect(fields[1] == "48", "\(entry)")
                case "\(rendition)-bravo0.ts": #expect(fields[1] == "1", "\(entry)")
                default: Issue.record("\(rendition): a link to \(entry)")
                }
            }
            #expect(["alpha0.ts", "alpha1.ts", "bravo0.ts"].allSatisfy { file in seen.contains { $0.hasSuffix("-" + file) } }, "\(seen)")
            // The cut break (20, 2 s): an alpha that opens it lists its first segment only.
            let cut = seen.filter { $0.hasPrefix("seq-20/") }
            #expect(!cut.isEmpty && !cut.contains { $0.hasSuffix("alpha1.ts") }, "\(rendition): \(cut)")
        }
    }

    @Test("an early CUE-IN cuts the playing ad at a segment boundary, and the boundary manifest says so")
    func earlyEndCutsTheAd() throws {
        let channel = Channel(breaks: [(10, 4, 2)])
        let yaml = Self.campaign.replacingOccurrences(of: "pools: [prime]", with: "pools: [long]")
        let observed = try Self.watch(try Self.load(yaml, channel: channel), channel, joinedAfter: 5, from: 5, to: 15)
        let v0 = try #require(observed["v0"])
        let order = v0.segments.sorted { $0.key < $1.key }.map(\.value)
        #expect(order.filter { $0.hasPrefix("long") } == ["long0.ts", "long1.ts"], "\(order)")
        let manifest = try #require(v0.manifests.last { $0.contains("\"long\"") })
        #expect(manifest.contains("\"cut\":true") && manifest.contains("\"open\":false") && manifest.contains("\"duration\":4"), "\(manifest)")
        let open = try #require(v0.manifests.first { $0.contains("\"open\":true") })
        #expect(!open.contains("\"cut\""), "an open break cuts nothing yet")
    }

    @Test("the multivariant playlist of a live session: BANDWIDTH never below the channel's or any ad's that may play (invariant 9)")
    func multivariant() throws {
        let campaign = try Self.load(Self.campaign)
        let renderer = SessionRenderer(layout: try StitchLayout(campaign: campaign, uris: .absolute))
        let plan = Planner().plan(campaign, for: ViewerContext(session: "m", milliseconds: Int64(Self.epoch) * 1000, attributes: [:]))
        let text = try renderer.multivariant(plan, playlistURI: { "\($0.id).m3u8" }, boundariesURI: "boundaries.json")
        let master = try PlaylistParser().parseMultivariantPlaylist(text)
        #expect(master.variants.compactMap(\.streamInf.bandwidth).sorted() == [450_000, 800_000], "\(text)")
    }

    @Test(
        "a live campaign's mistakes name the field and what to do",
        arguments: [
            (
                "marker_breaks",
                "program: { live: \"https://origin.test/channel/master.m3u8\" }\nslate: { playlist: s/master.m3u8 }\npools: { prime: [ { id: alpha, playlist: alpha/master.m3u8 } ] }"
            ),
            (
                "slate",
                "program: { live: \"https://origin.test/channel/master.m3u8\" }\nmarker_breaks: { duration: 8, pools: [prime] }\npools: { prime: [ { id: alpha, playlist: alpha/master.m3u8 } ] }"
            ),
            (
                "marker_breaks.duration",
                "program: { live: \"https://origin.test/channel/master.m3u8\" }\nmarker_breaks: { pools: [prime] }\nslate: { playlist: s/master.m3u8 }\npools: { prime: [ { id: alpha, playlist: alpha/master.m3u8 } ] }"
            ),
            ("breaks", LiveSessionTests.campaign + "\nbreaks: [ { id: x, at: 3, duration: 4, pools: [prime] } ]"),
            // Interstitials report client-side so far: with the default (server), refused.
            ("insertion", LiveSessionTests.campaign + "\ninsertion: interstitials"),
            ("insertion", LiveSessionTests.campaign + "\ninsertion: auto\nreporting: server"),
            ("join_mid_break", LiveSessionTests.campaign + "\njoin_mid_break: ads"),
            (
                "program.live",
                LiveSessionTests.campaign.replacingOccurrences(of: "https://origin.test/channel/master.m3u8", with: "channel/master.m3u8")
            ),
        ]
    )
    func mistakes(field: String, yaml: String) throws {
        do {
            _ = try Self.load(yaml)
            Issue.record("\(field): loaded")
        } catch {
            #expect(error.issues.contains { $0.field == field }, "\(error)")
        }
    }

    @Test(
        "a live channel's breaks ask a VAST ad server as they open; a VMAP schedule (top-level or named) is refused with its field and what to give"
    )
    func liveAdServers() throws {
        let vast = try Self.load(Self.campaign + "\nad_server: { vast: \"https://ads.test/vast?sid={session}&b={break.id}\", fallback: [prime] }\n")
        #expect(vast.asksAdServers && vast.live != nil)
        for (block, field) in [
            ("ad_server: { vmap: \"https://ads.test/vmap?sid={session}\" }", "ad_server"),
            ("ad_servers: { gam: { vmap: \"https://ads.test/vmap?sid={session}\" } }", "ad_servers.gam"),
        ] {
            do {
                _ = try Self.load(Self.campaign + "\n" + block + "\n")
                Issue.record("\(field): a VMAP ad server on a live channel loaded")
            } catch {
                let issue = try #require(error.issues.first)
                #expect(issue.field == field && issue.message.contains("give vast:"), "\(error.issues)")
                #expect(issue.line == 13, "the block's line: \(issue)")
            }
        }
    }

    @Test("the windows read at load are neither in the revision nor polled; an ended channel is refused")
    func windowsAtLoad() throws {
        let early = try Self.load(Self.campaign, last: 5)
        let later = try Self.load(Self.campaign, last: 30)
        #expect(early.revision == later.revision, "a window that moved is not a new revision")
        #expect(early.live?.asset.variants.count == 2 && early.live?.joinMidBreak == .slate && early.live?.pools == ["prime"])
        let observedURLs = LockedURLs()
        let source = PlaylistSource.memory(
            [
                "s/master.m3u8": Self.master, "s/v0.m3u8": Self.vod("slate", segments: 1), "s/v1.m3u8": Self.vod("slate", segments: 1),
                "alpha/master.m3u8": Self.master, "alpha/v0.m3u8": Self.vod("a", segments: 2), "alpha/v1.m3u8": Self.vod("a", segments: 2),
                "bravo/master.m3u8": Self.master, "bravo/v0.m3u8": Self.vod("b", segments: 1), "bravo/v1.m3u8": Self.vod("b", segments: 1),
                "long/master.m3u8": Self.master, "long/v0.m3u8": Self.vod("l", segments: 3), "long/v1.m3u8": Self.vod("l", segments: 3),
            ],
            root: Self.root,
            remote: { url, _ in
                url.lastPathComponent == "master.m3u8"
                    ? (Data(Self.master.utf8), url) : (Data(Channel(breaks: []).playlist("v0", last: 5).utf8), url)
            }
        ).observingRemote { url, _ in observedURLs.add(url) }
        _ = try CampaignLoader.load(
            yaml: "version: 1\nid: live\n" + Self.campaign,
            file: Self.root.appendingPathComponent("campaign.yaml"),
            source: source
        )
        #expect(observedURLs.all == [Self.live], "only the multivariant playlist is watched for changes")

        let ended = Self.vod("x", segments: 2)
        let endedSource = PlaylistSource.memory(["s/master.m3u8": Self.master], root: Self.root) { url, _ in
            (Data((url.lastPathComponent == "master.m3u8" ? Self.master : ended).utf8), url)
        }
        do {
            _ = try CampaignLoader.load(
                yaml: "version: 1\nid: live\n" + Self.campaign,
                file: Self.root.appendingPathComponent("campaign.yaml"),
                source: endedSource
            )
            Issue.record("an ended channel loaded")
        } catch {
            #expect(error.issues.contains { $0.field == "live" && $0.message.contains("EXT-X-ENDLIST") }, "\(error)")
        }
    }
}

final class LockedURLs: @unchecked Sendable {
    private let lock = NSLock()
    private var urls: [URL] = []
    func add(_ url: URL) { self.lock.withLock { self.urls.append(url) } }
    var all: [URL] { self.lock.withLock { self.urls } }
}

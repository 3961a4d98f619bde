import Foundation
import Testing

@testable import AdQuality

/// The server's own view of a session (docs/quality.md "The server's own view"): what one replica
/// saw, the views of several merged, the CMCD v1 keys of requests, and the figures estimated from
/// them when the player reported nothing — checked on worked examples and as properties over
/// generated sessions.
@Suite("The server's view of sessions")
struct ServerViewTests {
    static let session = SessionQualityTests.session()

    @Test("CMCD v1 from the query argument (percent-encoded) and from the four headers; a payload that does not parse is none")
    func cmcdRequests() throws {
        let query = try #require(
            CMCDRequest.queryValue(
                inPath: "/v1/c/sessions/t/v0.m3u8?x=1&CMCD=bl%3D21300%2Cbr%3D3200%2Cbs%2Cmtp%3D25400%2Cot%3Dm%2Csid%3D%22a-b%22%2Csu"
            )
        )
        let fromQuery = try #require(CMCDRequest(query: query, headers: []))
        #expect(fromQuery.starved && fromQuery.starting)
        #expect(fromQuery.bitrate == 3200 && fromQuery.buffer == 21300 && fromQuery.throughput == 25400)
        #expect(fromQuery.session == "a-b" && fromQuery.objectType == "m")

        let fromHeaders = try #require(
            CMCDRequest(query: nil, headers: ["bl=500,mtp=800", "br=1200,ot=v", "bs=?0,rtp=1500", #"sid="s-1""#])
        )
        #expect(!fromHeaders.starved && !fromHeaders.starting && fromHeaders.bitrate == 1200 && fromHeaders.buffer == 500)
        #expect(fromHeaders.session == "s-1")

        #expect(CMCDRequest.queryValue(inPath: "/v1/c/sessions/t/v0.m3u8") == nil)
        #expect(CMCDRequest.queryValue(inPath: "/v1/c/sessions/t/v0.m3u8?NOTCMCD=bs") == nil)
        #expect(CMCDRequest(query: nil, headers: []) == nil)
        #expect(CMCDRequest(query: "%22unterminated", headers: []) == nil)
        #expect(CMCDRequest(query: nil, headers: ["BR=9"]) == nil)
        // A value out of range is not read; the rest of the payload is.
        #expect(CMCDRequest(query: nil, headers: ["br=-5,bs"]).map { $0.bitrate == nil && $0.starved } == true)
        #expect(CMCDRequest(query: String(repeating: "a,", count: 3_000), headers: []) == nil)
    }

    /// A segment through a beacon link of no ad the figures count.
    static func segment(_ stream: Int64) -> ServerView.Observation.What {
        .segment(stream: stream, ad: .init(piece: 0, breakID: nil, tracked: 0, fetched: 0, end: nil))
    }

    /// `view.add(observation)` (a mutating call inside `#expect` does not compile).
    static func adds(_ view: inout ServerView, _ observation: ServerView.Observation) -> Bool { view.add(observation) }

    @Test("a view notes the start, a switch only when the rendition changes, a segment once, and says when it changed")
    func viewChanges() {
        var view = ServerView(replica: "r1", at: 1_000, live: false, segmentAtStart: true)
        #expect(Self.adds(&view, .init(.master, at: 1_000)))
        #expect(Self.adds(&view, .init(.video("v1", bandwidth: 800_000), at: 1_100)))
        #expect(Self.adds(&view, .init(.playlist, at: 1_150)) == false)
        #expect(Self.adds(&view, .init(.video("v1", bandwidth: 800_000), at: 1_200)) == false)
        #expect(Self.adds(&view, .init(.video("v2", bandwidth: 1_600_000), at: 5_000)))
        #expect(Self.adds(&view, .init(Self.segment(0), at: 1_300)))
        #expect(Self.adds(&view, .init(Self.segment(0), at: 1_400)) == false)
        #expect(Self.adds(&view, .init(.file, at: 9_000)) == false)
        #expect(view.master == 1_000 && view.firstPlaylist == 1_100 && view.first == 1_000 && view.last == 9_000 && view.fetches == 8)
        #expect(view.switches.map(\.rendition) == ["v1", "v2"] && view.segments.count == 1)
        // CMCD: a starvation is a change; the same bitrate again is not listed again.
        #expect(Self.adds(&view, .init(.file, at: 9_100, cmcd: CMCDRequest(query: nil, headers: ["bs,br=800"]))))
        #expect(Self.adds(&view, .init(.file, at: 9_200, cmcd: CMCDRequest(query: nil, headers: ["br=800"]))))
        #expect(view.cmcd?.starvations == 1 && view.cmcd?.requests == 2 && view.cmcd?.bitrates.count == 1)
        #expect(Self.adds(&view, .init(.file, at: 9_300, playbackSession: "F00D")) && view.playbackSession == "F00D")
        // Bounds: segments and switches stop growing.
        for index in 0..<500 {
            view.add(.init(Self.segment(Int64(index) * 10), at: 10_000 + Int64(index)))
            view.add(.init(.video("v\(index % 3)", bandwidth: nil), at: 10_000 + Int64(index)))
        }
        #expect(view.segments.count == ServerView.maxSegments && view.switches.count == ServerView.maxSwitches)
        view.add(.init(.file, at: 20_000, playbackSession: String(repeating: "x", count: 10_000)))
        #expect(view.playbackSession == "F00D")
    }

    @Test(
        "the views of two replicas merge into one: the earliest start, switches and segments in time order, counts summed, the starting replica named"
    )
    func merging() throws {
        var one = ServerView(replica: "r1", at: 1_000, live: false, segmentAtStart: false)
        one.add(.init(.master, at: 1_000))
        one.add(.init(.video("v0", bandwidth: 500_000), at: 1_100))
        one.add(.init(Self.segment(10_000), at: 11_000))
        var two = ServerView(replica: "r2", at: 1_050, live: false, segmentAtStart: false)
        two.add(.init(.video("v0", bandwidth: 500_000), at: 1_150))
        two.add(.init(.video("v1", bandwidth: 900_000), at: 20_000))
        two.add(.init(Self.segment(10_000), at: 11_010))
        two.add(.init(Self.segment(20_000), at: 21_000))
        let merged = try #require(ServerView.merged([two, one]))
        #expect(merged.replica == "r1" && merged.master == 1_000 && merged.firstPlaylist == 1_100)
        #expect(merged.switches.map(\.rendition) == ["v0", "v1"])
        #expect(merged.segments.map(\.stream) == [10_000, 20_000])
        #expect(merged.fetches == 7 && merged.first == 1_000 && merged.last == 21_000)
        #expect(ServerView.merged([]) == nil)
    }

    /// A view of a session played from wall time `origin`: a segment fetched at each stream time
    /// in `stream`, each `lead` ms ahead of the playhead, the playhead held still for `stall` ms
    /// before the segment at the index given.
    static func played(_ stream: [Int64], stalls: [Int: Int64], origin: Int64 = 1_000_000, lead: Int64 = 4_000) -> ServerView {
        var view = ServerView(replica: "r1", at: origin, live: false, segmentAtStart: true)
        view.add(.init(.master, at: origin))
        view.add(.init(.video("v1", bandwidth: 1_000_000), at: origin + 50))
        var held: Int64 = 0
        for (index, time) in stream.enumerated() {
            held += stalls[index] ?? 0
            view.add(.init(Self.segment(time), at: origin + 100 + max(0, time - lead) + held))
        }
        return view
    }

    @Test(
        "without player reports the figures are estimates: stalls where wall time ran ahead of stream time, placed on the timeline; watched to the furthest segment"
    )
    func estimates() {
        // Segments at the ads' quartiles and the slate; a 3 s stall before the midpoint of alpha,
        // 1.5 s (hidden by the tolerance) before bravo.
        let view = Self.played([10_000, 13_750, 17_500, 21_250, 25_000, 60_000], stalls: [2: 3_000, 5: 1_500])
        let quality = SessionQuality(session: Self.session, events: [QualityEvent(kind: .server, received: 0, view: view)], now: 1_005_000)
        #expect(quality.estimated && quality.startupMilliseconds == nil && !quality.failed)
        #expect(quality.stalls.count == 1)
        #expect(quality.stalls.first?.ms == 3_000 && quality.stalls.first?.at == 17_500)
        #expect(quality.stalls.first?.place?.breakID == "mid-1" && quality.stalls.first?.place?.piece == "alpha")
        #expect(quality.watchedMilliseconds == 60_000)
        #expect(quality.twib == 1_000_000 && quality.replica == "r1")

        // A player late by 1.2 s at each of four segments: the rises add up, a stall is seen when
        // they pass the tolerance (2.4 s), then again (2.4 s).
        let late = Self.played([0, 1_920, 3_840, 5_760, 7_680], stalls: [1: 1_200, 2: 1_200, 3: 1_200, 4: 1_200], lead: 0)
        let lateQuality = SessionQuality(session: Self.session, events: [QualityEvent(kind: .server, received: 0, view: late)])
        #expect(lateQuality.stalls.map(\.ms) == [2_400, 2_400] && lateQuality.stalls.map(\.at) == [3_840, 7_680])

        // The player's own reports win: the view adds nothing to the figures.
        let reported = SessionQuality(
            session: Self.session,
            events: [QualityEvent(kind: .server, received: 0, view: view), QualityEvent(kind: .startup, ms: 700, received: 0)]
        )
        #expect(!reported.estimated && reported.stalls.isEmpty && reported.startupMilliseconds == 700 && reported.server != nil)
    }

    @Test(
        "estimated stalls, as a property over generated sessions: each stall longer than the tolerance found with its length, none where there was none"
    )
    func estimatedStallsProperty() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let count = Int.random(in: 2...40, using: &generator)
            var time: Int64 = 0
            var stream: [Int64] = []
            for _ in 0..<count {
                stream.append(time)
                time += Int64.random(in: 1...12_000, using: &generator)
            }
            var stalls: [Int: Int64] = [:]
            for index in 1..<count where Bool.random(using: &generator) && Bool.random(using: &generator) {
                stalls[index] = Int64.random(in: 2_001...90_000, using: &generator)
            }
            let view = Self.played(stream, stalls: stalls, lead: 0)
            let quality = SessionQuality(session: Self.session, events: [QualityEvent(kind: .server, received: 0, view: view)])
            #expect(quality.stalls.count == stalls.count)
            #expect(quality.stallMilliseconds == stalls.values.reduce(0, +))
            #expect(Set(quality.stalls.compactMap(\.at)) == Set(stalls.keys.map { stream[$0] }))
            #expect(quality.watchedMilliseconds == stream.last)
        }
    }

    @Test("a start with no media playlist a minute on, or no first segment where it is a beacon link, failed; not before a minute")
    func abandonedStarts() {
        var master = ServerView(replica: "r1", at: 0, live: false, segmentAtStart: false)
        master.add(.init(.master, at: 0))
        func quality(_ view: ServerView, now: Int64?) -> SessionQuality {
            SessionQuality(session: Self.session, events: [QualityEvent(kind: .server, received: 0, view: view)], now: now)
        }
        #expect(!quality(master, now: 59_999).failed)
        #expect(quality(master, now: 60_000).failed)
        #expect(!quality(master, now: nil).failed)
        var noSegment = ServerView(replica: "r1", at: 0, live: false, segmentAtStart: true)
        noSegment.add(.init(.master, at: 0))
        noSegment.add(.init(.video("v0", bandwidth: nil), at: 100))
        #expect(!quality(noSegment, now: 60_099).failed && quality(noSegment, now: 60_100).failed)
        var noBeacon = noSegment
        noBeacon.segmentAtStart = false
        #expect(!quality(noBeacon, now: 10_000_000).failed)
        var played = noSegment
        played.add(.init(Self.segment(0), at: 500))
        #expect(!quality(played, now: 10_000_000).failed)
        // A live interstitial session's media playlists are the channel's, which a CDN may answer
        // for every replica: a start not seen fetching one is not judged by it.
        var live = ServerView(replica: "r1", at: 0, live: true, segmentAtStart: false)
        live.add(.init(.master, at: 0))
        var interstitial = Self.session
        interstitial.insertion = "interstitials"
        let events = [QualityEvent(kind: .server, received: 0, view: live)]
        #expect(!SessionQuality(session: interstitial, events: events, now: 10_000_000).failed)
        #expect(SessionQuality(session: Self.session, events: events, now: 10_000_000).failed, "a stitched live session fetches its own")
    }

    @Test(
        "a live session: watched is wall time from its first playlist to its last refresh; CMCD starvations are stalls; CMCD's bitrates give the TWIB"
    )
    func liveEstimates() {
        var view = ServerView(replica: "r1", at: 0, live: true, segmentAtStart: false)
        view.add(.init(.master, at: 0))
        view.add(.init(.video("v0", bandwidth: 500_000), at: 200, cmcd: CMCDRequest(query: nil, headers: ["br=500,su"])))
        view.add(.init(.video("v0", bandwidth: 500_000), at: 30_200, cmcd: CMCDRequest(query: nil, headers: ["br=1500,bs"])))
        view.add(.init(.video("v0", bandwidth: 500_000), at: 60_200, cmcd: CMCDRequest(query: nil, headers: ["br=1500,bs"])))
        let quality = SessionQuality(session: Self.session, events: [QualityEvent(kind: .server, received: 0, view: view)], now: 70_000)
        #expect(quality.estimated && quality.watchedMilliseconds == 60_000)
        #expect(quality.stalls.count == 2 && quality.stalls.allSatisfy { $0.at == nil })
        // 30 s at 500 kbit/s, 30 s at 1,500.
        #expect(quality.twib == 1_000_000)
        #expect(!quality.failed)
    }

    @Test("the KPIs count the sessions whose figures are estimates, and split by the replica that started each")
    func kpisByReplica() throws {
        func viewed(_ replica: String) -> SessionQuality {
            var view = ServerView(replica: replica, at: 0, live: false, segmentAtStart: false)
            view.add(.init(.master, at: 0))
            return SessionQuality(session: Self.session, events: [QualityEvent(kind: .server, received: 0, view: view)], now: 120_000)
        }
        let reported = SessionQuality(session: Self.session, events: [QualityEvent(kind: .startup, ms: 500, received: 0)])
        let kpis = QualityKPIs([viewed("r1"), viewed("r2"), viewed("r2"), reported], by: .replica)
        #expect(kpis.figures.sessions == 4 && kpis.figures.estimated == 3 && kpis.figures.failedSessions.failed == 3)
        #expect(kpis.groups.map(\.value) == ["r1", "r2", "unknown"])
        #expect(kpis.groups.map { $0.figures?.sessions } == [1, 2, 1])
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(viewed("r1"))) as? [String: Any]
        #expect(json?["estimated"] as? Bool == true && json?["replica"] as? String == "r1")
        #expect((json?["server"] as? [String: Any])?["master"] as? Int == 0)
        #expect((json?["events"] as? [Any])?.isEmpty == true)
    }

    @Test(
        "ads from their beacon links: started, completed — on either replica — an ad-start failure where the session went past an ad it never completed, abandoned where it ended inside"
    )
    func adEvents() throws {
        typealias Ad = ServerView.AdProgress
        func link(_ piece: Int, _ fetched: Int, end: Int64, tracked: Int = 63) -> ServerView.Observation.What {
            .segment(stream: end - 1_000, ad: Ad(piece: piece, breakID: nil, tracked: tracked, fetched: fetched, end: end))
        }
        var one = ServerView(replica: "r1", at: 0, live: false, segmentAtStart: true)
        one.add(.init(link(1, 3, end: 15_000), at: 100))  // alpha: impression and start
        one.add(.init(link(1, 4, end: 15_000), at: 200))  // its first quartile; its complete never fetched
        one.add(.init(link(2, 3, end: 25_000), at: 300))  // the slate's ad after it: started…
        var two = ServerView(replica: "r2", at: 0, live: false, segmentAtStart: true)
        two.add(.init(link(2, 32, end: 25_000), at: 400))  // …and completed on the other replica
        two.add(.init(link(4, 3, end: 75_000), at: 500))  // bravo: started, the viewer left inside it
        two.add(.init(link(0, 3, end: 5_000, tracked: 3), at: 50))  // a pre-roll tracking no complete: nothing to miss
        let quality = SessionQuality(
            session: Self.session,
            events: [QualityEvent(kind: .server, received: 0, view: one), QualityEvent(kind: .server, received: 0, view: two)]
        )
        #expect(quality.ads == .init(started: 4, completed: 1, incomplete: 1, abandoned: 1), "\(quality.ads)")
        // The viewer's own report of watching to 80 s: bravo was passed, not abandoned.
        let watched = SessionQuality(
            session: Self.session,
            events: [
                QualityEvent(kind: .server, received: 0, view: one), QualityEvent(kind: .server, received: 0, view: two),
                QualityEvent(kind: .ended, at: 80_000, received: 0),
            ]
        )
        #expect(watched.ads == .init(started: 4, completed: 1, incomplete: 2, abandoned: 0))
        let kpis = QualityKPIs([quality, watched])
        #expect(kpis.ads.adEvents == .init(started: 8, completed: 2, incomplete: 3, abandoned: 1))
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(kpis)) as? [String: Any]
        #expect(((json?["ads"] as? [String: Any])?["ad_events"] as? [String: Any])?["incomplete"] as? Int == 3)
    }
}

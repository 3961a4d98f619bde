import AdCampaign
import AdDecision
import AdStitching
import Foundation
import HLSPlaylist
import Testing

/// The tracking document of a session that reports client-side (docs/http-api.md "Client-side
/// tracking"): the boundary manifest's breaks and ads, every event at its exact place in stream
/// time with its URLs, the events the viewer causes apart, and the ads' verifications — for every
/// demo campaign, viewers that differ in every way the rules look at, and both insertion modes.
@Suite("Tracking document")
struct TrackingDocumentTests {
    static let timed = ["impression", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete"]

    /// An ad server creative playing `ad`'s asset, with every timed event, two the viewer causes
    /// and a verification of each resource kind.
    static func creative(_ id: String, like ad: Ad) -> Ad {
        var tracking: [String: [String]] = [:]
        for event in Self.timed + ["pause", "clickTracking"] { tracking[event] = ["https://t.example/\(event)?c=\(id)&cb=[CACHEBUSTING]"] }
        tracking["impression"]?.append("https://wrapper.example/imp?c=\(id)")
        let verifications = [
            AdVerification(
                vendor: "iv.example-omid",
                resources: [.init(kind: "javascript", uri: "https://iv.example/omid.js", apiFramework: "omid", browserOptional: true)],
                parameters: "{\"c\":\"\(id)\"}",
                tracking: ["verificationNotExecuted": ["https://iv.example/nx?r=[REASON]"]]
            ),
            AdVerification(
                vendor: nil,
                resources: [.init(kind: "executable", uri: "https://x.example/bin", type: "application/octet-stream")],
                parameters: nil,
                tracking: [:]
            ),
        ]
        return Ad(id: id, asset: ad.asset, tracking: tracking, verifications: verifications)
    }

    @Test(
        "valid against docs/tracking.schema.json; the manifest's breaks and ads less the slate; events in play order at start + duration × q/4 exactly; the manifest names it only when the session reports client-side",
        arguments: Demo.allCases
    )
    func matchesManifest(_ demo: Demo) throws {
        let schema = try ManifestSchema.tracking.get()
        let campaign = try demo.campaign()
        let renderer = SessionRenderer(layout: try StitchLayout(campaign: campaign, uris: Demo.uris(for: campaign)))
        let first = try #require(campaign.breaks.first)
        var checkedAds = 0
        var verifiedAds = 0
        for context in variedViewers(12) {
            let decided = [first.id: [Self.creative("uaid-\(context.session)", like: try #require(campaign.ads.first))]]
            let plan = Planner().plan(campaign, for: context, decided: decided)
            for insertion in [Insertion.stitched, .interstitials] {
                let text = try renderer.session(insertion, reporting: .client).render(.tracking, plan).text
                let document = try ExactJSON.parse(text)
                #expect(schema.violations(of: document) == [], "\(demo) \(context.session) \(insertion)")
                let manifest = try ExactJSON.parse(renderer.session(insertion, reporting: .client).render(.boundaries, plan).text)
                #expect(manifest["trackingUri"]?.string == SessionFile.tracking.name)
                let serverSide = try ExactJSON.parse(renderer.session(insertion, reporting: .server).render(.boundaries, plan).text)
                #expect(serverSide["trackingUri"] == nil && !serverSide.keys.contains("trackingUri"))
                #expect(document["insertion"]?.string == insertion.rawValue && document["session"]?.string == context.session)
                #expect(document["duration"]?.numberText == manifest["duration"]?.numberText)
                let breaks = try #require(document["breaks"]?.items)
                let manifestBreaks = try #require(manifest["breaks"]?.items)
                try #require(breaks.count == manifestBreaks.count, "\(demo) \(context.session) \(insertion)")
                for (item, expected) in zip(breaks, manifestBreaks) {
                    for field in ["id", "start", "duration"] { #expect(item[field]?.isEqual(to: expected[field] ?? .null) == true) }
                    #expect((item["primary"] == nil) == (insertion == .stitched))
                    if let primary = item["primary"] { #expect(primary.isEqual(to: expected["primary"] ?? .null)) }
                    let ads = try #require(item["ads"]?.items)
                    let expectedAds = (expected["ads"]?.items ?? []).filter { $0["slate"] == nil }
                    try #require(ads.count == expectedAds.count)
                    for (ad, expectedAd) in zip(ads, expectedAds) {
                        checkedAds += 1
                        for field in ["id", "start", "duration"] { #expect(ad[field]?.isEqual(to: expectedAd[field] ?? .null) == true) }
                        let start = try #require(ad["start"]?.decimal)
                        let duration = try #require(ad["duration"]?.decimal)
                        let tracking = expectedAd["tracking"]?.members ?? []
                        let events = try #require(ad["events"]?.items)
                        #expect(events.compactMap { $0["event"]?.string } == Self.timed.filter { name in tracking.contains { $0.key == name } })
                        var previous = start
                        for event in events {
                            let name = try #require(event["event"]?.string)
                            let quarters = [0, 0, 1, 2, 3, 4][try #require(Self.timed.firstIndex(of: name))]
                            let at = try #require(event["at"]?.decimal)
                            // Exact: four times the offset is the duration times the quarters.
                            #expect((at - start) * 4 == duration * quarters, "\(name) of \(ad["id"]?.string ?? "") at \(at)")
                            #expect(previous <= at)
                            previous = at
                            #expect(event["urls"]?.isEqual(to: tracking.first { $0.key == name }?.value ?? .null) == true)
                        }
                        let interactive = Set(tracking.map(\.key)).subtracting(Self.timed)
                        #expect(Set(ad["interactive"]?.keys ?? []) == interactive)
                        if ad["id"]?.string == "uaid-\(context.session)" {
                            verifiedAds += 1
                            let verifications = try #require(ad["verifications"]?.items)
                            #expect(verifications.map { $0["vendor"]?.string } == ["iv.example-omid", nil])
                            #expect(verifications[0]["parameters"]?.string == "{\"c\":\"uaid-\(context.session)\"}")
                            #expect(verifications[1]["resources"]?.items?.first?["type"]?.string == "application/octet-stream")
                            #expect(interactive == ["pause", "clickTracking"])
                        } else {
                            #expect(ad["verifications"] == nil, "a pool ad has none")
                        }
                    }
                }
            }
        }
        // Not an empty loop: every viewer's decided creative was found in both modes.
        #expect(verifiedAds == 24 && checkedAds > 24, "\(demo): \(verifiedAds) creatives, \(checkedAds) ads")
    }

    @Test("a pool ad's verifications: in the campaign are its in every session's tracking document")
    func poolVerifications() throws {
        let file = Repository.campaign(Demo.eveningNews.rawValue)
        let yaml = try String(contentsOf: file, encoding: .utf8)
        let alpha = "tracking: { impression: [\"https://tracking.example/i?ad=alpha\"] } }"
        #expect(yaml.contains(alpha))
        let edited = yaml.replacingOccurrences(
            of: alpha,
            with: """
                tracking: { impression: ["https://tracking.example/i?ad=alpha"] },
                        verifications: [ { vendor: house.example-omid, javascript: "https://house.example/omid.js", api_framework: omid,
                                           browser_optional: true, parameters: "k=1", tracking: { verificationNotExecuted: ["https://house.example/nx?r=[REASON]"] } } ] }
                """
        )
        let campaign = try CampaignLoader.load(yaml: edited + "\nreporting: client\n", file: file)
        let renderer = SessionRenderer(layout: try StitchLayout(campaign: campaign, uris: Demo.uris(for: campaign)))
        var found = 0
        for context in variedViewers(20) {
            let document = try ExactJSON.parse(try renderer.session(.stitched).render(.tracking, Planner().plan(campaign, for: context)).text)
            #expect(try ManifestSchema.tracking.get().violations(of: document) == [])
            for ad in (document["breaks"]?.items ?? []).flatMap({ $0["ads"]?.items ?? [] }) {
                guard ad["id"]?.string == "alpha" else {
                    #expect(ad["verifications"] == nil)
                    continue
                }
                found += 1
                let verification = try #require(ad["verifications"]?.items?.first)
                #expect(verification["vendor"]?.string == "house.example-omid" && verification["parameters"]?.string == "k=1")
                let resource = try #require(verification["resources"]?.items?.first)
                #expect(resource["kind"]?.string == "javascript" && resource["uri"]?.string == "https://house.example/omid.js")
                #expect(resource["apiFramework"]?.string == "omid" && resource["browserOptional"]?.bool == true)
                #expect(verification["tracking"]?["verificationNotExecuted"]?.items?.first?.string == "https://house.example/nx?r=[REASON]")
            }
            // The campaign reports client-side: its sessions list the document and the manifest names it.
            #expect(renderer.session(.stitched).files.contains(.tracking))
        }
        #expect(found > 5, "alpha played in \(found) of 20 sessions")
    }

    @Test("a session file of its own: listed for sessions that report client-side, by the campaign or the session's choice, never otherwise")
    func listed() throws {
        let campaign = try Demo.eveningNews.campaign()
        let renderer = SessionRenderer(layout: try StitchLayout(campaign: campaign, uris: Demo.uris(for: campaign)))
        #expect(campaign.reporting == .server)
        #expect(!renderer.session(.stitched).files.contains(.tracking) && renderer.session(.stitched).file(named: "tracking.json") == nil)
        #expect(renderer.session(.interstitials, reporting: .client).files.contains(.tracking))
        #expect(renderer.session(.stitched, reporting: .client).file(named: "tracking.json") == .tracking)
        #expect(SessionFile.tracking.contentType == "application/json")
    }
}

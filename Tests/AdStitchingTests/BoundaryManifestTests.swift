import AdCampaign
import AdDecision
import AdStitching
import Foundation
import HLSPlaylist
import Testing

/// The boundary manifest as a client reads it: JSON with exactly the contract's field names
/// (docs/architecture.md "Boundary manifest"), exact decimal numbers, and the shape
/// `docs/boundary-manifest.schema.json` describes.
@Suite("Boundary manifest JSON")
struct BoundaryManifestTests {
    static let topLevel = ["version", "insertion", "campaign", "session", "duration", "breaks", "boundaries", "islands"]
    static let breakFields = ["id", "start", "end", "duration", "restrict", "ads"]
    static let adFields = ["id", "start", "duration"]
    static let optionalAdFields: Set<String> = ["tracking", "slate"]
    static let islandFields = ["id", "start", "end", "contentStart"]

    /// Every manifest of the demos' sessions and of the fixture campaigns.
    static func manifests() throws -> [(name: String, text: String)] {
        var manifests = try Demo.allCases.flatMap { demo in
            try DemoSessions.of(demo).sessions.map { ("\(demo.rawValue) \($0.plan.context.session)", $0.manifestText) }
        }
        for name in ["aes-ts.yaml", "aes-fmp4.yaml", "byterange.yaml", "renditions.yaml", "ladder.yaml", "cue.yaml"] {
            manifests.append((name, try FixtureStitchingTests.stitch(name).0.manifestText))
        }
        return manifests
    }

    @Test("The manifest parses with JSONSerialization and has exactly the contract's fields")
    func fieldsAreTheContract() throws {
        for (name, text) in try Self.manifests() {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(name)")
            #expect(Set(object.keys) == Set(Self.topLevel), "\(name)")
            #expect(object["version"] as? Int == 1)
            #expect(object["insertion"] as? String == "stitched", "\(name)")
            for item in try #require(object["breaks"] as? [[String: Any]]) {
                #expect(Set(item.keys) == Set(Self.breakFields), "\(name)")
                for ad in try #require(item["ads"] as? [[String: Any]]) {
                    #expect(Set(Self.adFields).isSubset(of: ad.keys), "\(name): \(ad.keys)")
                    #expect(Set(ad.keys).subtracting(Self.adFields).isSubset(of: Self.optionalAdFields), "\(name): \(ad.keys)")
                    // `slate` only ever says true; `tracking` only when there is something to track.
                    if let slate = ad["slate"] { #expect(slate as? Bool == true && ad["id"] as? String == "slate") }
                    if let tracking = ad["tracking"] as? [String: [String]] { #expect(!tracking.isEmpty) }
                }
            }
            for island in try #require(object["islands"] as? [[String: Any]]) {
                #expect(Set(island.keys) == Set(Self.islandFields), "\(name)")
            }
            // In the order the contract lists them, so the file reads like the documentation.
            let document = try ExactJSON.parse(text)
            #expect(document.keys == Self.topLevel)
            #expect(document["breaks"]?.items?.allSatisfy { $0.keys == Self.breakFields } == true)
            #expect(document["islands"]?.items?.allSatisfy { $0.keys == Self.islandFields } == true)
        }
    }

    @Test("Every number is written as its exact, shortest decimal: 5.76, never 5.7599999")
    func numbersAreExact() throws {
        for (name, text) in try Self.manifests() {
            for (path, number) in try ExactJSON.parse(text).numbers() {
                // Plain decimal notation without exponent or trailing zeros: what ExactDecimal writes.
                #expect(ExactDecimal(number)?.description == number, "\(name) \(path): \(number)")
                #expect(!number.contains("99999") && !number.contains("00000"), "\(name) \(path): \(number)")
            }
        }
        // act-1 of aes-ts is three segments of 1.920000 s: 5.76 s, where Doubles would not add up to 5.76.
        let (session, _) = try FixtureStitchingTests.stitch("aes-ts.yaml")
        let manifest = try ExactJSON.parse(session.manifestText)
        #expect(manifest["islands"]?.items?.first?["end"]?.numberText == "5.76")
        #expect(manifest["breaks"]?.items?.first?["start"]?.numberText == "5.76")
        #expect(manifest["boundaries"]?.items?.compactMap(\.numberText) == ["0", "5.76", "9.6"])
        #expect(manifest["duration"]?.numberText == "13.44")
        #expect(session.manifestText.contains("\"end\": 5.76,"))
    }

    // MARK: - The schema

    /// A valid manifest to mutate: one break holding an ad with tracking and the slate, two islands.
    static let valid = """
        {"version":1,"insertion":"stitched","campaign":"news","session":"s-1","duration":9.6,
         "breaks":[{"id":"mid","start":3.84,"end":7.68,"duration":3.84,"restrict":["skip"],"ads":\(ads)}],
         "boundaries":[0,3.84,5.76,7.68],
         "islands":[{"id":"act-1","start":0,"end":3.84,"contentStart":0},{"id":"act-2","start":7.68,"end":9.6,"contentStart":3.84}]}
        """
    static let ads =
        #"[{"id":"alpha","start":3.84,"duration":1.92,"tracking":{"impression":["https://t.example/i"]}},"#
        + #"{"id":"slate","start":5.76,"duration":1.92,"slate":true}]"#

    @Test("docs/boundary-manifest.schema.json is a draft 2020-12 schema the check applies in full")
    func schemaIsDraft2020() throws {
        let schema = try ManifestSchema.shared.get()
        #expect(schema.root["$schema"]?.string == "https://json-schema.org/draft/2020-12/schema")
        #expect(schema.violations(of: try ExactJSON.parse(Self.valid)) == [])
        // A keyword the check does not apply is reported rather than ignored.
        let extended = ManifestSchema(root: try ExactJSON.parse(#"{"type": "object", "oneOf": [true]}"#))
        #expect(extended.violations(of: try ExactJSON.parse("{}")).contains { $0.contains("oneOf") })
    }

    @Test(
        "The schema rejects what the contract forbids",
        arguments: [
            ("a missing field", #""duration":9.6,"#, ""),
            ("an unknown field", #""version":1,"#, #""version":1,"skippable":true,"#),
            ("version 2", #""version":1"#, #""version":2"#),
            ("a campaign id with capitals", #""campaign":"news""#, #""campaign":"News""#),
            ("a time written as a string", #""duration":9.6"#, #""duration":"9.6""#),
            ("a negative time", #""start":0,"end":3.84"#, #""start":-1,"end":3.84"#),
            ("an unknown policy", #""restrict":["skip"]"#, #""restrict":["seek"]"#),
            ("a break without restrict", #""restrict":["skip"],"#, ""),
            ("a break without ads", BoundaryManifestTests.ads, "[]"),
            ("slate: false", #""slate":true"#, #""slate":false"#),
            ("an ad with an unknown field", #""id":"alpha","#, #""id":"alpha","skip":true,"#),
            ("tracking URLs that are not strings", #"["https://t.example/i"]"#, "[1]"),
            ("an island without contentStart", #","contentStart":3.84"#, ""),
            ("a repeated boundary", "[0,3.84,5.76,7.68]", "[0,3.84,3.84,7.68]"),
        ]
    )
    func schemaRejects(_ what: String, _ original: String, _ replacement: String) throws {
        #expect(Self.valid.contains(original), "the mutation for \(what) does not apply")
        let mutated = Self.valid.replacingOccurrences(of: original, with: replacement)
        let violations = try ManifestSchema.shared.get().violations(of: ExactJSON.parse(mutated))
        #expect(!violations.isEmpty, "\(what) passes the schema")
    }
}

/// A programme whose markers cut 10,000 breaks: its session's boundary manifest, stitched and as
/// interstitials (a 3,000-break one took 1.88 s on an event loop, every break scanning every
/// piece). Not a timed test — the benchmarks measure — but a quadratic step would make it take
/// minutes again.
@Suite("Boundary manifest of 10,000 breaks")
struct ManyBreaksManifestTests {
    static let root = URL(fileURLWithPath: "/campaigns/many-breaks")

    @Test("every break with its ad, in order, both modes; the interstitials' primary placements too")
    func manyBreaks() throws {
        let breaks = 10_000
        var programme = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        programme.reserveCapacity(breaks * 90)
        for index in 0..<breaks { programme += "#EXTINF:2.000,\np\(index).ts\n#EXT-X-CUE-OUT:2\n#EXTINF:2.000,\nb\(index).ts\n#EXT-X-CUE-IN\n" }
        programme += "#EXTINF:2.000,\nend.ts\n#EXT-X-ENDLIST\n"
        let master = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS=\"avc1.42c01e,mp4a.40.2\",RESOLUTION=640x360\nv0.m3u8\n"
        let ad = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:2.000,\nad0.ts\n#EXT-X-ENDLIST\n"
        let campaign = try CampaignLoader.load(
            yaml: """
                version: 1
                id: many-breaks
                pools: { prime: [ { id: alpha, playlist: a/master.m3u8 } ] }
                program: { playlist: p/master.m3u8, breaks: markers }
                marker_breaks: { pools: [prime] }
                """,
            file: Self.root.appendingPathComponent("campaign.yaml"),
            source: .memory(["p/master.m3u8": master, "p/v0.m3u8": programme, "a/master.m3u8": master, "a/v0.m3u8": ad], root: Self.root)
        )
        let plan = Planner().plan(campaign, for: ViewerContext(session: "many", at: Date(timeIntervalSince1970: 1_795_800_000)))
        let stitched = BoundaryManifest(plan)
        #expect(stitched.breaks.count == breaks)
        #expect(stitched.breaks.allSatisfy { $0.ads.map(\.id) == ["alpha"] })
        #expect(zip(stitched.breaks, stitched.breaks.dropFirst()).allSatisfy { $0.start < $1.start })
        let renderer = SessionRenderer(layout: try StitchLayout(campaign: campaign, uris: .absolute))
        let interstitials = BoundaryManifest(renderer.schedule(plan))
        #expect(interstitials.breaks.count == breaks)
        #expect(interstitials.breaks.allSatisfy { $0.primary != nil })
    }
}

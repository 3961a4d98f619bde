import AdCampaign
import AdCampaignStore
import AdDecision
import AdMetrics
import AdSessions
import AdStitching
import CompressNIO
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import Testing

@testable import AdStitchServer
@testable import AdStitching

/// The bytes the server writes for stitched files — joined from the layout's shared blocks, and
/// for gzip from blocks deflated at load — are the renderer's text, byte for byte (and that text
/// is today's: OutputDigestTests).
@Suite("Stitched bodies")
struct StitchedBodyTests {
    static let startKey = Data("start-key".utf8)

    /// Session starts that differ in everything the demos' rules look at (as the invariant
    /// tests' viewers do), each at its own decision time.
    static func viewers() -> [(query: [(name: String, value: String)], at: Date)] {
        let locales = [nil, "en-GB", "es-ES", "es", "fr-FR"]
        let seen = [nil, "alpha", "bravo,delta", "alpha,bravo,charlie", "delta", "charlie"]
        let times: [TimeInterval] = [1_795_608_000, 1_795_804_200, 1_795_903_200, 1_774_747_800]
        let devices = [nil, "Living-Room TV", "phone"]
        let bandwidths = [nil, "300000", "5000000", "250000"]
        return (0..<50).map { index in
            var query = [(name: "session", value: "body-\(index)"), (name: "exp", value: "99999999999")]
            for (name, value) in [
                ("locale", locales[index % locales.count]), ("seen", seen[(index / 2) % seen.count]),
                ("device", devices[(index / 3) % devices.count]), ("bandwidth", bandwidths[(index / 5) % bandwidths.count]),
            ] {
                if let value { query.append((name, value)) }
            }
            query.append(("sig", SessionPolicy.signature(of: query, key: Self.startKey)))
            return (query, Date(timeIntervalSince1970: times[(index / 7) % times.count]))
        }
    }

    @Test("every file of 50 varied sessions of each demo: the plain answer is the renderer's text, the gzip answer gunzips to it")
    func servedBytesAreTheRenderersText() async throws {
        let (compared, gzipped, expectedFiles, _) = try await Self.compare(RouteTests.campaigns, ["evening-news", "feature-fmp4"])
        // Both demos' sessions, every rendition, manifest and subtitles filler: nothing skipped.
        #expect(compared == expectedFiles && compared > 400)
        #expect(gzipped > 400)
    }

    /// A campaigns folder with a copy of the TS demo as `news/`, its YAML edited by `edit`.
    static func demoCopy(_ edit: (String) -> String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rewritten-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: RouteTests.campaigns.appendingPathComponent("evening-news"), to: folder.appendingPathComponent("news"))
        let file = folder.appendingPathComponent("news/campaign.yaml")
        try Data(edit(try String(contentsOf: file, encoding: .utf8)).utf8).write(to: file)
        return folder
    }

    /// The TS demo as `news-cdn`, with rewrite rules: Spanish viewers' pieces on their own CDN with
    /// their session and locale in each URI, keys with the session, ads on another CDN.
    static func cdnCopy() throws -> URL {
        let rules = """
            rewrite:
              - name: spanish-cdn
                when: { attributes: { locale: '^es' } }
                match: '^/v1/campaigns/[^/]+/media/(.*)$'
                replace: 'https://es.cdn.test/$1?st={session}&l={locale}'
              - { name: keys, applies_to: [keys], match: '^/v1/campaigns/[^/]+/media/(.*)$', replace: 'https://keys.test/$1?st={session}' }
              - { name: ads, applies_to: [ads, slate], match: '^/v1/campaigns/[^/]+/media/(.*)$', replace: 'https://ads.cdn.test/$1' }
            """
        return try Self.demoCopy { $0.replacingOccurrences(of: "id: evening-news", with: "id: news-cdn") + "\n" + rules }
    }

    @Test("the same with rewrite rules: per-viewer values between shared pieces")
    func rewrittenBytesAreTheRenderersText() async throws {
        let folder = try Self.cdnCopy()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (compared, gzipped, expectedFiles, rewritten) = try await Self.compare(folder, ["news-cdn"])
        // Two video playlists and a manifest per session.
        #expect(compared == expectedFiles && compared == 150)
        // Every session's playlists went through the rules: keys for all; the Spanish viewers'
        // pieces on es.cdn (the first rule wins), the others' ads on ads.cdn.
        let spanish = rewritten["https://es.cdn.test/", default: 0]
        // The Spanish viewers' playlists carry their values in every row, so stored deflate blocks
        // would be longer than plain: those go out plain, every other file gzip.
        #expect(gzipped == 150 - spanish, "\(gzipped) gzipped, \(spanish) Spanish playlists")
        #expect(rewritten["https://keys.test/", default: 0] == 100 && spanish >= 20, "\(rewritten)")
        #expect(spanish + rewritten["https://ads.cdn.test/", default: 0] == 100, "\(rewritten)")
    }

    @Test("rows rewritten without per-viewer values are deflated once, so such a session's gzip answer stays small")
    func rewrittenRowsAreDeflated() async throws {
        let rule = "rewrite:\n  - { name: cdn, match: '^/v1/campaigns/[^/]+/media/(.*)$', replace: 'https://cdn.test/$1' }\n"
        let folder = try Self.demoCopy { $0 + "\n" + rule }
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = CampaignStore(folder: folder, logger: Logger(label: "test"), metrics: ServerMetrics())
        let app = buildApplication(store: store, policy: SessionPolicy(secret: RouteTests.secret), responseCacheBytes: 0)
        try await app.test(.live) { client in
            let (_, prefix) = try await RouteTests().startSession(client, "evening-news", query: "session=g-1")
            let plain = try await client.execute(uri: prefix + "v0.m3u8", method: .get) { String(buffer: $0.body) }
            #expect(plain.contains("\nhttps://cdn.test/media/program/"), "the rows are rewritten")
            let (size, unzipped) = try await client.execute(uri: prefix + "v0.m3u8", method: .get, headers: [.acceptEncoding: "gzip"]) { response in
                var body = response.body
                return (body.readableBytes, String(buffer: try body.decompress(with: .gzip())))
            }
            #expect(unzipped == plain)
            // Stored, the answer would be a little longer than the plain one (a 5-byte header per
            // piece); this small demo playlist deflates to about four fifths (most of it is the
            // session's own date ranges, always stored).
            #expect(size * 10 < plain.utf8.count * 9, "\(size) bytes gzipped for \(plain.utf8.count): the rewritten rows are deflated, not stored")
        }
    }

    @Test("the plain body of every file of 50 varied sessions of each demo, with and without rewrite rules, is the renderer's bytes")
    func plainBodiesAreTheRenderersBytes() throws {
        let folder = try Self.cdnCopy()
        defer { try? FileManager.default.removeItem(at: folder) }
        var files = 0
        var withSlots = 0
        for (campaigns, ids) in [(RouteTests.campaigns, ["evening-news", "feature-fmp4", "single-asset"]), (folder, ["news-cdn"])] {
            let store = CampaignStore(folder: campaigns, logger: Logger(label: "test"), metrics: ServerMetrics())
            for id in ids {
                let served = try #require(store.campaign(id))
                for (index, viewer) in Self.viewers().enumerated() {
                    var attributes: [String: String] = [:]
                    for (name, value) in viewer.query where !["session", "exp", "sig"].contains(name) { attributes[name] = value }
                    let milliseconds = Int64(viewer.at.timeIntervalSince1970 * 1000)
                    let plan = Planner().plan(
                        served.campaign,
                        for: ViewerContext(session: "body-\(index)", milliseconds: milliseconds, attributes: attributes)
                    )
                    for insertion in [Insertion.stitched, .interstitials] {
                        let kind = served.renderer.session(insertion)
                        for file in kind.files {
                            if case .multivariant = file { continue }
                            if case .assetList = file { continue }
                            let rendered = try kind.render(file, plan)
                            let body = served.body.plainBody(rendered)
                            #expect(body.count == rendered.count)
                            #expect(Array(body.joined.readableBytesView) == rendered.bytes, "\(id) \(index) \(file.name)")
                            #expect(body.buffers.allSatisfy { $0.readableBytes > 0 })
                            withSlots += rendered.parts.count { if case .block(let block) = $0 { block.hasSlots } else { false } }
                            files += 1
                        }
                    }
                }
            }
        }
        #expect(files > 1_000 && withSlots > 20, "\(files) files, \(withSlots) blocks with slots")
    }

    @Test(
        "a plain body writes long shared blocks from the revision's buffers and copies the rest: the session's lines, short blocks, a viewer's values"
    )
    func plainBodiesShareLongBlocks() throws {
        let long = ByteBlock(id: 0, bytes: Array(repeating: UInt8(ascii: "a"), count: StitchedBody.sharedMinimum))
        let short = ByteBlock(id: 1, bytes: Array("#EXTINF:4,\nad.ts\n".utf8))
        let other = ByteBlock(id: 2, bytes: Array(repeating: UInt8(ascii: "b"), count: 3 * StitchedBody.sharedMinimum))
        // A row rewritten with a viewer's value in one slot (not one of the revision's blocks).
        let slotted = ByteBlock(id: -1, bytes: Array("a.ts?st=\nb.ts?st=\n".utf8), marks: [.init(offset: 8, slot: 0), .init(offset: 17, slot: 0)])
        let body = try StitchedBody(blocks: [long, short, other].map(StitchedBody.deflate))
        var file = RenderedBytes(literalCapacity: 64, parts: 8)
        file.fill(with: [Array("s-1".utf8)])
        file.append("#EXTM3U\n")
        file.append(long)
        file.append("#EXT-X-DISCONTINUITY\n")
        file.append(short)
        file.append(slotted)
        file.append(other)
        file.append(long)
        file.append("#EXT-X-ENDLIST\n")

        let written = body.plainBody(file)
        #expect(Array(written.joined.readableBytesView) == file.bytes)
        #expect(String(decoding: file.bytes, as: UTF8.self).contains("#EXTINF:4,\nad.ts\na.ts?st=s-1\nb.ts?st=s-1\n"))
        // Own bytes, the long block, own bytes (a line, the short block, the filled row), the
        // other long block, the long block again, own bytes.
        #expect(written.buffers.map(\.readableBytes) == [8, long.bytes.count, 21 + 17 + 24, other.bytes.count, long.bytes.count, 15])
        // The long blocks are the revision's buffers, not copies: the same memory in every answer.
        func address(_ buffer: ByteBuffer) -> UnsafeRawPointer? { buffer.withUnsafeReadableBytes { $0.baseAddress } }
        #expect(address(written.buffers[1]) == address(body.blocks[0].plain))
        #expect(address(written.buffers[4]) == address(body.blocks[0].plain))
        #expect(address(written.buffers[3]) == address(body.blocks[2].plain))
        #expect(address(body.plainBody(file).buffers[1]) == address(written.buffers[1]))
        // The answer's own memory is its lines and copies, a few dozen bytes, not the 64 KB it writes.
        #expect(written.count == file.count && written.count > 4 * StitchedBody.sharedMinimum)
        #expect(written.ownedBytes < 512, "\(written.ownedBytes)")
    }

    /// Fetches every file but the multivariant playlist of 50 varied sessions of each campaign,
    /// plain and gzip, and compares each with the renderer's text. Returns the files compared,
    /// those that came gzipped, those there should be, and how many files held each CDN prefix.
    static func compare(_ folder: URL, _ ids: [String]) async throws -> (Int, Int, Int, [String: Int]) {
        let clock = Mutex(Date())
        var policy = SessionPolicy(secret: RouteTests.secret, startKey: Self.startKey)
        policy.now = { clock.withLock { $0 } }
        let store = CampaignStore(folder: folder, logger: Logger(label: "test"), metrics: ServerMetrics())
        // No response cache: every answer is stitched.
        let app = buildApplication(store: store, policy: policy, responseCacheBytes: 0)
        return try await app.test(.live) { client in
            var compared = 0
            var gzipped = 0
            var expectedFiles = 0
            var prefixes: [String: Int] = [:]
            for id in ids {
                let served = try #require(store.campaign(id))
                expectedFiles += 50 * (served.renderer.session(.stitched).files.count - 1)
                for viewer in Self.viewers() {
                    clock.withLock { $0 = viewer.at }
                    let query = viewer.query.map { "\(SessionPolicy.percentEncoded($0.name))=\(SessionPolicy.percentEncoded($0.value))" }
                    let (_, prefix) = try await RouteTests().startSession(client, id, query: query.joined(separator: "&"))
                    let tokenText = try #require(prefix.split(separator: "/").last)
                    let token = try #require(SessionToken(decoding: tokenText, secret: RouteTests.secret))
                    let plan = Planner().plan(
                        served.campaign,
                        for: ViewerContext(session: token.session, milliseconds: token.at, attributes: token.attributes)
                    )
                    let kind = served.renderer.session(.stitched)
                    for file in kind.files where file != .multivariant {
                        let expected = try kind.render(file, plan).text
                        let plain = try await client.execute(uri: prefix + file.name, method: .get) { response in
                            #expect(response.status == .ok)
                            #expect(response.headers[.contentLength] == String(expected.utf8.count))
                            return String(buffer: response.body)
                        }
                        #expect(plain == expected, "\(id) \(token.session) \(file.name)")
                        for prefix in ["https://keys.test/", "https://ads.cdn.test/", "https://es.cdn.test/"] where expected.contains(prefix) {
                            prefixes[prefix, default: 0] += 1
                        }
                        let headers: HTTPFields = [.acceptEncoding: "gzip"]
                        let (unzipped, wasGzipped) = try await client.execute(uri: prefix + file.name, method: .get, headers: headers) { response in
                            var body = response.body
                            guard response.headers[.contentEncoding] == "gzip" else { return (String(buffer: body), false) }
                            // Never larger than the plain answer (GStreamer's libsoup resumes a short-decoded body).
                            #expect(body.readableBytes < plain.utf8.count, "\(id) \(token.session) \(file.name): gzip not smaller")
                            return (String(buffer: try body.decompress(with: .gzip())), true)
                        }
                        if wasGzipped { gzipped += 1 }
                        #expect(unzipped == expected, "\(id) \(token.session) \(file.name), gzip")
                        compared += 1
                    }
                }
            }
            return (compared, gzipped, expectedFiles, prefixes)
        }
    }

    @Test("a file whose own lines pass 64 KiB is written as several stored blocks, and any zlib reads the member whole")
    func longLiteral() throws {
        let text = (0..<9_000).map { "#EXT-X-DATERANGE:ID=\"break-\($0)\"\n" }.joined()
        #expect(text.utf8.count > 3 * StitchedBody.maxStored)
        let file = RenderedBytes(text: text)
        var gzip = StitchedBody(blocks: []).gzip(file)
        #expect(String(buffer: try gzip.decompress(with: .gzip())) == text)
        #expect(String(buffer: StitchedBody.plain(file)) == text)
    }
}

@Suite("Accept-Encoding")
struct AcceptEncodingTests {
    @Test(
        "gzip is sent when the header lists it (any case, any spacing) or *, and not at q=0",
        arguments: [
            ("gzip", true), ("GZIP", true), ("gzip, deflate, br", true), ("deflate,  GZip\t", true), (" gzip ", true), ("*", true),
            ("deflate, br", false), ("x-gzip", false), ("gzipx", false), ("identity", false), ("", false),
            ("br;q=1, gzip;q=0.8", true), ("gzip;q=0", false), ("gzip;q=0.0, *;q=1", false), ("*;q=0.5", true),
        ]
    )
    func acceptsGzip(_ header: String, _ accepted: Bool) {
        #expect(Response.acceptsGzip(header) == accepted)
    }
}

extension AnswerBody {
    /// The body in one buffer.
    var joined: ByteBuffer {
        var joined = ByteBufferAllocator().buffer(capacity: self.count)
        for buffer in self.buffers { joined.writeImmutableBuffer(buffer) }
        return joined
    }
}

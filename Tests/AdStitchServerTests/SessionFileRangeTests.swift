import AdCampaign
import AdCampaignStore
import AdMetrics
import AdStitchServer
import CompressNIO
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// Session files answer byte ranges as nginx does for a static file, and never send a gzip body
/// that is not smaller than the plain one (GStreamer's libsoup takes a decoded body shorter than
/// Content-Length as cut short, then asks for the rest with a Range).
@Suite("Session file ranges and encodings")
struct SessionFileRangeTests {
    /// The TS demo with a per-session token in every URI (`?st={session}`): every row of every
    /// playlist carries the viewer's value.
    static func tokenEverywhere() throws -> URL {
        let rule = "rewrite:\n  - { name: cdn, match: '^/v1/campaigns/[^/]+/media/(.*)$', replace: 'https://cdn.test/$1?st={session}' }\n"
        return try StitchedBodyTests.demoCopy { $0 + "\n" + rule }
    }

    @Test("a session whose every URI carries its token: the gzip answer is smaller than the plain one, or the answer is plain")
    func gzipNeverLarger() async throws {
        let folder = try Self.tokenEverywhere()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = CampaignStore(folder: folder, logger: Logger(label: "test"), metrics: ServerMetrics())
        let app = buildApplication(store: store, policy: SessionPolicy(secret: RouteTests.secret))
        try await app.test(.live) { client in
            for session in ["g-1", "a-much-longer-session-identifier-0123456789abcdef"] {
                let (master, prefix) = try await RouteTests().startSession(client, "evening-news", query: "session=\(session)")
                let files = master.split(separator: "\n").filter { $0.hasPrefix("sessions/") }.map { String($0.split(separator: "/").last!) }
                #expect(files.count >= 2)
                for file in files + ["boundaries.json"] {
                    let plain = try await client.execute(uri: prefix + file, method: .get) { Array($0.body.readableBytesView) }
                    #expect(String(decoding: plain, as: UTF8.self).contains("?st=") || file == "boundaries.json", "\(file)")
                    try await client.execute(uri: prefix + file, method: .get, headers: [.acceptEncoding: "gzip, deflate, br"]) { response in
                        let length = try #require(response.headers[.contentLength].flatMap { Int($0) })
                        #expect(length == response.body.readableBytes)
                        if response.headers[.contentEncoding] == "gzip" {
                            #expect(length < plain.count, "\(file): gzip \(length) bytes against \(plain.count) plain")
                            var body = response.body
                            #expect(Array(try body.decompress(with: .gzip()).readableBytesView) == plain)
                        } else {
                            #expect(Array(response.body.readableBytesView) == plain, "\(file)")
                        }
                    }
                }
            }
        }
    }

    @Test("Range and If-Range on session files: 206 of the plain bytes (gzip accepted or not), 416 past the end, 200 for what is not understood")
    func ranges() async throws {
        try await RouteTests().app().test(.live) { client in
            let (_, prefix) = try await RouteTests().startSession(client)
            // A request with a Range gets ranges of the plain bytes, gzip accepted or not: a part of
            // a gzip stream is of no use to a client that resumes, nor to a generic HTTP client.
            let (whole, etag) = try await client.execute(uri: prefix + "v0.m3u8", method: .get, headers: [.acceptEncoding: "identity"]) {
                response in
                #expect(response.headers[.acceptRanges] == "bytes")
                return (Array(response.body.readableBytesView), try #require(response.headers[.eTag]))
            }
            try await client.execute(uri: prefix + "v0.m3u8", method: .get, headers: [.acceptEncoding: "gzip"]) { response in
                #expect(response.headers[.contentEncoding] == "gzip" && response.headers[.eTag]?.hasSuffix("-gz\"") == true)
            }
            let size = whole.count
            for encoding in ["identity", "gzip"] {
                func fetch(_ range: String, ifRange: String? = nil) async throws -> (HTTPResponse.Status, HTTPFields, [UInt8]) {
                    var headers: HTTPFields = [.acceptEncoding: encoding, .range: range]
                    if let ifRange { headers[.ifRange] = ifRange }
                    return try await client.execute(uri: prefix + "v0.m3u8", method: .get, headers: headers) { response in
                        (response.status, response.headers, Array(response.body.readableBytesView))
                    }
                }
                for (range, first, last) in [
                    ("bytes=0-99", 0, 99), ("bytes=100-", 100, size - 1), ("bytes=-50", size - 50, size - 1), ("bytes=10-\(size * 2)", 10, size - 1),
                    ("bytes=\(size - 1)-\(size - 1)", size - 1, size - 1),
                ] {
                    let (status, headers, body) = try await fetch(range)
                    #expect(status == .partialContent, "\(encoding) \(range)")
                    #expect(headers[.contentRange] == "bytes \(first)-\(last)/\(size)", "\(encoding) \(range)")
                    #expect(headers[.contentLength] == String(last - first + 1))
                    #expect(body == Array(whole[first...last]), "\(encoding) \(range)")
                    #expect(headers[.eTag] == etag && headers[.contentEncoding] == nil)
                }
                // The rest after a short read, as libsoup asks for it: the two parts are the whole.
                let (_, _, head) = try await fetch("bytes=0-\(size / 3)")
                let (_, _, rest) = try await fetch("bytes=\(head.count)-")
                #expect(head + rest == whole)
                // If-Range: the answer's strong ETag gets the range; another tag or a date gets it all.
                #expect(try await fetch("bytes=0-9", ifRange: etag).0 == .partialContent)
                for other in ["\"other\"", "W/" + etag, "Fri, 27 Nov 2026 20:00:00 GMT"] {
                    let (status, headers, body) = try await fetch("bytes=0-9", ifRange: other)
                    #expect(status == .ok && body == whole && headers[.contentRange] == nil, "If-Range \(other)")
                }
                // Past the end: 416 with the size. Not understood: the whole file.
                for range in ["bytes=\(size)-", "bytes=-0"] {
                    let (status, headers, body) = try await fetch(range)
                    #expect(status == .rangeNotSatisfiable && headers[.contentRange] == "bytes */\(size)" && body.isEmpty, "\(range)")
                }
                for range in ["bytes=0-1,5-9", "items=0-9", "bytes=9-2", "bytes=+1-4", "bytes=x"] {
                    let (status, _, body) = try await fetch(range)
                    #expect(status == .ok && body == whole, "\(range)")
                }
                // If-None-Match comes first (RFC 9110 §13.2.2).
                try await client.execute(
                    uri: prefix + "v0.m3u8",
                    method: .get,
                    headers: [.acceptEncoding: encoding, .range: "bytes=0-9", .ifNoneMatch: etag]
                ) {
                    #expect($0.status == .notModified && $0.headers[.contentRange] == nil)
                }
            }
            // The boundary manifest and a HEAD.
            try await client.execute(uri: prefix + "boundaries.json", method: .head, headers: [.range: "bytes=0-0"]) { response in
                #expect(response.status == .partialContent && response.headers[.contentLength] == "1" && response.body.readableBytes == 0)
            }
        }
    }
}

/// `serve --media-root`: one ad library, linked into many campaigns, no copies.
@Suite("Media roots")
struct MediaRootTests {
    @Test("ads linked from a media root load and their segments are served through the link; without the root the campaign fails")
    func linkedLibrary() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("media-root-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let folder = scratch.appendingPathComponent("campaigns")
        let library = scratch.appendingPathComponent("library")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: RouteTests.campaigns.appendingPathComponent("evening-news"), to: folder.appendingPathComponent("news"))
        let ads = folder.appendingPathComponent("news/media/ads")
        try FileManager.default.moveItem(at: ads, to: library)
        try FileManager.default.createSymbolicLink(at: ads, withDestinationURL: library)

        let refused = CampaignStore(folder: folder, logger: Logger(label: "test"))
        #expect(refused.campaign("evening-news") == nil, "a link out of the folder without --media-root")
        let store = CampaignStore(folder: folder, logger: Logger(label: "test"), mediaRoots: [library])
        let served = try #require(store.campaign("evening-news"))
        let segment = try #require(
            served.campaign.files.media.keys.first { $0.path.contains("/media/ads/") && $0.pathExtension == "ts" },
            "an ad segment among the campaign's media"
        )
        let relative = String(segment.path.dropFirst(served.folder.path.count + 1))
        var policy = SessionPolicy(secret: RouteTests.secret)
        policy.preview = .off
        try await buildApplication(store: store, policy: policy).test(.live) { client in
            try await client.execute(uri: "/v1/campaigns/evening-news/media/" + relative, method: .get) { response in
                #expect(response.status == .ok, "\(relative)")
                let expected = try Data(contentsOf: segment)
                #expect(Array(response.body.readableBytesView) == Array(expected))
            }
            try await client.execute(uri: "/v1/campaigns/evening-news/media/media/ads/../../campaign.yaml", method: .get) { response in
                #expect(response.status != .ok)
            }
        }
    }
}

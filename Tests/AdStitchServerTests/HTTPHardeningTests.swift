import AdStitchServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// HTTP semantics an attacker or a careless client probes, and what the media route may serve.
@Suite("HTTP hardening")
struct HTTPHardeningTests {
    func app() -> some ApplicationProtocol {
        RouteTests().app()
    }

    @Test("If-None-Match compares weakly (RFC 9110 §13.1.2): W/\"etag\" gets 304")
    func weakETag() async throws {
        try await self.app().test(.live) { client in
            let (_, prefix) = try await RouteTests().startSession(client, query: "session=w-1")
            let etag = try await client.execute(uri: prefix + "v0.m3u8", method: .get) { try #require($0.headers[.eTag]) }
            for condition in [etag, "W/\(etag)", "\"other\", W/\(etag)", "*"] {
                try await client.execute(uri: prefix + "v0.m3u8", method: .get, headers: [.ifNoneMatch: condition]) {
                    #expect($0.status == .notModified, "\(condition)")
                }
            }
            try await client.execute(uri: prefix + "v0.m3u8", method: .get, headers: [.ifNoneMatch: "W/\"other\""]) { #expect($0.status == .ok) }
        }
    }

    @Test("a method a resource does not answer gets 405 with Allow, not 404")
    func methodNotAllowed() async throws {
        try await self.app().test(.live) { client in
            for (uri, method) in [
                ("/v1/campaigns", HTTPRequest.Method.post), ("/v1/campaigns/evening-news/master.m3u8", .delete), ("/healthz", .put),
            ] {
                try await client.execute(uri: uri, method: method) { response in
                    #expect(response.status == .methodNotAllowed, "\(method) \(uri)")
                    #expect(response.headers[.allow] == "GET, HEAD, OPTIONS")
                }
            }
        }
    }

    @Test("one rule for paths: an empty segment (//, a trailing /) or a dot segment, encoded or not, is 400 on every route")
    func pathNormalisation() async throws {
        try await self.app().test(.live) { client in
            let (_, prefix) = try await RouteTests().startSession(client, query: "session=p-1")
            for uri in [
                "/v1/campaigns/evening-news/media/media//ads/alpha/master.m3u8", "/v1//campaigns", "//healthz", "/healthz/",
                "/v1/campaigns/evening-news/master.m3u8/", "/v1/campaigns/evening-news/media/media/./ads/alpha/master.m3u8",
                "/v1/campaigns/evening-news/media/media/%2e%2e/campaign.yaml",
                prefix.replacingOccurrences(of: "/sessions/", with: "/sessions//") + "v0.m3u8",
                prefix + "./v0.m3u8", "/preview//evening-news",
                // Escapes that decode to no UTF-8 (an overlong '.'), or are no escape at all.
                "/v1/campaigns/evening-news/media/media/%c0%ae%c0%ae/campaign.yaml", "/v1/campaigns/evening-news/assets/a%ff/master.m3u8",
                "/v1/campaigns/evening-news/media/media/a%/x.ts", prefix + "v0%G0.m3u8",
            ] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .badRequest, "\(uri)")
                    #expect(response.headers[.contentType] == "application/problem+json")
                }
            }
            // The canonical forms answer.
            for uri in ["/v1/campaigns", "/healthz", "/v1/campaigns/evening-news/media/media/ads/alpha/master.m3u8", prefix + "v0.m3u8"] {
                try await client.execute(uri: uri, method: .get) { #expect($0.status == .ok, "\(uri)") }
            }
        }
    }

    /// Through the router alone: an HTTP/1 CONNECT turns the connection into a tunnel before any
    /// handler of ours sees a request (llhttp), and no session file is asked.
    @Test("CONNECT gets 405 with Allow on any target, never silence")
    func connect() async throws {
        try await self.app().test(.router) { client in
            for uri in ["/v1/campaigns", "/nowhere"] {
                try await client.execute(uri: uri, method: .connect) { response in
                    #expect(response.status == .methodNotAllowed, "\(uri)")
                    #expect(response.headers[.allow] == "GET, HEAD, OPTIONS")
                }
            }
        }
    }

    @Test("Range: one well-formed range is 206, past the end 416, anything else is ignored (200, the whole file)")
    func ranges() async throws {
        try await self.app().test(.live) { client in
            let (master, prefix) = try await RouteTests().startSession(client, query: "session=r-9")
            _ = master
            let playlist = try await client.execute(uri: prefix + "v0.m3u8", method: .get) { String(buffer: $0.body) }
            let segment = try #require(
                playlist.split(separator: "\n").first { $0.hasPrefix("/v1/campaigns/evening-news/media/") && $0.hasSuffix(".ts") }
            )
            let size = try await client.execute(uri: String(segment), method: .get) { $0.body.readableBytes }
            for (range, status, length) in [
                ("bytes=0-9", HTTPResponse.Status.partialContent, 10), ("bytes=-4", .partialContent, 4), ("bytes=\(size - 2)-", .partialContent, 2),
                ("bytes=\(size)-", .rangeNotSatisfiable, 0), ("bytes=0-99999999999999999999", .partialContent, size),
                ("bytes=99999999999999999999-", .rangeNotSatisfiable, 0), ("bytes=-99999999999999999999", .partialContent, size),
                ("bytes=0-9,20-29", .ok, size), ("bytes=+1-+5", .ok, size), ("bytes=5-1", .ok, size),
                ("bytes=abc", .ok, size), ("items=0-9", .ok, size), ("bytes=--3", .ok, size),
            ] {
                try await client.execute(uri: String(segment), method: .get, headers: [.range: range]) { response in
                    #expect(response.status == status, "\(range)")
                    #expect(response.body.readableBytes == length, "\(range)")
                }
            }
        }
    }

    @Test("the media route serves what the playlists reference, never the campaign file or anything else in the folder")
    func mediaRouteServesReferencedFilesOnly() async throws {
        try await self.app().test(.live) { client in
            for path in ["campaign.yaml", "media/generate.sh", "media/program/act-1/master.m3u8"] {
                try await client.execute(uri: "/v1/campaigns/evening-news/media/\(path)", method: .get) { #expect($0.status == .notFound, "\(path)") }
            }
            try await client.execute(uri: "/v1/campaigns/evening-news/media/media/../campaign.yaml", method: .get) {
                #expect($0.status == .badRequest)
            }
            try await client.execute(uri: "/v1/campaigns/evening-news/media/media/program/keys/act-1.key", method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test("GET /v1/campaigns shows paths relative to the campaigns folder, never where the server keeps them")
    func noAbsolutePaths() async throws {
        try await self.app().test(.live) { client in
            try await client.execute(uri: "/v1/campaigns", method: .get) { response in
                let body = String(buffer: response.body)
                #expect(!body.contains(RouteTests.campaigns.path))
                #expect(body.contains("\"file\" : \"evening-news\\/campaign.yaml\"") || body.contains("\"file\" : \"evening-news/campaign.yaml\""))
            }
        }
    }
}

import AdCampaignStore
import AdMetrics
import AdStitchServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// `/metrics`: Prometheus text with requests by route and status, stitch latency, campaigns
/// loaded and reload failures. Each test has its own registry (no process-wide bootstrap).
@Suite("Metrics")
struct MetricsTests {
    /// The samples of a Prometheus exposition: `name{labels}` → value.
    static func samples(_ text: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return samples
    }

    func metrics(_ client: some TestClientProtocol) async throws -> [String: Double] {
        try await client.execute(uri: "/metrics", method: .get) { response in
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/plain; version=0.0.4; charset=utf-8")
            return Self.samples(String(buffer: response.body))
        }
    }

    @Test("requests are counted by route pattern and final status; stitching is timed by kind")
    func requestsAndStitching() async throws {
        let store = CampaignStore(folder: RouteTests.campaigns, logger: Logger(label: "test"), metrics: ServerMetrics())
        let app = buildApplication(store: store, policy: SessionPolicy(secret: RouteTests.secret))
        try await app.test(.live) { client in
            let (_, prefix) = try await RouteTests().startSession(client)
            for _ in 0..<3 {
                try await client.execute(uri: prefix + "v0.m3u8", method: .get) { #expect($0.status == .ok) }
            }
            let etag = try await client.execute(uri: prefix + "boundaries.json", method: .get) { $0.headers[.eTag] }
            try await client.execute(uri: prefix + "boundaries.json", method: .get, headers: [.ifNoneMatch: etag ?? ""]) {
                #expect($0.status == .notModified)
            }
            try await client.execute(uri: "/v1/campaigns/evening-news/sessions/forged.token/v0.m3u8", method: .get) {
                #expect($0.status == .forbidden)
            }
            try await client.execute(uri: "/no/such/path/\(UUID())", method: .get) { #expect($0.status == .notFound) }

            let samples = try await self.metrics(client)
            let session = "/v1/campaigns/{id}/sessions/{token}/{file}"
            #expect(samples[#"adstitch_http_requests_total{route="/v1/campaigns/{id}/master.m3u8",method="GET",status="200"}"#] == 1)
            #expect(samples[#"adstitch_http_requests_total{route="\#(session)",method="GET",status="200"}"#] == 4)
            #expect(samples[#"adstitch_http_requests_total{route="\#(session)",method="GET",status="304"}"#] == 1)
            #expect(samples[#"adstitch_http_requests_total{route="\#(session)",method="GET",status="403"}"#] == 1)
            #expect(samples[#"adstitch_http_requests_total{route="unmatched",method="GET",status="404"}"#] == 1)
            // The first request of a token's playlist stitches; the next ones come from the cache.
            #expect(samples[#"adstitch_stitch_duration_seconds_count{kind="media"}"#] == 1)
            #expect(samples[#"adstitch_response_cache_requests_total{result="hit"}"#] == 3)
            #expect(samples[#"adstitch_response_cache_requests_total{result="miss"}"#] == 2)
            #expect(samples[#"adstitch_stitch_duration_seconds_count{kind="multivariant"}"#] == 1)
            #expect(samples[#"adstitch_stitch_duration_seconds_count{kind="boundaries"}"#] == 1)
            // Buckets are cumulative and end at +Inf with every observation.
            #expect(samples[#"adstitch_stitch_duration_seconds_bucket{kind="media",le="+Inf"}"#] == 1)
            #expect((samples[#"adstitch_stitch_duration_seconds_sum{kind="media"}"#] ?? 0) > 0)
            #expect(samples[#"adstitch_http_request_duration_seconds_count{route="\#(session)"}"#] == 6)
            #expect(samples["adstitch_campaigns_loaded"] == 4)
            // Campaigns/live-news.yaml and live-news-interstitials.yaml need their channel's origin
            // (make run starts one), and Campaigns/catalogue.yaml an origin client for its titles;
            // this store reads local files only.
            #expect(samples["adstitch_campaigns_failing"] == 3)
            // No concrete token or path ever becomes a label value.
            #expect(!samples.keys.contains { $0.contains("forged") || $0.contains("/no/such") })
        }
    }

    @Test("a failed reload is counted and the failing gauge rises while the last good revision serves")
    func reloadFailures() async throws {
        let (folder, file, yaml) = try ReloadTests().folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let logger = Logger(label: "test")
        let store = CampaignStore(folder: folder, logger: logger, metrics: ServerMetrics())
        let app = buildApplication(store: store, policy: SessionPolicy(secret: RouteTests.secret))
        try await app.test(.live) { client in
            var samples = try await self.metrics(client)
            #expect(samples["adstitch_campaigns_loaded"] == 1)
            #expect(samples[#"adstitch_campaign_reload_failures_total{campaign="evening-news"}"#] == nil)

            try Data(yaml.replacingOccurrences(of: "version: 1", with: "version: 7").utf8).write(to: file)
            #expect(ReloadTests.settle(store, logger: logger))
            samples = try await self.metrics(client)
            #expect(samples[#"adstitch_campaign_reload_failures_total{campaign="evening-news"}"#] == 1)
            #expect(samples["adstitch_campaigns_loaded"] == 1)
            #expect(samples["adstitch_campaigns_failing"] == 1)

            try Data(yaml.utf8).write(to: file)
            #expect(ReloadTests.settle(store, logger: logger))
            samples = try await self.metrics(client)
            #expect(samples["adstitch_campaigns_failing"] == 0)
            #expect(samples[#"adstitch_campaign_reload_failures_total{campaign="evening-news"}"#] == 1)
        }
    }
}

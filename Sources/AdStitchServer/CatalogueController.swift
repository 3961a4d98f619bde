import AdCampaign
import AdServerClient
import Crypto
import Foundation
import Hummingbird

/// What is served: `GET /v1/campaigns` (every campaign file and its load status),
/// `GET /v1/creatives` (ad server creatives being conditioned, and done) and `GET /play/{id}` (a
/// page playing a new session).
struct CatalogueController: Sendable {
    let store: CampaignStore
    var conditioning: CreativeConditioning? = nil

    func register(on router: Router<BasicRequestContext>) {
        router.getAndHead(Routes.campaigns) { _, _ in self.list() }
        router.getAndHead(Routes.creatives) { _, _ in try await self.creatives() }
        router.getAndHead(Routes.player) { _, context in try self.player(context) }
    }

    /// `GET /play/{id}`: a page that plays a new session of the campaign in a `<video>`
    /// (Chromium and Safari play HLS natively). `/preview/{id}` shows what a given viewer gets.
    /// `crossorigin`: Chromium's native HLS refuses segments from another origin than the
    /// playlist's (a live channel's, a remote campaign's) unless they load with CORS.
    func player(_ context: BasicRequestContext) throws -> Response {
        let served = try self.store.campaign(for: context)
        let id = PreviewPage.escape(served.campaign.id)
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>AdStitch · \(id)</title>
            <style>\(Self.playerStyle)</style></head>
            <body><h1>\(PreviewPage.escape(served.campaign.title))</h1>
            <video id="video" controls autoplay muted playsinline crossorigin="anonymous" src="/v1/campaigns/\(id)/master.m3u8"></video>
            <p>A new session each time the page loads: <code>/v1/campaigns/\(id)/master.m3u8</code>.
            <a href="/preview/\(id)">Preview</a> what a given viewer gets, and why.</p>
            </body></html>
            """
        // The preview's page headers, its Content-Security-Policy among them, with this page's one
        // inline style allowed by its digest.
        var response = PreviewController.html(html)
        response.headers[.contentSecurityPolicy] = (response.headers[.contentSecurityPolicy] ?? "") + "; style-src 'self' \(Self.playerStyleSource)"
        return response
    }

    /// The player page's style, inline, and its CSP source (CSP 3 hash-source: SHA-256, base64).
    static let playerStyle = "body{font:16px system-ui,sans-serif;margin:2rem;max-width:60rem}video{width:100%;background:#000}"
    static let playerStyleSource = "'sha256-\(Data(SHA256.hash(data: Data(playerStyle.utf8))).base64EncodedString())'"

    /// `GET /v1/creatives`: every conditioning job the queue holds (shared by the replicas that
    /// share `--database`), newest first: campaign, creative, source (credentials masked), state,
    /// attempts, the last error, times, and what a done one made.
    func creatives() async throws -> Response {
        let jobs: [ConditioningJob]
        do {
            jobs = try await self.conditioning?.jobs.jobs() ?? []
        } catch {
            throw Problem(status: .serviceUnavailable, title: "Jobs unavailable", detail: "cannot read the conditioning jobs (\(error)); try again")
        }
        let entries = jobs.map { job -> [String: Any] in
            var entry: [String: Any] = [
                "campaign": job.campaign, "creative": job.creative, "source": AdServerDecisions.masked(job.source), "state": job.state.rawValue,
                "attempts": job.attempts, "queuedAt": Self.date(job.queuedAt),
            ]
            if !job.version.isEmpty { entry["sourceVersion"] = job.version }
            if let error = job.error { entry["error"] = error }
            if let started = job.startedAt { entry["startedAt"] = Self.date(started) }
            if let finished = job.finishedAt { entry["finishedAt"] = Self.date(finished) }
            if job.state == .queued, job.attempts > 0 { entry["retryAt"] = Self.date(job.nextTryAt) }
            if let report = job.report, let summary = try? JSONSerialization.jsonObject(with: Data(report.utf8)) { entry["result"] = summary }
            return entry
        }
        let document: [String: Any] = ["queue": self.conditioning?.jobs.summary ?? "no conditioning", "creatives": entries]
        let data = (try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])) ?? Data()
        return Response(
            status: .ok,
            headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data))
        )
    }

    /// Unix milliseconds as RFC 3339 UTC with milliseconds.
    static func date(_ millis: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(millis) / 1_000))
    }

    /// `GET /v1/campaigns`: every campaign file and its load status (paths relative to the campaigns folder).
    func list() -> Response {
        let statuses = self.store.statuses.map { status -> [String: Any] in
            var entry: [String: Any] = ["file": status.file, "status": status.error == nil ? "loaded" : "failed"]
            if let id = status.id { entry["id"] = id }
            if let revision = status.serving { entry["revision"] = revision }
            if let error = status.error { entry["error"] = error }
            return entry
        }
        let data = (try? JSONSerialization.data(withJSONObject: ["campaigns": statuses], options: [.sortedKeys, .prettyPrinted])) ?? Data()
        return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

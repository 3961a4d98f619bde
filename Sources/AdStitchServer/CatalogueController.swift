import AdCampaign
import AdCampaignStore
import AdOrigin
import AdPreview
import AdServerClient
import Crypto
import Foundation
import HLSPlaylist
import Hummingbird

/// What is served: `GET /v1/campaigns` (every campaign file and its load status),
/// `GET /v1/creatives` (ad server creatives being conditioned, and done) and `GET /play/{id}` (a
/// page playing a new session).
struct CatalogueController: Sendable {
    let store: CampaignStore
    var conditioning: CreativeConditioning? = nil
    /// Who may see the conditioning queue: whoever may use the preview (its sources are third
    /// parties' URLs, its errors say what failed where).
    var preview = PreviewAccess.off
    /// The hls.js build the player page plays with (`serve --hls-js`), read once; nil without one:
    /// the page then plays with the browser's own HLS and reports nothing.
    var hlsJS: String? = nil

    func register(on router: Router<AdStitchRequestContext>) {
        router.getAndHead(Routes.campaigns) { _, _ in self.list() }
        router.getAndHead(Routes.creatives) { request, _ in try await self.creatives(request) }
        router.getAndHead(Routes.player) { request, context in try self.player(request, context) }
        // Static: tagged once, not per request.
        let script = Response.tagged(PlayerScript.text, contentType: "text/javascript; charset=utf-8", cache: "public, max-age=300")
        router.getAndHead(Routes.playerScript) { _, _ in script }
        let hlsJS = self.hlsJS.map { Response.tagged($0, contentType: "text/javascript; charset=utf-8", cache: "public, max-age=300") }
        router.getAndHead(Routes.playerHlsJs) { _, _ in
            guard let hlsJS else { throw Problem.notFound("this server has no hls.js build: start it with serve --hls-js FILE (make run does)") }
            return hlsJS
        }
    }

    /// `GET /play/{id}`: a page that plays a new session of the campaign in a `<video>`, with
    /// hls.js where the server has a build (and then reports the session's viewing quality, as an
    /// app would: ``PlayerScript``), else natively (Chromium and Safari play HLS). `/preview/{id}` shows what a given viewer gets.
    /// `crossorigin`: Chromium's native HLS refuses segments from another origin than the
    /// playlist's (a live channel's, a remote campaign's) unless they load with CORS.
    ///
    /// A catalogue's page plays the title `?title=PATH` (its multivariant playlist below the
    /// prefix), and lists the titles started recently on this replica.
    func player(_ request: Request, _ context: AdStitchRequestContext) throws -> Response {
        let id = try context.parameters.require("id")
        let campaign: Campaign
        var source = Routes.masterPath(id)
        var recent = ""
        if let titles = self.store.catalogue(id) {
            let template = titles.template
            campaign = template.campaign
            let asked = request.uri.queryParameters["title"].map(String.init)
            if let asked {
                guard template.catalogue.url(of: asked) != nil else {
                    throw Problem.notFound("\(asked) is not a title path of catalogue \(id) (a path below its prefix ending in .m3u8)")
                }
                source = Routes.catalogueMasterPath(id, title: asked)
            }
            // A title path may hold sub-delimiters (`&`, `+`, `=`) that a query value cannot: percent-encoded.
            let links = titles.recent.map {
                let query = $0.addingPercentEncoding(withAllowedCharacters: Self.titleQueryAllowed) ?? $0
                return "<li><a href=\"/play/\(PreviewPage.escape(id))?title=\(PreviewPage.escape(query))\">\(PreviewPage.escape($0))</a></li>"
            }
            recent = "<p>Titles started recently on this replica:</p><ul>\(links.joined())</ul>"
            if asked == nil {
                source = ""
            }
        } else {
            campaign = try self.store.campaign(for: context).campaign
        }
        let escaped = PreviewPage.escape(campaign.id)
        let video =
            source.isEmpty
            ? "<p>A catalogue: give <code>?title=PATH</code>, a title's multivariant playlist below <code>\(PreviewPage.escape(campaign.catalogue?.prefix.absoluteString ?? ""))</code>.</p>"
            : """
            <video id="video" controls autoplay muted playsinline crossorigin="anonymous" data-master="\(PreviewPage.escape(source))"></video>
            <p>A new session each time the page loads: <code>\(PreviewPage.escape(source))</code>.
            <a href="/preview/\(escaped)">Preview</a> what a given viewer gets, and why.
            \(self.hlsJS == nil ? "Played with the browser's own HLS; with hls.js (serve --hls-js) the page reports its viewing quality." : "Played with hls.js, which reports the session's viewing quality to <code>…/sessions/{token}/qoe</code>.")</p>
            \(self.hlsJS == nil ? "" : "<script src=\"\(Routes.playerHlsJs)\"></script>")<script src="\(Routes.playerScript)"></script>
            """
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>AdStitch · \(escaped)</title>
            <style>\(Self.playerStyle)</style></head>
            <body><h1>\(PreviewPage.escape(campaign.title))</h1>
            \(video)\(recent)
            </body></html>
            """
        // The preview's page headers, its Content-Security-Policy among them, with this page's one
        // inline style allowed by its digest.
        var response = PreviewController.html(html)
        response.headers[.contentSecurityPolicy] = (response.headers[.contentSecurityPolicy] ?? "") + "; style-src 'self' \(Self.playerStyleSource)"
        return response
    }

    /// What a title path keeps unencoded as the `title=` query value: RFC 3986's unreserved
    /// characters and `/`.
    static let titleQueryAllowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/")

    /// The player page's style, inline, and its CSP source (CSP 3 hash-source: SHA-256, base64).
    static let playerStyle = "body{font:16px system-ui,sans-serif;margin:2rem;max-width:60rem}video{width:100%;background:#000}"
    static let playerStyleSource = "'sha256-\(Data(SHA256.hash(data: Data(playerStyle.utf8))).base64EncodedString())'"

    /// `GET /v1/creatives`: every conditioning job the queue holds (shared by the replicas that
    /// share `--database`), newest first: campaign, creative, source (credentials masked), state,
    /// attempts, the last error, times, and what a done one made. Behind the preview's access:
    /// 404 with the preview off, 403 without its key.
    func creatives(_ request: Request) async throws -> Response {
        guard self.preview != .off else {
            throw Problem.notFound("the conditioning queue is shown with the preview: serve --preview, or --preview-key KEY on a shared server")
        }
        try self.preview.check(request)
        let jobs: [ConditioningJob]
        do {
            jobs = try await self.conditioning?.jobs.jobs() ?? []
        } catch {
            throw Problem(status: .serviceUnavailable, title: "Jobs unavailable", detail: "cannot read the conditioning jobs (\(error)); try again")
        }
        let entries = jobs.map { job -> [String: Any] in
            var entry: [String: Any] = [
                "campaign": job.campaign, "creative": job.creative, "source": Redaction.url(job.source), "state": job.state.rawValue,
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
        DateTime.iso8601(millisecondsSinceEpoch: millis)
    }

    /// `GET /v1/campaigns`: every campaign file and its load status, and the YAML files not loaded
    /// as campaigns with why (paths relative to the campaigns folder).
    func list() -> Response {
        let statuses = self.store.statuses.map { status -> [String: Any] in
            var entry: [String: Any] = ["file": status.file, "status": status.error == nil ? "loaded" : "failed"]
            if let id = status.id { entry["id"] = id }
            if let revision = status.serving { entry["revision"] = revision }
            if let error = status.error { entry["error"] = error }
            if let titles = status.id.flatMap(self.store.catalogue) {
                let held = titles.held
                entry["catalogue"] =
                    [
                        "prefix": titles.template.catalogue.prefix.absoluteString, "titlesHeld": held.titles, "bytesHeld": held.bytes,
                        "recent": titles.recent,
                    ] as [String: Any]
            }
            return entry
        }
        let skipped = self.store.skipped.map { ["file": $0.file, "reason": $0.reason] }
        let data =
            (try? JSONSerialization.data(
                withJSONObject: ["campaigns": statuses, "skipped": skipped] as [String: Any],
                options: [.sortedKeys, .prettyPrinted]
            ))
            ?? Data()
        return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

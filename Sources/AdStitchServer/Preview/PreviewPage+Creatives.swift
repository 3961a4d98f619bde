import AdOrigin
import AdPreview
import AdServerClient
import Foundation

extension PreviewPage {
    /// The conditioning queue (`GET /v1/creatives` as a page): each creative an ad server
    /// answered without HLS that fits, its state, attempts, error and what its encode made.
    static func creatives(_ jobs: [ConditioningJob], queue: String) -> String {
        var body = "<p class=\"crumbs\"><a href=\"/preview\">All campaigns</a></p>\n<h1>Creatives being conditioned</h1>\n"
        body += "<p>\(escape(queue)). Ad server creatives without HLS that fits the programme are skipped (VAST error 407) until "
        body += "conditioned into the campaign's store (<code>creatives:</code>); <a href=\"/v1/creatives\">JSON</a>.</p>\n"
        guard !jobs.isEmpty else { return document(title: "Creatives", body: body + "<p class=\"ok\">No creative queued.</p>\n") }
        body += "<table class=\"creatives\"><thead><tr><th>Campaign</th><th>Creative</th><th>State</th><th>Attempts</th>"
        body += "<th>Source</th><th>Queued</th><th>Result</th></tr></thead><tbody>\n"
        for job in jobs {
            let state = job.state == .done ? "ok" : job.state == .failed ? "failed" : ""
            var result = job.error.map { "<span class=\"failed\">\(escape($0))</span>" } ?? ""
            if let report = job.report, let summary = try? JSONDecoder().decode(ConditioningSummary.self, from: Data(report.utf8)) {
                result = "\(escape(summary.duration)) s \(escape(summary.container)), " + String(format: "%.1f s to encode", summary.seconds) + ": "
                result += summary.renditions.map { escape($0) }.joined(separator: "; ")
            }
            body +=
                "<tr><td><a href=\"/preview/\(escape(job.campaign))\">\(escape(job.campaign))</a></td><td><code>\(escape(job.creative))</code></td>"
            body += "<td class=\"\(state)\">\(job.state.rawValue)</td><td>\(job.attempts)</td>"
            body += "<td class=\"file\">\(escape(Redaction.url(job.source)))</td>"
            body += "<td>\(escape(CatalogueController.date(job.queuedAt)))</td><td>\(result)</td></tr>\n"
        }
        return document(title: "Creatives", body: body + "</tbody></table>\n")
    }
}

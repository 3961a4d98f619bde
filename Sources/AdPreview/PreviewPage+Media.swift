import AdCampaign
import AdCampaignStore
import AdMedia
import Foundation

extension PreviewPage {
    /// What `adstitch validate --media` finds in a campaign's segments: the findings first, then
    /// what was measured of every rendition of every piece.
    package static func media(_ served: ServedCampaign, report: MediaReport) -> String {
        let campaign = served.campaign
        let id = escape(campaign.id)
        let warnings = report.findings.filter { $0.severity == .warning }.count
        var body = "<p class=\"crumbs\"><a href=\"/preview\">All campaigns</a> · <a href=\"/preview/\(id)\">\(escape(campaign.title))</a></p>\n"
        body += "<h1>Media of \(escape(campaign.title)) <small>revision <code>\(escape(campaign.revision))</code></small></h1>\n"
        body += "<p>\(report.probed) segments probed in \(report.renditions.count) renditions: \(report.errors) errors, \(warnings) warnings "
        body += "(ffprobe; the first and last segment of each rendition, every segment's size for the peak; "
        body += "<a href=\"/preview/\(id)/media.json\">JSON</a>, as <code>adstitch validate --media --format json</code> writes it).</p>\n"
        if report.findings.isEmpty {
            body += "<p class=\"ok\">No finding.</p>\n"
        } else {
            body +=
                "<table class=\"findings\"><thead><tr><th>Severity</th><th>Check</th><th>Piece</th><th>Rendition</th><th>File</th><th>Finding</th></tr></thead><tbody>\n"
            for finding in report.findings {
                body +=
                    "<tr class=\"\(finding.severity.rawValue)\"><td>\(finding.severity.rawValue)</td><td><code>\(finding.check.rawValue)</code></td>"
                body += "<td>\(escape(finding.asset))</td><td>\(escape(finding.rendition))</td><td class=\"file\">\(escape(finding.file))</td>"
                body += "<td>\(escape(finding.message))</td></tr>\n"
            }
            body += "</tbody></table>\n"
        }
        for note in report.notes { body += "<p class=\"hint\">\(escape(note))</p>\n" }
        body += "<h2>Measured</h2>\n<table class=\"measured\"><thead><tr><th>Piece</th><th>Rendition</th><th>Codecs found</th>"
        body += "<th>BANDWIDTH</th><th>Measured peak</th><th>Audio after video</th></tr></thead><tbody>\n"
        for rendition in report.renditions {
            body += "<tr><td>\(escape(rendition.asset))</td><td>\(escape(rendition.rendition))</td>"
            body += "<td>\(escape(rendition.probedCodecs.joined(separator: "; ")))</td>"
            body += "<td>\(rendition.declaredBandwidth.map(String.init) ?? "—")</td><td>\(rendition.measuredPeak.map(String.init) ?? "—")</td>"
            body += "<td>\(rendition.audioStartsAfterVideo.map { String(format: "%.3f s", $0) } ?? "—")</td></tr>\n"
        }
        body += "</tbody></table>\n"
        return document(title: "Media of \(campaign.title)", body: body)
    }
}

import AdCampaign
import AdCampaignStore
import AdDecision
import AdOrigin
import AdServerClient
import AdStitching
import Foundation
import HLSPlaylist

/// The HTML of the campaign preview tool (docs/preview.md): server-rendered, no external assets,
/// one small script (``PreviewAssets/script``) that makes the player follow the boundary manifest.
/// Every piece of the timeline carries `data-start`/`data-end` (exact stream times) so the script
/// can highlight what plays, and the page embeds the plan report and the boundary manifest as
/// JSON (`#plan-report`, `#boundary-manifest`) — the same report `adstitch preview --format json`
/// prints.
package enum PreviewPage {
    /// At most this many sessions are compared side by side (`count=`).
    package static let maxCompared = 24

    // MARK: - Campaign list

    package static func list(_ statuses: [CampaignStatus], served: (String) -> ServedCampaign?) -> String {
        var rows = ""
        for status in statuses {
            let name = status.id ?? status.file
            let title = status.id.flatMap(served)?.campaign.title
            let link = status.id.map { "<a href=\"/preview/\(escape($0))\">\(escape(title ?? $0))</a>" } ?? escape(name)
            let state =
                status.error == nil
                ? "<span class=\"ok\">loaded</span>"
                : "<span class=\"failed\">failed</span>" + (status.serving == nil ? "" : " (the last good revision serves)")
            rows += "<tr><td>\(link)</td><td><code>\(escape(status.id ?? "—"))</code></td><td>\(state)</td>"
            rows += "<td><code>\(escape(status.serving ?? "—"))</code></td><td class=\"file\">\(escape(status.file))</td></tr>\n"
            if let error = status.error { rows += "<tr class=\"error-row\"><td colspan=\"5\"><pre>\(escape(error))</pre></td></tr>\n" }
        }
        if statuses.isEmpty { rows = "<tr><td colspan=\"5\">No campaign files in the folder.</td></tr>" }
        return document(
            title: "Campaigns",
            body: """
                <h1>Campaign preview</h1>
                <p>What a viewer will get, and why. Pick a campaign. <a href="/preview/creatives">Creatives being conditioned</a>.</p>
                <table class="campaigns"><thead><tr><th>Campaign</th><th>Id</th><th>Status</th><th>Revision</th><th>File</th></tr></thead>
                <tbody>
                \(rows)</tbody></table>
                """
        )
    }

    // MARK: - A catalogue

    /// A catalogue's page: the titles started recently (newest first), each a link to its
    /// preview with the form's context, and the form, whose title field previews any path.
    package static func catalogue(_ campaign: Campaign, recent: [String], held: (titles: Int, bytes: Int), context: PreviewContext) -> String {
        var body = "<p class=\"crumbs\"><a href=\"/preview\">All campaigns</a></p>\n"
        body +=
            "<h1>\(escape(campaign.title)) <small><code>\(escape(campaign.id))</code> revision <code>\(escape(campaign.revision))</code> · catalogue</small></h1>\n"
        if case .catalogue(let catalogue) = campaign.programme {
            body += "<p>Every multivariant playlist below <code>\(escape(catalogue.prefix.absoluteString))</code> is a title. "
            body += "This replica holds \(held.titles) (about \(held.bytes / 1_048_576) MiB). Preview any path, or one started recently.</p>\n"
        }
        body += self.form(campaign, context: context, action: "/preview/\(campaign.id)", asksTitle: true)
        body += self.errors(context.errors)
        body += "<h2>Started recently</h2>\n"
        guard !recent.isEmpty else { return document(title: campaign.title, body: body + "<p>No title has started on this replica yet.</p>\n") }
        var rows = ""
        for path in recent {
            var linked = context
            linked.title = path
            rows += "<li><a href=\"/preview/\(escape(campaign.id))?\(escape(linked.query))\"><code>\(escape(path))</code></a></li>\n"
        }
        return document(title: campaign.title, body: body + "<ul class=\"titles\">\n\(rows)</ul>\n")
    }

    // MARK: - One viewer

    /// - Parameter hasPlayer: hls.js is served (`serve --hls-js`): fMP4 sessions play through it
    ///   (Chromium plays only TS natively), and the interstitial form of the plan gets a player too.
    /// - Parameters:
    ///   - adServer: each break's request to the campaign's ad decision server and what came of it.
    ///   - renderer: the load's renderer with the ad server's creatives (default: the load's).
    package static func campaign(
        _ served: ServedCampaign,
        context: PreviewContext,
        plan: Plan?,
        hasPlayer: Bool = false,
        adServer: [AdServerDecisions.BreakReport] = [],
        renderer: SessionRenderer? = nil,
        caps: FrequencyCapStatus.Viewer? = nil
    ) -> String {
        let campaign = served.campaign
        var body = "<p class=\"crumbs\"><a href=\"/preview\">All campaigns</a>"
        // A catalogue's title: back to the catalogue's list, the title's path beside its name.
        var heading = escape(campaign.title)
        if let title = context.title {
            body += " › <a href=\"/preview/\(escape(campaign.id))\">\(escape(campaign.title))</a>"
            heading += ": <code>\(escape(title))</code>"
        }
        body += "</p>\n"
        body += "<h1>\(heading) <small><code>\(escape(campaign.id))</code> revision <code>\(escape(campaign.revision))</code></small></h1>\n"
        body += self.form(campaign, context: context, action: "/preview/\(campaign.id)")
        body += self.errors(context.errors)
        body += self.warnings(served)
        guard let plan else { return document(title: campaign.title, body: body) }
        let report = served.report(plan)
        let manifest = BoundaryManifest(plan)
        let query = context.query
        let master = "/preview/\(escape(campaign.id))/master.m3u8?\(escape(query))"
        // Chromium plays TS natively but stops at the first fMP4 discontinuity: hls.js plays those.
        let viaHlsJs = hasPlayer && campaign.templateAsset?.usesFragmentedMP4 == true
        let source = viaHlsJs ? "data-hls=\"\(master)&amp;insertion=stitched\"" : "src=\"\(master)&amp;insertion=stitched\""
        body += """
            <section class="player">
            <video id="video" controls muted playsinline preload="metadata" \(source)></video>
            <p class="now"><span id="now">Press play: the timeline and the break list follow the video.</span> <span id="notice" role="status"></span></p>
            <p class="hint">This player's master honours the form's <code>at</code>; the public endpoint always decides with the server's clock.
            <a href="/preview/\(escape(campaign.id))/master.m3u8?\(escape(query))">master.m3u8</a></p>
            \(self.trustedNote(campaign, context: context))
            <h2>Timeline <small>\(plan.duration) s, \(plan.breaks.count) breaks</small></h2>
            \(self.timeline(plan, id: "timeline"))
            </section>
            <section><h2>Pieces</h2>
            \(self.pieces(plan, rewrites: report.rewrites))
            </section>
            <section><h2>Why these ads</h2>
            <p>Rules applied: \(plan.appliedRules.isEmpty ? "none" : plan.appliedRules.map { "<code>\(escape($0))</code>" }.joined(separator: ", ")).</p>
            \(plan.breaks.map(self.reasons).joined(separator: "\n"))
            </section>
            \(self.adServer(adServer))
            \(self.frequencyCaps(caps, campaign: campaign))
            <section><h2>Startup and variant order</h2>
            \(self.startup(plan))
            </section>
            <section><h2>Boundary manifest</h2>
            <p>What the player's boundary-time observer gets (schema: <code>docs/boundary-manifest.schema.json</code>).</p>
            <pre class="json">\(escape(manifest.json.text()))</pre>
            </section>
            \(self.interstitials(served, plan: plan, master: master, hasPlayer: hasPlayer, renderer: renderer ?? served.renderer))
            <p><a href="/preview/\(escape(campaign.id))/compare?\(escape(query))&amp;count=6">Compare six sessions with this context</a>
            · <a href="/preview/\(escape(campaign.id))/report.json?\(escape(query))">plan report (JSON)</a>
            · <a href="/preview/\(escape(campaign.id))/media">what is inside the media (validate --media)</a>
            · <a href="/preview/\(escape(campaign.id))/quality">viewing quality (what players reported)</a></p>
            <script type="application/json" id="plan-report">\(self.scriptJSON(report.json.text()))</script>
            <script type="application/json" id="boundary-manifest">\(self.scriptJSON(manifest.json.text()))</script>
            \(hasPlayer ? "<script src=\"/preview/assets/hls.js\"></script>" : "")
            <script src="/preview/assets/preview.js"></script>
            """
        return document(title: campaign.title, body: body)
    }

    /// The same plan as HLS Interstitials: a player of the interstitial session (hls.js), the
    /// primary playlists' date ranges and each break's asset list — the same ads in the same
    /// order as the stitched player above.
    static func interstitials(_ served: ServedCampaign, plan: Plan, master: String, hasPlayer: Bool, renderer: SessionRenderer) -> String {
        let schedule = renderer.schedule(plan)
        // As the campaign's sessions get them: trackers only where the player fires them.
        let trackers = served.campaign.reporting.handsTrackersToPlayer
        let lists = schedule.interstitials.map { interstitial in
            "<h3>Break <code>\(escape(interstitial.id))</code> <small>at \(interstitial.start) s of the primary, \(interstitial.duration) s, resumes +\(interstitial.resumeOffset) s</small></h3>\n"
                + "<pre class=\"json\">\(escape(renderer.assetList(schedule, breakID: interstitial.id, trackers: trackers) ?? ""))</pre>"
        }
        let player =
            hasPlayer
            ? """
            <video id="video-interstitials" controls muted playsinline preload="metadata" data-hls="\(master)&amp;insertion=interstitials"></video>
            <p class="now"><span id="interstitial-now">hls.js plays the breaks as interstitials; it refuses a seek past a restricted break.</span></p>
            """
            : "<p class=\"hint\">No hls.js here (<code>serve --hls-js</code>; <code>make run</code> gives one): open the master below in AVPlayer or Safari.</p>"
        return """
            <section class="interstitials"><h2>As HLS Interstitials <small>the same plan, \(schedule.interstitials.count) interstitials on \(schedule.duration) s of primary</small></h2>
            \(player)
            <p class="hint"><a href="\(master)&amp;insertion=interstitials">master.m3u8 (interstitials)</a> ·
            a session start picks this mode with <code>insertion=interstitials</code> (or <code>auto</code>: AVPlayer, hls.js with <code>player=hls.js</code>).</p>
            <h3>Date ranges in every primary playlist</h3>
            <pre class="json">\(escape(renderer.interstitialDateRanges(schedule, trackers: trackers)))</pre>
            \(lists.joined(separator: "\n"))
            <h3>Boundary manifest of the interstitial session</h3>
            <pre class="json">\(escape(BoundaryManifest(schedule).json.text()))</pre>
            </section>
            """
    }

    /// Says which of the context's attributes a public session start honours only when signed
    /// (`trusted_attributes`, docs/http-api.md "Session security").
    static func trustedNote(_ campaign: Campaign, context: PreviewContext) -> String {
        let trusted = campaign.trustedAttributes.filter { context.attributes[$0] != nil }
        guard !trusted.isEmpty else { return "" }
        let names = trusted.map { "<code>\(escape($0))</code>" }.joined(separator: ", ")
        return "<p class=\"hint trusted\">\(names): trusted attributes. On the public API they count only in session starts an app backend "
            + "signed (<code>serve --start-key</code>); unsigned session starts ignore them, so no viewer can claim to have seen every ad.</p>"
    }

    // MARK: - Compare

    package static func compare(_ served: ServedCampaign, context: PreviewContext, plans: [Plan], count: Int) -> String {
        let campaign = served.campaign
        var body =
            "<p class=\"crumbs\"><a href=\"/preview\">All campaigns</a> › <a href=\"/preview/\(escape(campaign.id))?\(escape(context.query))\">\(escape(campaign.title))</a></p>\n"
        body += "<h1>\(escape(campaign.title)): \(plans.count) sessions side by side</h1>\n"
        body += self.form(campaign, context: context, action: "/preview/\(campaign.id)/compare", count: count)
        body += self.errors(context.errors)
        guard !plans.isEmpty else { return document(title: campaign.title, body: body) }
        let longest = plans.map(\.duration).max() ?? .zero
        body += "<table class=\"compare\"><thead><tr><th>Session</th><th>Timeline (same scale)</th><th>Ads</th></tr></thead><tbody>\n"
        for plan in plans {
            let ads = plan.pieces.compactMap { piece -> String? in
                if case .ad = piece.kind { return piece.id }
                return nil
            }
            let session = context.with(session: plan.context.session)
            body +=
                "<tr data-session=\"\(escape(plan.context.session))\"><td><a href=\"/preview/\(escape(campaign.id))?\(escape(session.query))\">\(escape(plan.context.session))</a></td>"
            body += "<td>\(self.timeline(plan, id: nil, scale: longest))</td><td>\(escape(ads.joined(separator: ", ")))</td></tr>\n"
        }
        body += "</tbody></table>\n"
        // How often each ad played across the sessions: rotation at a glance.
        var plays: [String: Int] = [:]
        var sessions: [String: Int] = [:]
        for plan in plans {
            var seen = Set<String>()
            for piece in plan.pieces {
                guard case .ad = piece.kind else { continue }
                plays[piece.id, default: 0] += 1
                if seen.insert(piece.id).inserted { sessions[piece.id, default: 0] += 1 }
            }
        }
        body += "<h2>Rotation</h2><table class=\"rotation\"><thead><tr><th>Ad</th><th>Plays</th><th>Sessions</th></tr></thead><tbody>\n"
        for ad in plays.keys.sorted(by: { (plays[$0] ?? 0, $1) > (plays[$1] ?? 0, $0) }) {
            body += "<tr><td><code>\(escape(ad))</code></td><td>\(plays[ad] ?? 0)</td><td>\(sessions[ad] ?? 0) of \(plans.count)</td></tr>\n"
        }
        body += "</tbody></table>\n"
        return document(title: campaign.title, body: body)
    }

    // MARK: - Parts

    /// The viewer-context form. GET, so every preview is a link that can be shared.
    static func form(_ campaign: Campaign, context: PreviewContext, action: String, count: Int? = nil, asksTitle: Bool = false) -> String {
        // A catalogue's title: a field on the catalogue's page, carried along on a title's pages.
        var fields =
            asksTitle
            ? "<label class=\"wide\">Title (path below the catalogue's prefix) <input name=\"title\" required placeholder=\"series/episode-1/master.m3u8\" value=\"\(escape(context.title ?? ""))\"></label>\n"
            : context.title.map { "<input type=\"hidden\" name=\"title\" value=\"\(escape($0))\">\n" } ?? ""
        fields += "<label>Session <input name=\"session\" value=\"\(escape(context.session))\"></label>\n"
        fields += "<label>At (ISO 8601) <input name=\"at\" value=\"\(escape(context.atText))\"></label>\n"
        for name in PreviewContext.fields {
            fields +=
                "<label>\(name.prefix(1).uppercased() + name.dropFirst()) <input name=\"\(name)\" value=\"\(escape(context.attributes[name] ?? ""))\"></label>\n"
        }
        let more = context.attributes.keys.filter { !PreviewContext.fields.contains($0) }.sorted().map { "\($0)=\(context.attributes[$0] ?? "")" }
        fields +=
            "<label class=\"wide\">More attributes (key=value per line) <textarea name=\"more\" rows=\"1\">\(escape(more.joined(separator: "\n")))</textarea></label>\n"
        if let count {
            fields +=
                "<label>Sessions <input name=\"count\" type=\"number\" min=\"1\" max=\"\(Self.maxCompared)\" value=\"\(count)\"></label>\n"
        }
        return """
            <form class="context" method="get" action="\(escape(action))">
            \(fields)<button type="submit">Preview</button>
            </form>

            """
    }

    /// What `adstitch validate` warns about the campaign — cuts snapped to a segment boundary, skew
    /// between renditions' cuts, markers skipped — with paths inside the campaign's folder.
    /// Each break's ad server request (credentials masked), its outcome, the wrappers followed,
    /// what plays and why the rest does not; nothing without an ad server.
    static func adServer(_ reports: [AdServerDecisions.BreakReport]) -> String {
        guard !reports.isEmpty else { return "" }
        let rows = reports.map { report in
            let skipped = report.skipped.map { skipped in
                "<li><code>\(escape(skipped.id))</code>: \(escape(skipped.reason))\(skipped.vastError.map { " <small>(VAST \($0))</small>" } ?? "")</li>"
            }
            let wrappers = report.wrappers.isEmpty ? "" : "<br><small>\(report.wrappers.count) wrapper requests</small>"
            let outcome =
                escape(report.outcome.rawValue) + (report.error.map { "<br><small>\(escape($0)); the fallback pools fill the break</small>" } ?? "")
            let plays = report.played.isEmpty ? "none" : report.played.map { "<code>\(escape($0))</code>" }.joined(separator: ", ")
            return
                "<tr><td><code>\(escape(report.breakID))</code></td><td><code class=\"url\">\(escape(Redaction.url(report.url)))</code>\(wrappers)</td>"
                + "<td>\(outcome)</td><td>\(plays)</td><td>\(skipped.isEmpty ? "" : "<ul>\(skipped.joined())</ul>")</td></tr>"
        }
        return """
            <section><h2>Ad server</h2>
            <p>Asked now for this context, every break at once; a player's session asks again when it starts, and an ad server may answer it otherwise.</p>
            <table class="ad-server"><tr><th>Break</th><th>Request</th><th>Outcome</th><th>Plays first</th><th>Skipped</th></tr>
            \(rows.joined(separator: "\n"))
            </table>
            </section>
            """
    }

    /// The viewer's frequency caps: each, whether it is reached, and the impressions it counts.
    static func frequencyCaps(_ viewer: FrequencyCapStatus.Viewer?, campaign: Campaign) -> String {
        guard let viewer else { return "" }
        let rows = zip(campaign.frequencyCaps, viewer.status.counted).enumerated().map { index, pair in
            let (cap, counted) = pair
            let impressions = counted.map {
                "<li><code>\(escape($0.ad))</code> \(escape(DateTime.iso8601(millisecondsSinceEpoch: $0.at))) <small>session \(escape($0.session))</small></li>"
            }
            let state = viewer.status.reached.contains(index) ? "<strong>reached</strong>: its ads are excluded" : "not reached"
            return "<tr><td><code>frequency_caps[\(index)]</code></td><td><code>\(escape(cap.ads.source))</code></td>"
                + "<td>\(counted.count) of \(cap.max) within \(escape(cap.perText))</td><td>\(state)</td>"
                + "<td>\(impressions.isEmpty ? "none" : "<ul>\(impressions.joined())</ul>")</td></tr>"
        }
        return """
            <section><h2>Frequency caps <small>viewer <code>\(escape(viewer.id))</code></small></h2>
            <p>The viewer's impressions as the sessions that played them started; the preview reads them and adds none.</p>
            <table class="ad-server"><tr><th>Cap</th><th>Ads</th><th>Counted</th><th>State</th><th>Impressions</th></tr>
            \(rows.joined(separator: "\n"))
            </table>
            </section>
            """
    }

    static func warnings(_ served: ServedCampaign) -> String {
        let warnings = served.campaign.warnings
        guard !warnings.isEmpty else { return "" }
        let root = served.folder.path.hasSuffix("/") ? served.folder.path : served.folder.path + "/"
        let items = warnings.map { warning in
            let file = warning.file.hasPrefix(root) ? String(warning.file.dropFirst(root.count)) : warning.file
            let place = warning.line > 0 ? "\(file):\(warning.line)" : file
            return "<li><code>\(escape(place))</code> \(escape(warning.field)): \(escape(warning.message))</li>"
        }
        return "<section class=\"warnings\"><h2>Warnings</h2><ul>\(items.joined())</ul></section>\n"
    }

    static func errors(_ errors: [String]) -> String {
        guard !errors.isEmpty else { return "" }
        return "<div class=\"errors\" role=\"alert\"><p>Fix the form:</p><ul>\(errors.map { "<li>\(escape($0))</li>" }.joined())</ul></div>\n"
    }

    /// The plan to scale as SVG (1000 units wide): islands light grey, ads coloured by id, slate dark grey,
    /// breaks bracketed above with their restrictions; a playhead the script moves.
    static func timeline(_ plan: Plan, id: String?, scale: ExactDecimal? = nil) -> String {
        let total = max((scale ?? plan.duration).doubleValue, 0.001)
        func x(_ time: ExactDecimal) -> String { format(time.doubleValue / total * 1000) }
        var svg =
            "<svg class=\"timeline\"\(id.map { " id=\"\(escape($0))\"" } ?? "") viewBox=\"0 0 1000 64\" preserveAspectRatio=\"none\" role=\"img\" aria-label=\"timeline\">\n"
        for planned in plan.breaks {
            let restricted = !planned.adBreak.restrict.isEmpty
            svg +=
                "<g class=\"break\(restricted ? " restricted" : "")\" data-break=\"\(escape(planned.adBreak.id))\" data-start=\"\(planned.start)\" data-end=\"\(planned.end)\">"
            svg += "<rect x=\"\(x(planned.start))\" y=\"2\" width=\"\(x(planned.duration))\" height=\"10\"/>"
            svg +=
                "<title>break \(escape(planned.adBreak.id)): \(planned.start)–\(planned.end) s\(restricted ? ", restrict " + planned.adBreak.restrict.names.joined(separator: ", ") : "")</title></g>\n"
        }
        for piece in plan.pieces {
            let kind = piece.kind.name
            let end = piece.start + piece.duration
            svg +=
                "<g class=\"piece \(kind)\(kind == "ad" ? " ad-\(self.colour(piece.id))" : "")\" data-kind=\"\(kind)\" data-id=\"\(escape(piece.id))\""
            if let breakID = piece.breakID { svg += " data-break=\"\(escape(breakID))\"" }
            svg += " data-start=\"\(piece.start)\" data-end=\"\(end)\">"
            svg += "<rect x=\"\(x(piece.start))\" y=\"16\" width=\"\(x(piece.duration))\" height=\"30\"/>"
            if piece.duration.doubleValue / total > 0.05 {
                svg +=
                    "<text x=\"\(format((piece.start.doubleValue + piece.duration.doubleValue / 2) / total * 1000))\" y=\"36\">\(escape(piece.id))</text>"
            }
            svg += "<title>\(kind == "slate" ? "slate" : "\(kind) \(escape(piece.id))"): \(piece.start)–\(end) s</title></g>\n"
        }
        if id != nil { svg += "<line id=\"playhead\" x1=\"0\" x2=\"0\" y1=\"0\" y2=\"64\"/>\n" }
        svg += "<text class=\"tick\" x=\"2\" y=\"60\">0 s</text><text class=\"tick end\" x=\"998\" y=\"60\">\(scale ?? plan.duration) s</text>\n"
        return svg + "</svg>"
    }

    /// The pieces as a table with exact stream times (the rows highlight as they play); with
    /// `rewrites` (a campaign with `rewrite:` rules), the rules that wrote each piece's URIs.
    static func pieces(_ plan: Plan, rewrites: [[String]]? = nil) -> String {
        var rows = ""
        for (position, piece) in plan.pieces.enumerated() {
            let kind = piece.kind.name
            rows +=
                "<tr class=\"\(kind)\" data-kind=\"\(kind)\" data-id=\"\(escape(piece.id))\" data-start=\"\(piece.start)\" data-end=\"\(piece.start + piece.duration)\">"
            rows += "<td>\(piece.start)</td><td>\(piece.start + piece.duration)</td><td>\(piece.duration)</td><td>\(kind)</td>"
            rows += "<td><code>\(escape(piece.id))</code></td><td>\(escape(piece.breakID ?? ""))</td>"
            if let names = rewrites?[position] {
                rows += "<td class=\"rewrites\">\(names.isEmpty ? "—" : names.map { "<code>\(escape($0))</code>" }.joined(separator: ", "))</td>"
            }
            rows += "</tr>\n"
        }
        let rewriteHeader = rewrites == nil ? "" : "<th>URIs rewritten by</th>"
        return """
            <table class="pieces"><thead><tr><th>Start (s)</th><th>End (s)</th><th>Duration (s)</th><th>Kind</th><th>Id</th><th>Break</th>\(rewriteHeader)</tr></thead>
            <tbody>
            \(rows)</tbody></table>
            """
    }

    /// One break: how it was filled, and for each ad of its pools why it was chosen or not.
    static func reasons(_ planned: PlannedBreak) -> String {
        var summary =
            "\(planned.start)–\(planned.end) s: \(planned.duration) of \(planned.adBreak.duration) s from \(planned.pools.joined(separator: ", "))"
        if planned.slates > 0 { summary += "; slate ×\(planned.slates)" }
        if planned.unfilled > .zero { summary += "; \(planned.unfilled) s unfilled" }
        if let place = planned.adBreak.placement {
            // One programme asset: where the break cuts it, and how.
            summary += place.replaced.map { "; replaces \($0) s of programme at \(place.cut) s" } ?? "; inserted at \(place.cut) s"
            if let requested = place.requested, requested != place.cut { summary += " (asked for \(requested) s)" }
            if let line = place.markerLine { summary += " — marker on line \(line)" }
        }
        let restrict =
            planned.adBreak.restrict.isEmpty
            ? "" : " <span class=\"restrict\">restrict: \(escape(planned.adBreak.restrict.names.joined(separator: ", ")))</span>"
        var rows = ""
        for candidate in planned.candidates {
            let boosts = candidate.boosts.map { " × \(format($0.factor)) (<code>\(escape($0.rule))</code>)" }.joined()
            switch candidate.outcome {
            case .chosen(let position):
                rows +=
                    "<tr class=\"chosen\" data-ad=\"\(escape(candidate.ad.id))\"><td>✓</td><td><code>\(escape(candidate.ad.id))</code></td><td>\(candidate.ad.asset.duration) s</td>"
                rows += "<td>chosen #\(position + 1), weight \(format(candidate.ad.weight))\(boosts)</td></tr>\n"
            case .excluded(let rule, let reason):
                rows +=
                    "<tr class=\"excluded\" data-ad=\"\(escape(candidate.ad.id))\"><td>✗</td><td><code>\(escape(candidate.ad.id))</code></td><td>\(candidate.ad.asset.duration) s</td>"
                rows += "<td>excluded by rule <code>\(escape(rule))</code>: \(escape(reason))</td></tr>\n"
            case .notChosen(let reason):
                rows +=
                    "<tr class=\"not-chosen\" data-ad=\"\(escape(candidate.ad.id))\"><td>·</td><td><code>\(escape(candidate.ad.id))</code></td><td>\(candidate.ad.asset.duration) s</td>"
                rows += "<td>not chosen: \(escape(reason))\(boosts)</td></tr>\n"
            }
        }
        return """
            <div class="break-reasons" data-break="\(escape(planned.adBreak.id))" data-start="\(planned.start)" data-end="\(planned.end)">
            <h3>Break <code>\(escape(planned.adBreak.id))</code>\(restrict)</h3>
            <p>\(escape(summary))</p>
            <table class="reasons"><tbody>
            \(rows)</tbody></table>
            </div>
            """
    }

    static func startup(_ plan: Plan) -> String {
        let variants = plan.campaign.templateAsset?.variants.map(\.streamInf) ?? []
        func describe(_ index: Int) -> String { PlanReport.variantTraits(variants, index).joined(separator: " · ") }
        let entry = plan.startup.rule.map { " (startup entry \($0 + 1))" } ?? ""
        var out =
            "<p>Startup variant: <strong>v\(plan.startup.variant)</strong> \(escape(describe(plan.startup.variant))): \(escape(plan.startup.reason))\(entry).</p>\n"
        out += "<ol class=\"variants\">\n"
        for index in plan.startup.order {
            out += "<li\(index == plan.startup.variant ? " class=\"startup\"" : "")><code>v\(index)</code> \(escape(describe(index)))</li>\n"
        }
        return out + "</ol>"
    }

    // MARK: - Helpers

    package static func document(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <link rel="icon" href="data:,"><link rel="stylesheet" href="/preview/assets/preview.css">
        <title>\(escape(title)) · AdStitch preview</title></head>
        <body>
        \(body)
        </body></html>

        """
    }
}

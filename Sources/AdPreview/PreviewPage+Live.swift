import AdCampaign
import AdCampaignStore
import AdDecision
import AdLive
import AdLiveRuntime
import AdStitching
import Foundation
import HLSPlaylist

extension PreviewPage {
    /// A live campaign's preview (docs/design-decisions.md "Live"): the channel as this replica's poller sees it — its
    /// window, whether it is stalled — the break airing now and the ones before it in the window
    /// with the ads this viewer gets in each, what the next break will be filled from (its marker
    /// has not aired, so its ads are not drawn yet), and a player of a live session for the context.
    /// The window and breaks are a viewer's refresh at `now` (``LiveChannelTimeline/cut(at:)``):
    /// what a session's playlists list, not the origin's newest window.
    package static func live(
        _ served: ServedCampaign,
        live: LiveProgram,
        context: PreviewContext,
        plan: Plan,
        now: ExactDecimal,
        hasPlayer: Bool
    ) -> String {
        let campaign = served.campaign
        var body = "<p class=\"crumbs\"><a href=\"/preview\">All campaigns</a></p>\n"
        body +=
            "<h1>\(escape(campaign.title)) <small><code>\(escape(campaign.id))</code> revision <code>\(escape(campaign.revision))</code> · live</small></h1>\n"
        body += self.form(campaign, context: context, action: "/preview/\(campaign.id)")
        body += self.warnings(served)
        let master = "/preview/\(escape(campaign.id))/master.m3u8?\(escape(context.query))"
        // hls.js for fMP4 (Chromium's own HLS plays TS only) and for interstitials (it has none).
        let source =
            hasPlayer && (live.asset.usesFragmentedMP4 || campaign.insertion != .stitched) ? "data-hls=\"\(master)\"" : "src=\"\(master)\""
        body += """
            <section class="player">
            <video id="video" controls muted playsinline crossorigin="anonymous" preload="none" \(source)></video>
            <p class="hint">A live session for this context on the channel <code>\(escape(live.url.absoluteString))</code>:
            <a href="\(master)">master.m3u8</a>. Rules applied: \(plan.appliedRules.isEmpty ? "none" : plan.appliedRules.map { "<code>\(escape($0))</code>" }.joined(separator: ", ")).</p>
            </section>
            """
        guard let channel = served.channel else { return document(title: campaign.title, body: body) }
        let cut = channel.timeline.cut(at: now)
        let (windows, breaks) = (cut.windows, cut.breaks)
        guard let window = windows.first ?? nil, let first = window.segments.first, let last = window.segments.last else {
            body += "<section><h2>Channel</h2><p>This replica has not read the channel yet; reload in a few seconds.</p></section>"
            return document(title: campaign.title, body: body)
        }
        let stalled = channel.isStalled ? " <span class=\"failed\">stalled: the window has not advanced for three target durations</span>" : ""
        body += """
            <section><h2>Channel</h2>
            <p>Window: segments \(first.sequence)–\(last.sequence), \(iso(first.start)) to \(iso(last.end)) (\(last.end - first.start) s).\(stalled)</p>
            </section>
            """
        // The breaks in the window, the one airing first; each with this viewer's ads.
        let shown = breaks.filter { $0.closing.map { $0.time > first.start } ?? true }.reversed()
        var rows = ""
        for adBreak in shown {
            let nominal = adBreak.duration ?? live.defaultDuration ?? adBreak.replacedDuration ?? .zero
            let planned = Planner().fill(live.adBreak(id: adBreak.id, duration: nominal), for: plan)
            let state = adBreak.closing == nil ? "<strong>airing now</strong>" : "ended after \(adBreak.replacedDuration ?? .zero) s"
            let ads = planned.ads.map { "<code>\(escape($0.id))</code> \($0.asset.duration) s" }.joined(separator: ", ")
            rows += "<tr><td><code>\(escape(adBreak.id))</code></td><td>\(iso(adBreak.start))</td><td>\(state)</td><td>\(nominal) s</td>"
            rows += "<td>\(ads.isEmpty ? "slate only" : ads)\(planned.slates > 0 || adBreak.closing == nil ? ", then slate" : "")</td></tr>\n"
        }
        if rows.isEmpty { rows = "<tr><td colspan=\"5\">No break in the window.</td></tr>" }
        let pools = live.pools.map { "<code>\(escape($0))</code>" }.joined(separator: ", ")
        body += """
            <section><h2>Breaks <small>current and earlier, as this viewer gets them</small></h2>
            <table><thead><tr><th>Break</th><th>Starts</th><th>State</th><th>Planned for</th><th>This viewer's ads</th></tr></thead>
            <tbody>
            \(rows)</tbody></table>
            <p><strong>Next break:</strong> when the channel's next marker airs, its ads are drawn from \(pools) for the duration it announces
            (else \(live.defaultDuration.map { "\($0) s" } ?? "—")), seeded by this session and the break's id — so they are known only once it opens.
            A viewer who joins while a break airs gets \(live.joinMidBreak == .slate ? "slate" : "the channel's own programme") until it ends (<code>join_mid_break</code>).</p>
            </section>
            \(hasPlayer ? "<script src=\"/preview/assets/hls.js\"></script>" : "")
            """
        return document(title: campaign.title, body: body)
    }

    private static func iso(_ seconds: ExactDecimal) -> String {
        DateTime.iso8601(millisecondsSinceEpoch: Int64(clamping: seconds.scaledValue / (ExactDecimal(1).scaledValue / 1000)))
    }
}

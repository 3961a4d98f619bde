import AdCampaign
import AdQuality
import HLSPlaylist

/// The preview's Quality page (`/preview/{id}/quality`, docs/preview.md "Quality"): a campaign's
/// viewing-quality KPIs at a glance, drawn here as SVG (no chart library, nothing from elsewhere):
/// the figures with their counts split by startup variant, experiment arm, device and insertion
/// mode; the startup-time histogram and the bitrate distribution per startup variant; stalls per
/// hour watched over time; failed sessions per device; and the programme's timeline with where
/// stalls happen, breaks shaded — whether a break hurts playback is where the ticks crowd.
extension PreviewPage {
    package static func quality(_ campaign: Campaign, sessions: [SessionQuality], since: String, until: String, truncated: Bool) -> String {
        let id = escape(campaign.id)
        var body = """
            <h1>Quality <small>\(escape(campaign.title)) · <a href="/preview/\(id)">preview</a> · <a href="/v1/campaigns/\(id)/qoe">KPIs as JSON</a></small></h1>
            <p class="hint">Sessions first reported from \(escape(since)) to \(escape(until))\(truncated ? " (the latest 20,000)" : ""):
            what their players reported (docs/quality.md). <a href="?since=1h">1 h</a> · <a href="?since=24h">24 h</a> · <a href="?since=7d">7 d</a></p>

            """
        guard !sessions.isEmpty else {
            return document(
                title: "Quality · \(campaign.title)",
                body: body
                    + "<p>No reports in this window. Play <a href=\"/play/\(id)\">/play/\(id)</a> (hls.js reports what it does), or post a player's reports to a session's <code>…/sessions/{token}/qoe</code>.</p>"
            )
        }
        body += Self.figuresTable(sessions)
        let variants = Dictionary(grouping: sessions) { $0.session.startupVariant }.sorted { $0.key < $1.key }
        let devices = Dictionary(grouping: sessions) { $0.session.device }.sorted { $0.key < $1.key }

        // Startup time, by startup variant.
        let startupBounds: [Int64] = [250, 500, 1_000, 2_000, 4_000, 8_000]
        body += "<h2>Startup time <small>by startup variant</small></h2>\n"
        body += Self.bars(
            categories: Self.bucketNames(startupBounds, unit: "ms"),
            series: variants.map { variant, group in
                (variant, Self.histogram(group.compactMap(\.startupMilliseconds), bounds: startupBounds).map(Double.init))
            },
            unit: "sessions"
        )

        // Bitrate, by startup variant and by device.
        let bitrateBounds: [Int64] = [500_000, 1_000_000, 2_000_000, 4_000_000, 8_000_000]
        body += "<h2>Time-weighted indicated bitrate <small>sessions by TWIB, by device</small></h2>\n"
        body += Self.bars(
            categories: Self.bucketNames(bitrateBounds.map { $0 / 1000 }, unit: "kb/s"),
            series: devices.map { device, group in (device, Self.histogram(group.compactMap(\.twib), bounds: bitrateBounds).map(Double.init)) },
            unit: "sessions"
        )

        // Stalls per hour watched over time (by the hour or ten minutes sessions first reported).
        let first = sessions.map(\.session.first)
        let span = (first.max() ?? 0) - (first.min() ?? 0)
        let step: Int64 = span > 6 * 3_600_000 ? 3_600_000 : 600_000
        let start = (first.min() ?? 0) / step * step
        let buckets = Int(((first.max() ?? 0) - start) / step) + 1
        if buckets <= 48 {
            body +=
                "<h2>Stalls per hour watched over time <small>by startup variant, per \(step == 3_600_000 ? "hour" : "10 minutes") of first report</small></h2>\n"
            body += Self.bars(
                categories: (0..<buckets).map { String(DateTime.iso8601(millisecondsSinceEpoch: start + Int64($0) * step).dropFirst(11).prefix(5)) },
                series: variants.map { variant, group in
                    (
                        variant,
                        (0..<buckets).map { bucket in
                            let inBucket = group.filter { ($0.session.first - start) / step == Int64(bucket) }
                            return QualityKPIs.rate(
                                stalls: inBucket.reduce(0) { $0 + $1.stalls.count },
                                watched: inBucket.reduce(0) { $0 + $1.watchedMilliseconds }
                            ).value ?? 0
                        }
                    )
                },
                unit: "stalls/h"
            )
        }

        // Failed sessions, by device and by startup variant.
        body += "<h2>Failed sessions <small>%, by device and by startup variant</small></h2>\n"
        let failures = devices.map { ("device " + $0.key, $0.value) } + variants.map { ("variant " + $0.key, $0.value) }
        body += Self.bars(
            categories: failures.map(\.0),
            series: [("failed", failures.map { Double($0.1.count(where: \.failed)) * 100 / Double(max($0.1.count, 1)) })],
            unit: "%"
        )

        body += "<h2>Where stalls happen <small>each tick a stall at its stream time, breaks shaded</small></h2>\n"
        body += Self.stallTimeline(sessions)
        return document(title: "Quality · \(campaign.title)", body: body)
    }

    /// The KPIs in a table: every session, then split by startup variant, experiment arm, device and
    /// insertion mode — each figure with the count behind it.
    static func figuresTable(_ sessions: [SessionQuality]) -> String {
        var rows: [(String, QualityKPIs.Figures)] = [("all sessions", QualityKPIs(sessions).figures)]
        for dimension in [QualityKPIs.Dimension.startupVariant, .experiment, .device, .insertion, .replica] {
            let groups = QualityKPIs(sessions, by: dimension).groups
            if dimension == .experiment, groups.allSatisfy({ $0.value == "none" }) { continue }
            rows += groups.compactMap { group in group.figures.map { ("\(dimension.rawValue) \(group.value)", $0) } }
        }
        var html = """
            <table class="quality"><tr><th></th><th>Sessions</th><th>Startup p50 / p90 / p99 ms</th><th>Stalls per hour watched</th>
            <th>Stall time</th><th>Stalls in the first 30 s</th><th>TWIB</th><th>Failed</th></tr>

            """
        for (name, figures) in rows {
            let startup = figures.startupMilliseconds
            let percentiles = [startup.p50, startup.p90, startup.p99].map { $0.map(String.init) ?? "–" }.joined(separator: " / ")
            let rate = figures.stallsPerHour
            let early = figures.earlyStalls
            // The sessions whose player reported nothing: their figures are the server's estimates.
            let estimated = figures.estimated > 0 ? " <span class=\"hint\">(\(figures.estimated) estimated)</span>" : ""
            html += "<tr><td>\(escape(name))</td><td>\(figures.sessions)\(estimated)</td>"
            html += "<td>\(percentiles) <span class=\"hint\">(\(startup.count))</span></td>"
            html += "<td>\(rate.value.map { format($0) } ?? "–") <span class=\"hint\">(\(rate.stalls) in \(format(rate.hoursWatched)) h)</span></td>"
            html += "<td>\(format(figures.stallSeconds.total)) s\(figures.stallSeconds.share.map { " · " + format($0 * 100) + " %" } ?? "")</td>"
            html += "<td>\(early.perSession.map { format($0) } ?? "–") <span class=\"hint\">(\(early.stalls) in \(early.sessions))</span></td>"
            html += "<td>\(figures.twib.value.map { "\($0 / 1000) kb/s" } ?? "–") <span class=\"hint\">(\(figures.twib.count))</span></td>"
            html +=
                "<td>\(figures.failedSessions.value.map { format($0) + " %" } ?? "–") <span class=\"hint\">(\(figures.failedSessions.failed) of \(figures.failedSessions.count))</span></td></tr>\n"
        }
        return html + "</table>\n"
    }

    /// How many of `values` fall below each bound, between bounds, and at or past the last.
    static func histogram(_ values: [Int64], bounds: [Int64]) -> [Int] {
        var counts = Array(repeating: 0, count: bounds.count + 1)
        for value in values { counts[bounds.firstIndex { value < $0 } ?? bounds.count] += 1 }
        return counts
    }

    static func bucketNames(_ bounds: [Int64], unit: String) -> [String] {
        var names = ["< \(bounds[0]) \(unit)"]
        for index in 1..<bounds.count { names.append("\(bounds[index - 1])–\(bounds[index])") }
        return names + ["≥ \(bounds[bounds.count - 1])"]
    }

    /// Grouped bars: a group per category, a bar per series (its class `s0`…`s5` colours it), the
    /// largest value's height the chart's; each bar's value in its title.
    static func bars(categories: [String], series: [(String, [Double])], unit: String) -> String {
        let width = 1000.0
        let height = 180.0
        let top = max(series.flatMap(\.1).max() ?? 0, 1e-9)
        let group = width / Double(max(categories.count, 1))
        let bar = group * 0.8 / Double(max(series.count, 1))
        var svg = "<svg class=\"chart\" viewBox=\"0 0 1000 220\" role=\"img\" aria-label=\"chart\">\n"
        for (index, name) in categories.enumerated() {
            let x = Double(index) * group
            for (position, (label, values)) in series.enumerated() where index < values.count {
                let value = values[index]
                let barHeight = value / top * height
                svg +=
                    "<g class=\"s\(position % 6)\"><rect x=\"\(format(x + group * 0.1 + Double(position) * bar))\" y=\"\(format(height - barHeight))\""
                svg +=
                    " width=\"\(format(bar))\" height=\"\(format(barHeight))\"/><title>\(escape(label)), \(escape(name)): \(format(value)) \(escape(unit))</title></g>\n"
            }
            svg += "<text class=\"tick\" x=\"\(format(x + group / 2))\" y=\"200\">\(escape(name))</text>\n"
        }
        svg += "<text class=\"tick top\" x=\"2\" y=\"12\">\(format(top)) \(escape(unit))</text>\n</svg>\n"
        let legend = series.enumerated().map { "<span class=\"legend s\($0.offset % 6)\">■</span> \(escape($0.element.0))" }
        return svg + "<p class=\"hint\">\(legend.joined(separator: " · "))</p>\n"
    }

    /// The stitched timeline (the sessions' longest), each break's ads and slates shaded, a tick
    /// per placed stall; below, how many stalls fell inside breaks against outside, and after a splice.
    static func stallTimeline(_ sessions: [SessionQuality]) -> String {
        let stalls = sessions.flatMap { session in session.stalls.compactMap { stall in stall.at.map { ($0, stall) } } }
        let end = max(
            sessions.map(\.watchedMilliseconds).max() ?? 0,
            sessions.flatMap { $0.session.spans.map(\.end) }.max() ?? 0,
            stalls.map(\.0).max() ?? 0,
            1
        )
        func x(_ ms: Int64) -> String { format(Double(ms) / Double(end) * 1000) }
        var svg =
            "<svg class=\"timeline stalls\" viewBox=\"0 0 1000 64\" preserveAspectRatio=\"none\" role=\"img\" aria-label=\"stalls on the timeline\">\n"
        var shaded = Set<String>()
        for span in sessions.flatMap(\.session.spans) where shaded.insert("\(span.breakID)/\(span.start)/\(span.end)").inserted {
            svg += "<g class=\"break\"><rect x=\"\(x(span.start))\" y=\"2\" width=\"\(x(span.end - span.start))\" height=\"44\"/>"
            svg +=
                "<title>break \(escape(span.breakID)): \(escape(span.piece)) \(format(Double(span.start) / 1000))–\(format(Double(span.end) / 1000)) s</title></g>\n"
        }
        for (at, stall) in stalls {
            svg += "<line class=\"stall\" x1=\"\(x(at))\" x2=\"\(x(at))\" y1=\"4\" y2=\"44\"><title>a stall at \(format(Double(at) / 1000)) s"
            svg +=
                "\(stall.ms.map { " for " + format(Double($0) / 1000) + " s" } ?? "")\(stall.place?.breakID.map { " in " + escape($0) } ?? "")</title></line>\n"
        }
        svg +=
            "<text class=\"tick\" x=\"2\" y=\"60\">0 s</text><text class=\"tick end\" x=\"998\" y=\"60\">\(format(Double(end) / 1000)) s</text>\n</svg>\n"
        let ads = QualityKPIs(sessions).ads
        let inside = ads.inBreaks.stallsPerHour
        let outside = ads.outsideBreaks.stallsPerHour
        return svg
            + "<p>Inside breaks: \(inside.value.map { format($0) } ?? "–") stalls per hour watched (\(inside.stalls) in \(format(inside.hoursWatched)) h); "
            + "outside: \(outside.value.map { format($0) } ?? "–") (\(outside.stalls) in \(format(outside.hoursWatched)) h); "
            + "within 10 s after a splice: \(ads.stallsAfterSplice) of \(ads.placedStalls) placed stalls.</p>\n"
            + "<p>Ads (from their beacon links): \(ads.adEvents.started) started, \(ads.adEvents.completed) completed; "
            + "\(ads.adEvents.incomplete) started but never completed though the session went past them, "
            + "\(ads.adEvents.abandoned) abandoned (the session ended inside them).</p>\n"
    }
}

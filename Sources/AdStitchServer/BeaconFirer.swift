import AdMetrics
import AdOrigin
import AdServer
import AdServerClient
import Foundation
import Logging

/// Fires tracking URLs in the background, on a viewer's behalf (VAST 4.3 §2.4.2's `X-Device-*`
/// headers): each URL tried up to ``attempts`` times (1 s, then 2 s apart) within ``timeout``
/// each, never holding up an answer, only where the campaign's address policy lets it go
/// (``AddressPolicy``: a tracker an ad server names never reaches the replica's own network), on
/// connections of their own. Counted in `adstitch_beacons_total`.
///
/// It fires VAST `<Error>` URIs when a session's ad server creative is skipped (docs/design-decisions.md
/// "Error beacons"), and each ad's events as the viewer's player reaches them (docs/http-api.md "Beacons").
struct BeaconFirer: Sendable {
    let origin: OriginClient
    let metrics: ServerMetrics
    let logger: Logger

    static let attempts = 3
    static let timeout = Duration.seconds(5)

    /// Fires `urls` for `event` (its label in the metrics), where `addresses` lets them go.
    func fire(_ urls: [String], event: String, headers: [(name: String, value: String)], addresses: AddressPolicy) {
        self.fire([(event, urls)], headers: headers, addresses: addresses)
    }

    /// Fires `events` in their order (VAST 4.3 §2.4.2.1: an impression before the start, the
    /// quartiles in turn), as one segment that carries several of them needs: each event's URLs
    /// together, the next event's once each of them has had its first answer (or its timeout).
    /// A URL that failed is tried again on its own, holding up no later event.
    func fire(_ events: [(event: String, urls: [String])], headers: [(name: String, value: String)], addresses: AddressPolicy) {
        let (origin, metrics, logger) = (self.origin, self.metrics, self.logger)
        let settings = origin.settings.forAdServerLinks(addresses, pool: .trackers)
        let requests = events.map { event, urls in
            (
                event,
                urls.compactMap { text -> (text: String, url: URL)? in
                    guard let url = URL(string: VASTMacros.requestable(text)) else {
                        metrics.beacon(event, outcome: "invalid")
                        return nil
                    }
                    return (text, url)
                }
            )
        }
        Task.detached {
            for (event, urls) in requests {
                await withTaskGroup(of: Void.self) { group in
                    for (text, url) in urls {
                        group.addTask {
                            switch await Self.attempt(origin, url, headers: headers, settings: settings) {
                            case .sent:
                                metrics.beacon(event, outcome: "sent")
                                return
                            case .refused:
                                // Never asked, and never will be: the campaign's address policy.
                                metrics.beacon(event, outcome: "refused")
                                return
                            case .failed:
                                break
                            }
                            Task.detached {
                                for attempt in 2...Self.attempts {
                                    try? await Task.sleep(for: .seconds(1 << (attempt - 2)))
                                    if await Self.attempt(origin, url, headers: headers, settings: settings) == .sent {
                                        metrics.beacon(event, outcome: "sent")
                                        return
                                    }
                                }
                                metrics.beacon(event, outcome: "failed")
                                logger.notice(
                                    "a tracking URL did not answer",
                                    metadata: ["event": "\(event)", "url": "\(Redaction.url(text))"]
                                )
                            }
                        }
                    }
                }
            }
        }
    }

    enum Attempt { case sent, failed, refused }

    /// One request of a tracking URL: sent when it answered 2xx or 3xx within ``timeout``.
    private static func attempt(
        _ origin: OriginClient,
        _ url: URL,
        headers: [(name: String, value: String)],
        settings: OriginSettings
    ) async -> Attempt {
        switch await origin.ping(url, headers: headers, timeout: Self.timeout, settings: settings) {
        case .answered(let status): (200..<400).contains(status) ? .sent : .failed
        case .unanswered: .failed
        case .refused: .refused
        }
    }

    /// The `<Error>` URIs of every creative an ad server answered that does not play, each with
    /// its VAST error code as `[ERRORCODE]` (403 no media file that plays, 407 being conditioned,
    /// 303 no ad after wrappers, 301 a wrapper's timeout…). Skips without a code (an ad that runs
    /// past what is left of its break) are not errors.
    ///
    /// Each URL once per break, at most ``AdServerLimits/maxErrorURLsPerBreak`` a break: a chain's
    /// wrappers share their error URIs, and a fan-out of them must not become a flood.
    func fireErrors(_ reports: [AdServerDecisions.BreakReport], headers: [(name: String, value: String)], addresses: AddressPolicy) {
        for report in reports {
            var seen: Set<String> = []
            for skipped in report.skipped {
                guard let code = skipped.vastError, !skipped.errorURLs.isEmpty else { continue }
                let values = VASTMacros.values(["ERRORCODE": String(code), "UNIVERSALADID": skipped.id])
                let urls = skipped.errorURLs.map { VASTMacros.fill($0, values) }.filter {
                    seen.count < AdServerLimits.maxErrorURLsPerBreak && seen.insert($0).inserted
                }
                guard !urls.isEmpty else { continue }
                self.fire(urls, event: "error", headers: headers, addresses: addresses)
            }
        }
    }
}

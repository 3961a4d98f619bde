import AdOrigin
import AdServerClient
import Foundation
import Logging

/// Fires tracking URLs in the background, on a viewer's behalf (VAST 4.3 §2.4.2's `X-Device-*`
/// headers): each URL on its own, tried up to ``attempts`` times (1 s, then 2 s apart) within
/// ``timeout`` each, never holding up an answer. Counted in `adstitch_beacons_total`.
///
/// It fires VAST `<Error>` URIs when a session's ad server creative is skipped (docs/design-decisions.md
/// "Error beacons"), and each ad's events as the viewer's player reaches them (docs/http-api.md "Beacons").
struct BeaconFirer: Sendable {
    let origin: OriginClient
    let metrics: ServerMetrics
    let logger: Logger

    static let attempts = 3
    static let timeout = Duration.seconds(5)

    /// Fires `urls` for `event` (its label in the metrics).
    func fire(_ urls: [String], event: String, headers: [(name: String, value: String)]) {
        for text in urls {
            guard let url = URL(string: text) else {
                self.metrics.beacon(event, outcome: "invalid")
                continue
            }
            let (origin, metrics, logger) = (self.origin, self.metrics, self.logger)
            Task.detached {
                for attempt in 1...Self.attempts {
                    if let status = await origin.ping(url, headers: headers, timeout: Self.timeout), (200..<400).contains(status) {
                        metrics.beacon(event, outcome: "sent")
                        return
                    }
                    if attempt < Self.attempts { try? await Task.sleep(for: .seconds(1 << (attempt - 1))) }
                }
                metrics.beacon(event, outcome: "failed")
                logger.notice("a tracking URL did not answer", metadata: ["event": "\(event)", "url": "\(AdServerDecisions.masked(text))"])
            }
        }
    }

    /// The `<Error>` URIs of every creative an ad server answered that does not play, each with
    /// its VAST error code as `[ERRORCODE]` (403 no media file that plays, 407 being conditioned,
    /// 303 no ad after wrappers, 301 a wrapper's timeout…). Skips without a code (an ad that runs
    /// past what is left of its break) are not errors.
    func fireErrors(_ reports: [AdServerDecisions.BreakReport], headers: [(name: String, value: String)]) {
        for report in reports {
            for skipped in report.skipped {
                guard let code = skipped.vastError, !skipped.errorURLs.isEmpty else { continue }
                let values = VASTMacros.values(["ERRORCODE": String(code), "UNIVERSALADID": skipped.id])
                self.fire(skipped.errorURLs.map { VASTMacros.fill($0, values) }, event: "error", headers: headers)
            }
        }
    }
}

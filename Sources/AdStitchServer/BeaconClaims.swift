import AdMetrics
import AdStitching
import Logging
import Synchronization

/// The beacon links' claims under way (docs/reliability.md "Ad server faults"). A link's fetch
/// answers `302` at once and claims its events in the background, and that work waits on the
/// ledger; a player retrying a link, or every viewer during a database outage, must not grow it
/// without bound (one link fetched for 15 s while PostgreSQL did not answer took a replica from
/// 48 MiB to 1.44 GiB):
///
/// - a link's repeats while its claim is under way join it: one claim per session, place and
///   events (`adstitch_beacons_total{outcome="joined"}`);
/// - past ``capacity`` claims under way, a new one is shed (`outcome="shed"`);
/// - a claim the ledger cannot take (it throws) is asked again with backoff for at most
///   ``patience``, then dropped (`outcome="lost"`). Nothing fires until the ledger says so: an
///   event fires at most once, across an outage of the ledger too.
final class BeaconClaims: Sendable {
    struct Key: Hashable, Sendable {
        var session: String
        var place: BeaconPlace
        var events: Int
    }

    enum Submission: Equatable {
        case started
        case joined
        case shed
    }

    private let pending = Mutex(Set<Key>())
    let capacity: Int
    let patience: Duration
    let metrics: ServerMetrics
    let logger: Logger

    static let defaultCapacity = 10_000
    static let defaultPatience = Duration.seconds(600)
    /// The longest pause between two tries of a claim.
    static let maxBackoff = Duration.seconds(5)

    init(capacity: Int = BeaconClaims.defaultCapacity, patience: Duration = BeaconClaims.defaultPatience, metrics: ServerMetrics, logger: Logger) {
        self.capacity = capacity
        self.patience = patience
        self.metrics = metrics
        self.logger = logger
    }

    /// Claims under way now.
    var count: Int { self.pending.withLock { $0.count } }

    /// Runs `work` for the link `key` in the background unless the same link's is under way
    /// (joined) or ``capacity`` are (shed).
    @discardableResult
    func submit(_ key: Key, _ work: @escaping @Sendable () async -> Void) -> Submission {
        let submission = self.pending.withLock { pending -> Submission in
            if pending.contains(key) { return .joined }
            guard pending.count < self.capacity else { return .shed }
            pending.insert(key)
            return .started
        }
        switch submission {
        case .started:
            Task {
                await work()
                _ = self.pending.withLock { $0.remove(key) }
            }
        case .joined:
            self.metrics.beacon("link", outcome: "joined")
        case .shed:
            self.metrics.beacon("link", outcome: "shed")
        }
        return submission
    }

    /// What `ledger` claims of `events`, asked until it answers (backoff from 250 ms to
    /// ``maxBackoff``) or ``patience`` runs out: nil then, and nothing may fire.
    func claim(_ ledger: any BeaconLedger, session: String, place: BeaconPlace, ad: String, events: [String]) async -> [String]? {
        let giveUp = ContinuousClock.now + self.patience
        var pause = Duration.milliseconds(250)
        var tries = 0
        while true {
            do {
                return try await ledger.claim(session: session, place: place, ad: ad, events: events)
            } catch {
                tries += 1
                if tries == 1 {
                    self.logger.warning(
                        "the beacon ledger did not answer; the events wait for it and fire once it claims them",
                        metadata: ["events": "\(events.joined(separator: ","))", "error": "\(error)"]
                    )
                }
                guard ContinuousClock.now + pause < giveUp, !Task.isCancelled else {
                    for event in events { self.metrics.beacon(event, outcome: "lost") }
                    self.logger.error(
                        "the beacon ledger did not answer in time; the events are not fired (at most once)",
                        metadata: ["events": "\(events.joined(separator: ","))", "tries": "\(tries)"]
                    )
                    return nil
                }
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, Self.maxBackoff)
            }
        }
    }
}

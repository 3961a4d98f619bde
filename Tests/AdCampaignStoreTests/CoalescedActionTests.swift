import Foundation
import Synchronization
import Testing

@testable import AdCampaignStore

/// The catalogue's heap trim after a title's load runs at most once per interval
/// (docs/performance.md "Catalogue cold starts, sixth round"), and never leaves a burst's last
/// call without a run after it.
@Suite("Coalesced action")
struct CoalescedActionTests {
    @Test("a burst runs once at once and once at the interval's end; a call after a quiet interval runs at once")
    func burst() async throws {
        let runs = Mutex(0)
        let action = CoalescedAction(interval: .seconds(1)) { runs.withLock { $0 += 1 } }
        let count = { runs.withLock { $0 } }
        let began = ContinuousClock.now
        for _ in 0..<20 { action.run() }
        let burst = ContinuousClock.now - began
        // Each count a run reaches, and when (runs are in the background).
        func reach(_ runs: Int) async throws -> Duration {
            let deadline = ContinuousClock.now + .seconds(5)
            while count() < runs, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            return ContinuousClock.now - began
        }
        let first = try await reach(1)
        #expect(count() == 1 && first < .milliseconds(500), "the first call runs at once, the other 19 join one pending run")
        let second = try await reach(2)
        #expect(count() == 2 && second >= .seconds(1), "the burst's pending run follows it, at the interval's end (burst: \(burst))")
        try await Task.sleep(for: .milliseconds(1_200))
        #expect(count() == 2, "nothing else was pending")
        let quiet = ContinuousClock.now
        action.run()
        _ = try await reach(3)
        #expect(count() == 3 && ContinuousClock.now - quiet < .milliseconds(500), "after a quiet interval a call runs at once")
    }
}

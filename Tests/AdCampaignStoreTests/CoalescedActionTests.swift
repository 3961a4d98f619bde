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
        let action = CoalescedAction(interval: .milliseconds(200)) { runs.withLock { $0 += 1 } }
        let count = { runs.withLock { $0 } }
        for _ in 0..<20 { action.run() }
        #expect(count() == 1, "the first call runs at once, the other 19 join one pending run")
        let deadline = ContinuousClock.now + .seconds(5)
        while count() < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(count() == 2, "the burst's pending run follows it")
        try await Task.sleep(for: .milliseconds(400))
        #expect(count() == 2, "nothing else was pending")
        action.run()
        #expect(count() == 3, "after a quiet interval a call runs at once")
    }
}

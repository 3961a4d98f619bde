import Foundation
import Synchronization
import Testing

@testable import AdCampaignStore

/// The catalogue's heap trim after a title's load runs at most once per interval
/// (docs/performance.md "Catalogue cold starts, sixth round"), and never leaves a burst's last
/// call without a run after it.
@Suite("Coalesced action")
struct CoalescedActionTests {
    @Test(
        "the rule, at given instants: at once, else one run pending for the interval's end that later calls join, at once again after a quiet interval"
    )
    func schedule() {
        let action = CoalescedAction(interval: .seconds(1)) {}
        let start = ContinuousClock.now
        #expect(action.schedule(at: start) == .zero, "the first call runs at once")
        #expect(action.schedule(at: start + .milliseconds(10)) == .milliseconds(990), "a call within the interval leaves a run pending for its end")
        #expect(action.schedule(at: start + .milliseconds(20)) == nil, "later calls join the pending run")
        #expect(action.schedule(at: start + .seconds(5)) == nil, "however late, until the pending run has run")
        action.ran(at: start + .seconds(1))
        #expect(action.schedule(at: start + .milliseconds(1_500)) == .milliseconds(500), "the interval counts from the pending run")
        action.ran(at: start + .seconds(2))
        #expect(action.schedule(at: start + .seconds(3)) == .zero, "after a quiet interval, at once again")
    }

    @Test("a burst of calls runs the action twice, the second at least an interval after the first, and nothing more")
    func burst() async throws {
        let runs = Mutex<[ContinuousClock.Instant]>([])
        let action = CoalescedAction(interval: .milliseconds(200)) { runs.withLock { $0.append(.now) } }
        for _ in 0..<20 { action.run() }
        // Runs are in the background: wait for them (generously: a loaded test process is slow).
        let deadline = ContinuousClock.now + .seconds(60)
        while runs.withLock({ $0.count }) < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(500))
        let times = runs.withLock { $0 }
        #expect(times.count == 2, "one run at once, one after the burst: \(times.count)")
        if times.count == 2 { #expect(times[1] - times[0] >= .milliseconds(200)) }
    }
}

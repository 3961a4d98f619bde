import AdCampaign
import AdStitching
import Synchronization

/// What a live campaign's ad decision server chose for each (session, break), as this replica
/// knows it: asked once, at the first refresh that sees the break after the session joined, and
/// recorded in the ``AdDecisionStore`` under the session's and the break's key, so every replica
/// and every later refresh plays the same ads (docs/design-decisions.md "Ad servers"). Kept here
/// so a refresh costs neither a store read nor an ask: refreshes that arrive together (a video
/// and an audio playlist) await the same task. At most ``capacity`` entries, the oldest dropped
/// first (a dropped one is read from the store again).
package final class LiveAdDecisions: Sendable {
    /// A break's ads and their creatives laid out for the campaign's renditions.
    package struct Decided: Sendable {
        package var ads: [Ad]
        package var creatives: [StitchLayout.LaidOutCreative]

        package init(ads: [Ad], creatives: [StitchLayout.LaidOutCreative]) {
            self.ads = ads
            self.creatives = creatives
        }
    }

    private struct State {
        var tasks: [String: Task<Decided?, Never>] = [:]
        /// Keys in the order they came, for eviction (`head`: the oldest still kept).
        var order: [String] = []
        var head = 0
    }

    private let state = Mutex(State())
    let capacity: Int

    init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    /// The decision under `key`: known, or made now by `decide` (nil: none could be had — a
    /// recorded creative that would not load — so the next refresh tries again).
    package func decided(_ key: String, _ decide: @escaping @Sendable () async -> Decided?) async -> Decided? {
        let task = self.state.withLock { state -> Task<Decided?, Never> in
            if let task = state.tasks[key] { return task }
            let task = Task { await decide() }
            state.tasks[key] = task
            state.order.append(key)
            while state.tasks.count > self.capacity, state.head < state.order.count {
                state.tasks[state.order[state.head]] = nil
                state.head += 1
            }
            if state.head > 1024, state.head * 2 > state.order.count {
                state.order.removeFirst(state.head)
                state.head = 0
            }
            return task
        }
        let decided = await task.value
        if decided == nil {
            self.state.withLock { state in
                if state.tasks[key] == task { state.tasks[key] = nil }
            }
        }
        return decided
    }

    var count: Int { self.state.withLock { $0.tasks.count } }
}

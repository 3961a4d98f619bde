import HTTPTypes
import NIOCore
import Synchronization

/// The last token-scoped answers (media playlists, boundary manifests), least recently used
/// first out, within a byte budget. They are immutable — a token always gives the same bytes —
/// so a repeated fetch (a player switching back to a rendition, a retry, an edge cache filling
/// from several points of presence) skips planning, rendering, hashing and compressing.
/// A budget of zero turns it off.
final class ResponseCache: Sendable {
    struct Key: Hashable, Sendable {
        var campaign: String
        var token: String
        var file: String
        var gzip: Bool
        var scope: SessionToken.Scope
    }

    struct Entry: Sendable {
        var headers: HTTPFields
        var body: ByteBuffer
        /// The token's expiry (unix seconds): a hit is served only before it.
        var expires: Int64
        /// What it holds in memory: the buffer's capacity (not just its readable bytes).
        var cost: Int { self.body.capacity + self.key.token.utf8.count + 256 }
        var key: Key
    }

    /// A doubly linked list over array slots, most recently used at `head`.
    private struct State {
        var slots: [Entry?] = []
        var previous: [Int] = []
        var next: [Int] = []
        var index: [Key: Int] = [:]
        var free: [Int] = []
        var head = -1
        var tail = -1
        var bytes = 0

        mutating func unlink(_ slot: Int) {
            let (before, after) = (self.previous[slot], self.next[slot])
            if before >= 0 { self.next[before] = after } else { self.head = after }
            if after >= 0 { self.previous[after] = before } else { self.tail = before }
        }

        mutating func pushFront(_ slot: Int) {
            self.previous[slot] = -1
            self.next[slot] = self.head
            if self.head >= 0 { self.previous[self.head] = slot }
            self.head = slot
            if self.tail < 0 { self.tail = slot }
        }

        mutating func evictTail() {
            let slot = self.tail
            guard slot >= 0, let entry = self.slots[slot] else { return }
            self.unlink(slot)
            self.index[entry.key] = nil
            self.bytes -= entry.cost
            self.slots[slot] = nil
            self.free.append(slot)
        }
    }

    let budget: Int
    private let state = Mutex(State())

    init(budget: Int) {
        self.budget = max(0, budget)
    }

    func get(_ key: Key) -> Entry? {
        guard self.budget > 0 else { return nil }
        return self.state.withLock { state in
            guard let slot = state.index[key] else { return nil }
            state.unlink(slot)
            state.pushFront(slot)
            return state.slots[slot]
        }
    }

    func put(_ key: Key, headers: HTTPFields, body: ByteBuffer, expires: Int64) {
        let entry = Entry(headers: headers, body: body, expires: expires, key: key)
        guard entry.cost <= self.budget / 4 else { return }  // one answer never crowds out the rest
        self.state.withLock { state in
            if let slot = state.index[key] {  // raced with another request for the same answer
                state.unlink(slot)
                state.pushFront(slot)
                return
            }
            while state.bytes + entry.cost > self.budget, state.tail >= 0 { state.evictTail() }
            let slot: Int
            if let reused = state.free.popLast() {
                slot = reused
                state.slots[slot] = entry
            } else {
                slot = state.slots.count
                state.slots.append(entry)
                state.previous.append(-1)
                state.next.append(-1)
            }
            state.index[key] = slot
            state.bytes += entry.cost
            state.pushFront(slot)
        }
    }
}

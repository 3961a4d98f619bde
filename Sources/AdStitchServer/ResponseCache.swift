import AdCampaignStore
import AdSessions
import HTTPTypes
import NIOCore
import Synchronization

/// The last token-scoped answers (media playlists, boundary manifests), least recently used
/// first out, within a byte budget. They are immutable — a token always gives the same bytes —
/// so a repeated fetch (a player switching back to a rendition, a retry, an edge cache filling
/// from several points of presence) skips planning, rendering, hashing and compressing.
/// A budget of zero turns it off.
struct ResponseCache: Sendable {
    struct Key: Hashable, Sendable {
        var campaign: String
        var token: String
        var file: String
        var gzip: Bool
        var scope: SessionToken.Scope
    }

    struct Entry: Sendable {
        var headers: HTTPFields
        var body: AnswerBody
        /// The token's expiry (unix seconds): a hit is served only before it.
        var expires: Int64
    }

    private let entries: LRUCache<Key, Entry>

    init(budget: Int) {
        // An answer costs its length, or its own buffers' capacity where that is more (a gzip
        // answer's one buffer). A stitched playlist's own bytes are far less (~2 KB of 100 KB: the
        // rest is the layout's shared blocks, ``AnswerBody``), but a budget of own bytes let the
        // 4 MiB cache keep ~1,300 of them, and the server grew by ~60 MiB under bench-http's
        // 2,000-session load (measured, 2026-11-27: the heap fragments around that many small
        // long-lived entries); by length it keeps the forty-odd it did before.
        self.entries = LRUCache(budget: budget) { key, entry in max(entry.body.count, entry.body.ownedBytes) + key.token.utf8.count + 256 }
    }

    func get(_ key: Key) -> Entry? { self.entries.get(key) }

    func put(_ key: Key, headers: HTTPFields, body: AnswerBody, expires: Int64) {
        self.entries.put(key, Entry(headers: headers, body: body, expires: expires))
    }
}

/// A map that forgets its least recently used entries to stay within a budget of `cost`
/// (bytes, or 1 per entry for a count). One lock; a budget of zero keeps nothing.
final class LRUCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Slot {
        var key: Key
        var value: Value
        var cost: Int
    }

    /// A doubly linked list over array slots, most recently used at `head`.
    private struct State {
        var slots: [Slot?] = []
        var previous: [Int] = []
        var next: [Int] = []
        var index: [Key: Int] = [:]
        var free: [Int] = []
        var head = -1
        var tail = -1
        var total = 0

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

        /// Takes out the least recently used entry and returns it.
        /// Adds `entry` at the head, first evicting from the tail what it needs room for; returns the evicted.
        mutating func insert(_ entry: Slot, budget: Int) -> [Slot] {
            var evicted: [Slot] = []
            while self.total + entry.cost > budget, let old = self.evictTail() { evicted.append(old) }
            let slot: Int
            if let reused = self.free.popLast() {
                slot = reused
                self.slots[slot] = entry
            } else {
                slot = self.slots.count
                self.slots.append(entry)
                self.previous.append(-1)
                self.next.append(-1)
            }
            self.index[entry.key] = slot
            self.total += entry.cost
            self.pushFront(slot)
            return evicted
        }

        mutating func evictTail() -> Slot? {
            self.remove(self.tail)
        }

        /// Takes out the entry in `slot`, if any, and returns it.
        mutating func remove(_ slot: Int) -> Slot? {
            guard slot >= 0, let entry = self.slots[slot] else { return nil }
            self.unlink(slot)
            self.index[entry.key] = nil
            self.total -= entry.cost
            self.slots[slot] = nil
            self.free.append(slot)
            return entry
        }
    }

    let budget: Int
    private let cost: @Sendable (Key, Value) -> Int
    private let state = Mutex(State())

    init(budget: Int, cost: @escaping @Sendable (Key, Value) -> Int) {
        self.budget = max(0, budget)
        self.cost = cost
    }

    func get(_ key: Key) -> Value? {
        guard self.budget > 0 else { return nil }
        return self.state.withLock { state in
            guard let slot = state.index[key] else { return nil }
            state.unlink(slot)
            state.pushFront(slot)
            return state.slots[slot]?.value
        }
    }

    /// Forgets every entry `matching` says yes to (released after the lock).
    func removeAll(matching: (Key, Value) -> Bool) {
        let removed = self.state.withLock { state -> [Slot] in
            let slots = state.index.values.filter { slot in state.slots[slot].map { matching($0.key, $0.value) } ?? false }
            return slots.compactMap { state.remove($0) }
        }
        _ = removed
    }

    /// Changes the entry of `key` in place under the lock — made from `initial` if there is none
    /// (an entry too costly to keep is changed and forgotten) — and returns what `change` returns:
    /// a read-modify-write no other request interleaves with (a count per session).
    func update<Result>(_ key: Key, initial: Value, _ change: (inout Value) -> Result) -> Result {
        var evicted: [Slot] = []
        let result = self.state.withLock { state -> Result in
            if let slot = state.index[key], var entry = state.slots[slot] {
                let result = change(&entry.value)
                let cost = self.cost(key, entry.value)
                state.total += cost - entry.cost
                entry.cost = cost
                state.slots[slot] = entry
                state.unlink(slot)
                state.pushFront(slot)
                return result
            }
            var value = initial
            let result = change(&value)
            let cost = self.cost(key, value)
            guard cost <= self.budget / 4 else { return result }
            evicted = state.insert(Slot(key: key, value: value, cost: cost), budget: self.budget)
            return result
        }
        _ = evicted
        return result
    }

    func put(_ key: Key, _ value: Value) {
        let cost = self.cost(key, value)
        guard cost <= self.budget / 4 else { return }  // one entry never crowds out the rest
        // The entries evicted, released after the lock: freeing one (a plan's few dozen
        // allocations, an answer's buffers) under it kept the other event loop waiting.
        var evicted: [Slot] = []
        self.state.withLock { state in
            if let slot = state.index[key] {  // raced with another request for the same entry
                state.unlink(slot)
                state.pushFront(slot)
                return
            }
            evicted = state.insert(Slot(key: key, value: value, cost: cost), budget: self.budget)
        }
    }
}

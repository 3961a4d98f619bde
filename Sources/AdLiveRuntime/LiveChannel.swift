import AdLive
import AdOrigin
import AdStitching
import CoreMetrics
import Foundation
import HLSPlaylist
import Logging
import Synchronization

/// One live channel's poller (docs/design-decisions.md "Live"): one per channel and replica, not
/// per viewer. Every round it fetches each rendition's media playlist from the origin with
/// conditional requests and keeps the latest window of each; the first rendition's windows feed
/// the channel's break tracking, whose openings and closings go to the shared break history.
///
/// Faults keep the last good window: an origin that answers 5xx, times out or sends a playlist
/// that does not parse is logged and polled again next round; a window that stops advancing for
/// `stallAfter` (three target durations) marks the channel stalled — a warning and the gauge
/// `adstitch_live_stalled{channel}` — until it moves again.
///
/// The shared history never holds polling up: what a round changed is handed to a writer beside
/// the poll loop, which records it with a deadline (``historyDeadline``) and tries again with
/// backoff while PostgreSQL is away; a replica that cannot read the history at start polls from
/// what it sees and merges the history in once it can.
public final class LiveChannel: Sendable {
    /// The channel's key in the break history: its multivariant playlist's URL.
    public let key: String
    /// The media playlists polled; breaks are read from the first (the first video variant).
    public let renditions: [URL]
    let client: OriginClient
    let history: PostgresBreakHistory?
    let logger: Logger
    let stallAfter: Duration?
    /// How long one call to the history may take before it counts as failed.
    let historyDeadline: Duration
    /// How long ended breaks are remembered (the session TTL: no older session still plays); nil: always.
    let retention: Duration?
    private let state: Mutex<State>
    private let stalledGauge: Gauge
    let clock: @Sendable () -> Date

    struct State {
        var windows: [URL: Window] = [:]
        var tracker: LiveBreakTracker
        var lastAdvance: ContinuousClock.Instant?
        var lastSequence: Int?
        var stalled = false
        /// The first rendition's, within LiveLimits.targetDurations.
        var targetDuration = 6
        /// Set by ``stop()``: the poller ends after its current round.
        var stopped = false
        /// Breaks changed since the history last recorded them, by id (the latest state of each).
        var unrecorded: [String: LiveBreak] = [:]
        /// Whether the history has been read since this poller started (else the writer reads it).
        var historyLoaded = false
    }

    /// A rendition's latest window and the validators to ask for the next.
    public struct Window: Sendable {
        public let playlist: MediaPlaylist
        /// The window ready for every viewer's refresh; nil when it has no dated segment.
        public let prepared: LiveRenditionWindow?
        let etag: String?
        let lastModified: String?
    }

    /// - Parameters:
    ///   - defaultDuration: a break's duration when its marker gives none (`marker_breaks.duration`).
    ///   - stallAfter: how long a window may stand still before the channel counts as stalled
    ///     (default: three of its target durations).
    ///   - stallFill: `live_stall.after`: target durations of standstill after which a stall break
    ///     opens and viewers' windows go on with its fill; nil: none opens.
    ///   - clock: the channel's clock (program date-times are on it).
    public init(
        key: String,
        renditions: [URL],
        client: OriginClient,
        history: PostgresBreakHistory?,
        defaultDuration: ExactDecimal?,
        logger: Logger,
        stallAfter: Duration? = nil,
        retention: Duration? = nil,
        historyDeadline: Duration = .seconds(2),
        stallFill: Int? = nil,
        clock: @escaping @Sendable () -> Date = { Date() },
        metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        self.historyDeadline = historyDeadline
        precondition(!renditions.isEmpty, "a live channel polls at least one media playlist")
        self.key = key
        self.renditions = renditions
        self.client = client
        self.history = history
        self.logger = logger
        self.stallAfter = stallAfter
        self.retention = retention
        var tracker = LiveBreakTracker(defaultDuration: defaultDuration)
        tracker.stallAfter = stallFill
        tracker.confirmsStallClosings = history != nil
        self.state = Mutex(State(tracker: tracker))
        self.clock = clock
        self.stalledGauge = Gauge(label: "adstitch_live_stalled", dimensions: [("channel", key)], factory: metrics)
    }

    /// Reads the breaks of the shared history since `since` (seconds since the epoch: the oldest
    /// session still playing), so a replica that starts late knows breaks that have left the
    /// origin's window.
    /// Merged into what the poller saw (a history read after polls began adds what it lacks);
    /// throws when the history does not answer within ``historyDeadline``.
    public func loadHistory(since: ExactDecimal) async throws {
        guard let history = self.history else { return }
        let key = self.key
        let breaks = try await Deadline.run(within: self.historyDeadline) { try await history.breaks(channel: key, since: since) }
        self.state.withLock { state in
            state.tracker.merge(history: breaks)
            state.historyLoaded = true
        }
    }

    /// Polls until the task is cancelled: a round every half target duration (at least 0.25 s),
    /// with the history's writer beside it. `historySince`: where a history not read yet is read
    /// from, once it answers.
    public func run(historySince: ExactDecimal? = nil) async {
        await withDiscardingTaskGroup { group in
            if self.history != nil {
                group.addTask { await self.writeHistory(since: historySince) }
            }
            while !Task.isCancelled, !self.state.withLock({ $0.stopped }) {
                await self.poll()
                let target = self.state.withLock { $0.targetDuration }
                try? await Task.sleep(for: max(.milliseconds(250), .seconds(target) / 2))
            }
            group.cancelAll()
        }
    }

    /// Records what polls changed, each call bounded by ``historyDeadline``; after a failure the
    /// breaks stay pending and the next try waits longer (0.5 s doubling to 30 s). Reads the
    /// history first when the poller started without it.
    private func writeHistory(since: ExactDecimal?) async {
        guard let history = self.history else { return }
        var backoff = Duration.milliseconds(500)
        while !Task.isCancelled, !self.state.withLock({ $0.stopped }) {
            let (pending, loaded) = self.state.withLock { state in (state.unrecorded, state.historyLoaded) }
            do {
                if !loaded, let since { try await self.loadHistory(since: since) }
                if !pending.isEmpty {
                    let key = self.key
                    let breaks = Array(pending.values).sorted { $0.first < $1.first }
                    let stored = try await Deadline.run(within: self.historyDeadline) { try await history.record(breaks, channel: key) }
                    self.state.withLock { state in
                        // What changed again meanwhile stays pending.
                        for (id, recorded) in pending where state.unrecorded[id] == recorded { state.unrecorded[id] = nil }
                        // A stall's closing as the history keeps it (the first replica's): viewers see it now.
                        state.tracker.confirm(stored)
                    }
                }
                backoff = .milliseconds(500)
                try? await Task.sleep(for: .milliseconds(250))
            } catch {
                self.logger.error(
                    "cannot reach the live break history; polling goes on, and the breaks are recorded once it answers",
                    metadata: ["channel": "\(self.key)", "error": "\(error)", "pending": "\(pending.count)"]
                )
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(30))
            }
        }
    }

    /// Ends ``run()`` after its current round (a reloaded campaign's channel has other renditions).
    public func stop() {
        self.state.withLock { $0.stopped = true }
    }

    /// One round: every rendition fetched, the first one's markers read, the history told.
    public func poll() async {
        for (index, url) in self.renditions.enumerated() {
            let previous = self.state.withLock { $0.windows[url] }
            let outcome: FetchOutcome
            do {
                outcome = try await self.client.fetch(url, etag: previous?.etag, lastModified: previous?.lastModified)
            } catch {
                self.logger.warning("live origin fetch failed; the last window keeps serving", metadata: ["url": "\(url)", "error": "\(error)"])
                self.checkStall()
                continue
            }
            guard case .fetched(let fetched) = outcome else {
                if index == 0 { self.checkStall() }
                continue
            }
            let playlist: MediaPlaylist
            do {
                playlist = try PlaylistParser().parseMediaPlaylist(String(decoding: fetched.bytes, as: UTF8.self), url: fetched.url)
            } catch {
                self.logger.warning("live playlist does not parse; the last window keeps serving", metadata: ["url": "\(url)", "error": "\(error)"])
                continue
            }
            // Every number from the origin is checked where it enters (LiveLimits): a window
            // outside the ranges is not used, as one that does not parse.
            if let problem = LiveLimits.problem(in: playlist) {
                self.logger.warning("live window refused; the last window keeps serving", metadata: ["url": "\(url)", "problem": "\(problem)"])
                if index == 0 { self.checkStall() }
                continue
            }
            // The channel's own numbering (LiveOriginSequencer): an origin that restarts, renumbers,
            // answers from a stale replica or rewrites its discontinuity sequence is numbered so a
            // viewer's playlist never goes back; a window older than the one serving is not used.
            let sequenced = self.state.withLock { $0.tracker.sequencer.sequence(playlist, rendition: index) }
            guard let playlist = sequenced.playlist else {
                self.logger.warning(
                    "live window not used; the last window keeps serving",
                    metadata: ["url": "\(url)", "problem": "\(sequenced.note ?? "")"]
                )
                if index == 0 { self.checkStall() }
                continue
            }
            if let note = sequenced.note { self.logger.notice("live origin numbering", metadata: ["url": "\(url)", "note": "\(note)"]) }
            let prepared = LiveRenditionWindow(playlist)
            if prepared == nil {
                self.logger.warning(
                    "live playlist has no dated segment (EXT-X-PROGRAM-DATE-TIME); the last window keeps serving",
                    metadata: ["url": "\(url)"]
                )
                continue
            }
            let window = Window(playlist: playlist, prepared: prepared, etag: fetched.etag, lastModified: fetched.lastModified)
            let changed: [LiveBreak] = self.state.withLock { state in
                state.windows[url] = window
                guard index == 0 else { return [] }
                state.targetDuration = min(
                    max(playlist.targetDuration ?? state.targetDuration, LiveLimits.targetDurations.lowerBound),
                    LiveLimits.targetDurations.upperBound
                )
                let last = playlist.segments.last?.mediaSequenceNumber
                if last != state.lastSequence {
                    state.lastSequence = last
                    state.lastAdvance = ContinuousClock.now
                }
                let changed = state.tracker.observe(playlist, now: self.now)
                if let retention = self.retention, let edge = prepared?.segments.last?.end {
                    state.tracker.forget(endedBefore: edge - ExactDecimal(Int(retention.components.seconds)))
                }
                return changed
            }
            if index == 0 {
                for problem in self.state.withLock({ $0.tracker.problems }) {
                    self.logger.warning("live marker ignored", metadata: ["channel": "\(self.key)", "problem": "\(problem)"])
                }
                self.checkStall()
            }
            if !changed.isEmpty, self.history != nil {
                // For the writer beside the poll loop (``writeHistory(since:)``): never awaited here.
                self.state.withLock { state in
                    for item in changed { state.unrecorded[item.id] = item }
                }
            }
        }
        // Every round, whatever the origin answered (a failing origin stands still too).
        self.checkStall()
    }

    /// The channel's clock in seconds since the epoch, to the millisecond.
    var now: ExactDecimal {
        ExactDecimal(significand: Int((self.clock().timeIntervalSince1970 * 1000).rounded(.down)), exponent: 3)
    }

    /// Marks the channel stalled when its first rendition has not advanced for `stallAfter`, and
    /// opens a stall break once its newest segment ended `live_stall.after` target durations ago.
    private func checkStall() {
        let now = self.now
        let opened = self.state.withLock { state -> LiveBreak? in
            guard let opened = state.tracker.stall(now: now) else { return nil }
            if self.history != nil { state.unrecorded[opened.id] = opened }
            return opened
        }
        if let opened {
            self.logger.warning(
                "live origin stalled: viewers' windows go on with the stall's fill until it moves again",
                metadata: ["channel": "\(self.key)", "break": "\(opened.id)"]
            )
        }
        let (stalled, changed) = self.state.withLock { state -> (Bool, Bool) in
            guard let last = state.lastAdvance else { return (false, false) }
            let limit = self.stallAfter ?? .seconds(3 * state.targetDuration)
            let stalled = ContinuousClock.now - last > limit
            defer { state.stalled = stalled }
            return (stalled, stalled != state.stalled)
        }
        guard changed else { return }
        self.stalledGauge.record(stalled ? 1 : 0)
        if stalled {
            self.logger.warning(
                "live origin stalled: the window has not advanced; the last window keeps serving",
                metadata: ["channel": "\(self.key)"]
            )
        } else {
            self.logger.notice("live origin advancing again", metadata: ["channel": "\(self.key)"])
        }
    }

    /// The latest window of a rendition, if any was fetched.
    public func window(_ url: URL) -> MediaPlaylist? {
        self.state.withLock { $0.windows[url]?.playlist }
    }

    /// The latest window of rendition `index` (of ``renditions``), ready to render.
    public func prepared(_ index: Int) -> LiveRenditionWindow? {
        guard self.renditions.indices.contains(index) else { return nil }
        return self.state.withLock { $0.windows[self.renditions[index]]?.prepared }
    }

    /// Every rendition's latest window (nil where none was read yet) and the channel's breaks,
    /// read together.
    public func snapshot() -> (windows: [LiveRenditionWindow?], breaks: [LiveBreak]) {
        self.state.withLock { state in (self.renditions.map { state.windows[$0]?.prepared }, state.tracker.published) }
    }

    /// The origin sequence number after the first rendition's last segment: where a session that
    /// starts now joins. Nil before the first window.
    public var edge: Int? {
        self.state.withLock { state in state.windows[self.renditions[0]]?.prepared?.segments.last.map { $0.sequence + 1 } }
    }

    /// The channel's breaks as this replica knows them (history and what it saw).
    public var breaks: [LiveBreak] { self.state.withLock { $0.tracker.published } }

    /// Whether the origin has stopped advancing (``stallAfter``).
    public var isStalled: Bool { self.state.withLock { $0.stalled } }
}

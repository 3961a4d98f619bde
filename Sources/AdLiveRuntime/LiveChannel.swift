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
/// conditional requests and gives it to the channel's ``LiveChannelTimeline`` (numbered, joined to
/// what was read before, its new segments' sightings dated); the first rendition's windows feed
/// the channel's break tracking, whose openings and closings — and the segments' first sightings —
/// go to the shared break history.
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
        var timeline: LiveChannelTimeline
        /// Each rendition's latest window as the channel numbers it, and the validators to ask for the next.
        var latest: [URL: Latest] = [:]
        var lastAdvance: ContinuousClock.Instant?
        var lastSequence: Int?
        var stalled = false
        /// Set by ``stop()``: the poller ends after its current round.
        var stopped = false
        /// Breaks changed since the history last recorded them, by id (the latest state of each).
        var unrecorded: [String: LiveBreak] = [:]
        /// Segments first seen here that the history has not recorded yet, by channel number.
        var unshared: [Int: ExactDecimal] = [:]
        /// Whether the history has been read since this poller started (else the writer reads it).
        var historyLoaded = false
    }

    /// A rendition's latest window and the validators to ask for the next.
    struct Latest: Sendable {
        let playlist: MediaPlaylist
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
        let timeline = LiveChannelTimeline(
            renditions: renditions.count,
            tracker: tracker,
            retention: retention.map { ExactDecimal(Int($0.components.seconds)) }
        )
        self.state = Mutex(State(timeline: timeline))
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
            state.timeline.merge(history: breaks)
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
                let target = self.state.withLock { $0.timeline.targetDuration }
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
        var read = ContinuousClock.now - .seconds(60)
        while !Task.isCancelled, !self.state.withLock({ $0.stopped }) {
            let (pending, loaded, sightings) = self.state.withLock { state in (state.unrecorded, state.historyLoaded, state.unshared) }
            do {
                if !loaded, let since { try await self.loadHistory(since: since) }
                // Sightings: this replica's recorded (each segment's earliest stands), and the
                // earliest of every recent segment read back every half target duration.
                let key = self.key
                if !sightings.isEmpty {
                    let stored = try await Deadline.run(within: self.historyDeadline) { try await history.record(sightings: sightings, channel: key) }
                    self.state.withLock { state in
                        for (sequence, time) in sightings where state.unshared[sequence] == time { state.unshared[sequence] = nil }
                        state.timeline.share(stored)
                    }
                }
                let target = self.state.withLock { $0.timeline.targetDuration }
                if ContinuousClock.now - read >= .seconds(target) / 2,
                    let from = self.state.withLock({ $0.timeline.windows.first??.segments.first?.sequence })
                {
                    let stored = try await Deadline.run(within: self.historyDeadline) { try await history.sightings(channel: key, from: from) }
                    self.state.withLock { $0.timeline.share(stored) }
                    read = .now
                }
                if !pending.isEmpty {
                    let key = self.key
                    let breaks = Array(pending.values).sorted { $0.first < $1.first }
                    let stored = try await Deadline.run(within: self.historyDeadline) { try await history.record(breaks, channel: key) }
                    self.state.withLock { state in
                        // What changed again meanwhile stays pending.
                        for (id, recorded) in pending where state.unrecorded[id] == recorded { state.unrecorded[id] = nil }
                        // A stall's closing as the history keeps it (the first replica's): viewers see it now.
                        state.timeline.confirm(stored)
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

    /// One round: every rendition fetched and given to the timeline, the first one's markers
    /// read, the history told.
    public func poll() async {
        for (index, url) in self.renditions.enumerated() {
            let previous = self.state.withLock { $0.latest[url] }
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
            // Every number from the origin checked where it enters (LiveLimits), the window numbered
            // by the channel (an origin that restarts, renumbers or answers from a stale replica
            // never makes a viewer's playlist go back) and joined to what was read before.
            let now = self.now
            let accepted = self.state.withLock { $0.timeline.accept(playlist, rendition: index, at: now) }
            guard let numbered = accepted.playlist else {
                self.logger.warning(
                    "live window not used; the last window keeps serving",
                    metadata: ["url": "\(url)", "problem": "\(accepted.refusal ?? "")"]
                )
                if index == 0 { self.checkStall() }
                continue
            }
            if let note = accepted.note { self.logger.notice("live origin numbering", metadata: ["url": "\(url)", "note": "\(note)"]) }
            self.state.withLock { state in
                state.latest[url] = Latest(playlist: numbered, etag: fetched.etag, lastModified: fetched.lastModified)
                guard index == 0 else { return }
                let last = numbered.segments.last?.mediaSequenceNumber
                if last != state.lastSequence {
                    state.lastSequence = last
                    state.lastAdvance = ContinuousClock.now
                }
                if self.history != nil {
                    // For the writer beside the poll loop (``writeHistory(since:)``): never awaited here.
                    for item in accepted.changed { state.unrecorded[item.id] = item }
                    state.unshared.merge(accepted.sightings) { min($0, $1) }
                }
            }
            if index == 0 {
                for problem in self.state.withLock({ $0.timeline.tracker.problems }) {
                    self.logger.warning("live marker ignored", metadata: ["channel": "\(self.key)", "problem": "\(problem)"])
                }
                self.checkStall()
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
            guard let opened = state.timeline.stall(at: now) else { return nil }
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
            let limit = self.stallAfter ?? .seconds(3 * state.timeline.targetDuration)
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

    /// The latest window of a rendition, if any was fetched (as the channel numbers it).
    public func window(_ url: URL) -> MediaPlaylist? {
        self.state.withLock { $0.latest[url]?.playlist }
    }

    /// The joined windows of rendition `index` (of ``renditions``), ready to render.
    public func prepared(_ index: Int) -> LiveRenditionWindow? {
        guard self.renditions.indices.contains(index) else { return nil }
        return self.state.withLock { $0.timeline.windows[index] }
    }

    /// The channel as this replica holds it now: every rendition's joined windows, its breaks,
    /// its segments' sightings (``LiveChannelTimeline/cut(at:)`` cuts a viewer's window from it).
    /// A copy: its arrays are shared, not copied, until the poller changes them.
    public var timeline: LiveChannelTimeline { self.state.withLock { $0.timeline } }

    /// The origin sequence number after the first rendition's last segment: where a session that
    /// starts now joins. Nil before the first window.
    public var edge: Int? {
        self.state.withLock { state in state.timeline.windows.first??.segments.last.map { $0.sequence + 1 } }
    }

    /// The channel's breaks as this replica knows them (history and what it saw).
    public var breaks: [LiveBreak] { self.state.withLock { $0.timeline.tracker.published } }

    /// Whether this replica holds a whole viewer's window of the channel (``LiveChannelTimeline/isWarm``).
    public var isWarm: Bool { self.state.withLock { $0.timeline.isWarm } }

    /// Whether the origin has stopped advancing (``stallAfter``).
    public var isStalled: Bool { self.state.withLock { $0.stalled } }
}

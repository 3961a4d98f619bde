import Foundation
import Synchronization

/// glibc's `malloc_trim(0)`: free heap pages go back to the system (looked up at run time, as
/// `serve` looks up `mallopt`: Swift's Glibc module does not declare them). Nothing elsewhere.
///
/// At most one trim per 250 ms (``CoalescedAction``): titles loaded one after another reuse the pages the load
/// before freed instead of each faulting its tens of MB in again (trimming after every load was
/// an eighth of a cold start's CPU, in page faults and `madvise`). A load inside the interval
/// leaves a trim pending for its end, so what a burst freed still goes back.
enum HeapTrim {
    private typealias Trim = @convention(c) (Int) -> Int32
    private static let trim: Trim? = {
        #if os(Linux)
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: Trim.self)
        #else
        return nil
        #endif
    }()

    private static let coalesced = CoalescedAction(interval: .milliseconds(250)) { _ = HeapTrim.trim?(0) }

    static func release() { Self.coalesced.run() }
}

/// An action run in the background at most once per `interval`: a call within it of the last run
/// leaves one run pending for the interval's end (later calls join it), so the last call is
/// always followed by a run.
final class CoalescedAction: Sendable {
    let interval: Duration
    private let action: @Sendable () -> Void
    private let state = Mutex<(last: ContinuousClock.Instant?, pending: Bool)>((nil, false))

    init(interval: Duration, _ action: @escaping @Sendable () -> Void) {
        self.interval = interval
        self.action = action
    }

    func run() {
        guard let wait = self.schedule(at: .now) else { return }
        // Never on the caller's time: a trim walks the heap, and the caller is answering a viewer.
        Task.detached {
            if wait > .zero {
                try? await Task.sleep(for: wait)
                self.ran(at: .now)
            }
            self.action()
        }
    }

    /// What a call at `now` does: run at once (`.zero`), run after the wait returned (it is now
    /// pending), or nothing (a run is pending already and will follow this call).
    func schedule(at now: ContinuousClock.Instant) -> Duration? {
        self.state.withLock { state in
            if state.pending { return nil }
            if let last = state.last, now - last < self.interval {
                state.pending = true
                return self.interval - (now - last)
            }
            state.last = now
            return .zero
        }
    }

    /// The pending run ran at `now`.
    func ran(at now: ContinuousClock.Instant) {
        self.state.withLock { $0 = (now, false) }
    }
}

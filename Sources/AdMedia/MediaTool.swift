import Foundation
import Synchronization

/// Runs one of ffmpeg's tools (`ffprobe`, `ffmpeg`) to its end, a timeout or its ``Stop``: its
/// status, standard output and standard error, both pipes read while it runs (a full pipe never
/// blocks it); each line of standard output handed to `onLine` as it comes (ffmpeg's `-progress
/// pipe:1`). The tool dies with this process (`setpriv --pdeathsig KILL`): a replica that stops,
/// however it stops, leaves no encoder running.
public struct MediaTool: Sendable {
    public var executable: String
    public var timeout: Duration
    /// Runs under Linux's `SCHED_IDLE` policy (`chrt --idle 0`): only on CPU time nothing else
    /// wants, so a server's encodes never take it from requests (nice 10 still cost the stitching
    /// path three quarters of its throughput on two cores: docs/performance.md).
    public var background: Bool
    /// Ends the tool early: a job cancelled, or out of its time.
    public var stop: Stop?

    public init(executable: String, timeout: Duration, background: Bool = false, stop: Stop? = nil) {
        self.executable = executable
        self.timeout = timeout
        self.background = background
        self.stop = stop
    }

    /// What ends a piece of work's tools early, whichever is running: ``cancel()`` (the work is
    /// abandoned) or its ``deadline`` (each tool's timeout is at most what is left of it).
    public final class Stop: Sendable {
        private let state = Mutex<(cancelled: Bool, process: Process?)>((false, nil))
        public let deadline: ContinuousClock.Instant?

        public init(deadline: ContinuousClock.Instant? = nil) {
            self.deadline = deadline
        }

        public var isCancelled: Bool { self.state.withLock { $0.cancelled } }

        /// Stops the tool running now, and any started after.
        public func cancel() {
            let process = self.state.withLock { state in
                state.cancelled = true
                return state.process
            }
            if let process, process.isRunning { process.terminate() }
        }

        /// Notes the tool running now; false when the work is cancelled already.
        func running(_ process: Process?) -> Bool {
            self.state.withLock { state in
                state.process = process
                return !state.cancelled
            }
        }
    }

    public struct Outcome: Sendable {
        public var status: Int32
        public var output: Data
        public var errors: String
    }

    public func run(_ arguments: [String], onLine: (@Sendable (String) -> Void)? = nil) throws(MediaProbeError) -> Outcome {
        var timeout = self.timeout
        if let deadline = self.stop?.deadline { timeout = min(timeout, deadline - .now) }
        guard self.stop?.isCancelled != true, timeout > .zero else {
            throw MediaProbeError(description: "\(self.executable) was not started: the work was stopped or ran out of time")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["setpriv", "--pdeathsig", "KILL", "--"] + (self.background ? ["chrt", "--idle", "0"] : []) + [self.executable] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        do {
            try process.run()
        } catch {
            throw MediaProbeError(description: "cannot run \(self.executable) (install ffmpeg: apt-get install ffmpeg): \(error)")
        }
        if let stop = self.stop, !stop.running(process) { process.terminate() }
        defer { _ = self.stop?.running(nil) }
        let collected = Collected()
        let group = DispatchGroup()
        // Each pipe read on a thread of its own: the global queue has about as many threads as
        // cores on Linux and none more when they block, so two encodes waiting here would leave
        // their pipes unread and ffmpeg blocked on a full pipe.
        Self.reading(group) {
            let handle = output.fileHandleForReading
            var data = Data()
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                data.append(chunk)
                guard let onLine else { continue }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 0x0A) {
                    onLine(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending.removeSubrange(pending.startIndex...newline)
                }
            }
            collected.set(data, isOutput: true)
        }
        Self.reading(group) {
            collected.set(errors.fileHandleForReading.readDataToEndOfFile(), isOutput: false)
        }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        if finished.wait(timeout: .now() + seconds) == .timedOut {
            process.terminate()
            finished.wait()
            group.wait()
            throw MediaProbeError(description: "\(self.executable) took longer than \(timeout) and was stopped")
        }
        group.wait()
        if self.stop?.isCancelled == true {
            throw MediaProbeError(description: "\(self.executable) was stopped: the work was cancelled")
        }
        let (out, err) = collected.values
        return Outcome(status: process.terminationStatus, output: out, errors: String(decoding: err, as: UTF8.self))
    }
}

extension MediaTool {
    /// Runs `body` on a new thread, inside `group`.
    static func reading(_ group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        Thread {
            body()
            group.leave()
        }.start()
    }
}

/// The two pipes' bytes, each set once from its own reader.
final class Collected: Sendable {
    private let state = Mutex<(output: Data, errors: Data)>((Data(), Data()))

    func set(_ data: Data, isOutput: Bool) {
        self.state.withLock { state in
            if isOutput { state.output = data } else { state.errors = data }
        }
    }

    var values: (Data, Data) { self.state.withLock { ($0.output, $0.errors) } }
}

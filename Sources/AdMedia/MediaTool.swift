import Foundation
import Synchronization

/// Runs one of ffmpeg's tools (`ffprobe`, `ffmpeg`) to its end or a timeout: its status, standard
/// output and standard error, both pipes read while it runs (a full pipe never blocks it); each
/// line of standard output handed to `onLine` as it comes (ffmpeg's `-progress pipe:1`).
public struct MediaTool: Sendable {
    public var executable: String
    public var timeout: Duration
    /// Runs under Linux's `SCHED_IDLE` policy (`chrt --idle 0`): only on CPU time nothing else
    /// wants, so a server's encodes never take it from requests (nice 10 still cost the stitching
    /// path three quarters of its throughput on two cores: docs/performance.md).
    public var background: Bool

    public init(executable: String, timeout: Duration, background: Bool = false) {
        self.executable = executable
        self.timeout = timeout
        self.background = background
    }

    public struct Outcome: Sendable {
        public var status: Int32
        public var output: Data
        public var errors: String
    }

    public func run(_ arguments: [String], onLine: (@Sendable (String) -> Void)? = nil) throws(MediaProbeError) -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = (self.background ? ["chrt", "--idle", "0"] : []) + [self.executable] + arguments
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
        let collected = Collected()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
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
        DispatchQueue.global().async(group: group) {
            collected.set(errors.fileHandleForReading.readDataToEndOfFile(), isOutput: false)
        }
        let seconds = Double(self.timeout.components.seconds) + Double(self.timeout.components.attoseconds) / 1e18
        if finished.wait(timeout: .now() + seconds) == .timedOut {
            process.terminate()
            finished.wait()
            group.wait()
            throw MediaProbeError(description: "\(self.executable) took longer than \(self.timeout) and was stopped")
        }
        group.wait()
        let (out, err) = collected.values
        return Outcome(status: process.terminationStatus, output: out, errors: String(decoding: err, as: UTF8.self))
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

import Foundation

/// A player's report of one session, as an app posts it (`POST …/sessions/{token}/qoe`,
/// docs/http-api.md "Viewing quality"), read into ``QualityEvent``s: player events as hls.js,
/// Shaka or ExoPlayer analytics emit them (`events`), and AVPlayer's access and error logs under
/// AVPlayer's own property names (`accessLog`, `errorLog`). Every number is checked against a
/// bound where it enters; a wrong type or an out-of-range value names its field; unknown fields
/// and event types are ignored (counted in ``ignored``).
public struct QualityReport: Sendable {
    public var events: [QualityEvent]
    /// The report carried an AVPlayer access log: it is the whole log so far (AVPlayer's
    /// `accessLog().events` lists every entry each time, the last one still growing), so it
    /// replaces the access entries the session had.
    public var replacesAccessLog: Bool
    /// Entries of a type this server does not read.
    public var ignored: Int

    /// Entries one report may carry, all lists together.
    public static let maxEntries = 200
    /// The longest body a report may have (bytes).
    public static let maxBytes = 64 * 1024
    /// The bounds of what a report says: stream times up to a week, a stall or a watched stretch
    /// up to a day, a startup up to ten minutes, a BANDWIDTH up to 100 Gbit/s, a code of 200 bytes.
    public static let maxStreamSeconds = 7.0 * 86_400
    public static let maxDurationSeconds = 86_400.0
    public static let maxStartupMilliseconds = 600_000.0
    public static let maxBandwidth = 100_000_000_000.0
    public static let maxCodeBytes = 200

    /// A report's body that cannot be read, with the field at fault and what to send instead.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        /// `events[2].duration`, or empty for the body as a whole.
        public let field: String
        public let message: String

        public var description: String { self.field.isEmpty ? self.message : "\(self.field): \(self.message)" }
    }

    /// Reads a JSON body received at `received` (ms since 1970, the server's clock).
    public init(json body: [UInt8], received: Int64) throws(Problem) {
        guard body.count <= Self.maxBytes else {
            throw Problem(field: "", message: "a report is at most \(Self.maxBytes) bytes; send more often, with fewer entries")
        }
        let raw: RawReport
        do {
            raw = try JSONDecoder().decode(RawReport.self, from: Data(body))
        } catch let error as DecodingError {
            throw Self.problem(error)
        } catch {
            throw Problem(field: "", message: "is not JSON: \(error)")
        }
        let count = (raw.events?.count ?? 0) + (raw.accessLog?.count ?? 0) + (raw.errorLog?.count ?? 0)
        guard count <= Self.maxEntries else {
            throw Problem(
                field: "",
                message: "\(count) entries; a report carries at most \(Self.maxEntries) (events, accessLog and errorLog together)"
            )
        }
        guard raw.events != nil || raw.accessLog != nil || raw.errorLog != nil else {
            throw Problem(field: "", message: "has no events, accessLog or errorLog: send {\"events\": [{\"type\": \"startup\", \"ms\": 850}, …]}")
        }
        var events: [QualityEvent] = []
        var ignored = 0
        for (index, event) in (raw.events ?? []).enumerated() {
            if let read = try event.event(field: "events[\(index)]", received: received) {
                events.append(read)
            } else {
                ignored += 1
            }
        }
        for (index, entry) in (raw.accessLog ?? []).enumerated() {
            events.append(try entry.event(field: "accessLog[\(index)]", received: received))
        }
        for (index, entry) in (raw.errorLog ?? []).enumerated() {
            events.append(try entry.event(field: "errorLog[\(index)]", received: received))
        }
        self.events = events
        self.replacesAccessLog = raw.accessLog != nil
        self.ignored = ignored
    }

    /// The field a decoding error names (`events[2].duration`) and what it expected.
    static func problem(_ error: DecodingError) -> Problem {
        func path(_ keys: [any CodingKey]) -> String {
            keys.reduce(into: "") { text, key in
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += text.isEmpty ? key.stringValue : "." + key.stringValue
                }
            }
        }
        switch error {
        case .typeMismatch(let type, let context):
            return Problem(field: path(context.codingPath), message: "must be \(Self.name(of: type))")
        case .valueNotFound(let type, let context):
            return Problem(field: path(context.codingPath), message: "must be \(Self.name(of: type)), not null")
        case .keyNotFound(let key, let context):
            return Problem(field: path(context.codingPath + [key]), message: "is required")
        case .dataCorrupted(let context):
            return Problem(field: path(context.codingPath), message: "is not valid JSON (\(context.debugDescription))")
        @unknown default:
            return Problem(field: "", message: "cannot be read: \(error)")
        }
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is Double.Type, is Int.Type: "a number"
        case is Bool.Type: "true or false"
        case is String.Type: "a string"
        case is [Any].Type, is [RawEvent].Type, is [RawAccessEntry].Type, is [RawErrorEntry].Type: "a list"
        default: "an object"
        }
    }
}

// MARK: - The JSON as sent

private struct RawReport: Decodable {
    var events: [RawEvent]?
    var accessLog: [RawAccessEntry]?
    var errorLog: [RawErrorEntry]?
}

/// A code as players give it: a string (hls.js `details`, Shaka's names) or a number (ExoPlayer,
/// an HTTP status).
private struct RawCode: Decodable {
    let text: String

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self), number.isFinite, number.rounded() == number, abs(number) < 1e15 {
            self.text = String(Int64(number))
        } else {
            self.text = try container.decode(String.self)
        }
    }
}

private struct RawEvent: Decodable {
    var type: String
    var at: Double?
    var ms: Double?
    var duration: Double?
    var bandwidth: Double?
    var fatal: Bool?
    var code: RawCode?

    /// The event as kept; nil for a type this server does not read.
    func event(field: String, received: Int64) throws(QualityReport.Problem) -> QualityEvent? {
        guard let kind = QualityEvent.Kind(rawValue: self.type), kind != .access, kind != .server else { return nil }
        let at = try milliseconds(self.at, field: field + ".at", upTo: QualityReport.maxStreamSeconds, unit: "stream seconds")
        var event = QualityEvent(kind: kind, at: at, received: received)
        switch kind {
        case .startup:
            guard let ms = self.ms else { throw QualityReport.Problem(field: field + ".ms", message: "is required: the startup time in ms") }
            guard ms.isFinite, ms >= 0, ms <= QualityReport.maxStartupMilliseconds else {
                throw QualityReport.Problem(
                    field: field + ".ms",
                    message: "must be a number of ms from 0 to \(Int(QualityReport.maxStartupMilliseconds))"
                )
            }
            event.ms = Int64(ms.rounded())
        case .stall:
            guard at != nil else {
                throw QualityReport.Problem(field: field + ".at", message: "is required: the stream time the stall began at, in seconds")
            }
            guard self.duration != nil else {
                throw QualityReport.Problem(field: field + ".duration", message: "is required: how long the stall lasted, in seconds")
            }
            event.ms = try milliseconds(self.duration, field: field + ".duration", upTo: QualityReport.maxDurationSeconds, unit: "seconds")
        case .level:
            guard let bandwidth = self.bandwidth else {
                throw QualityReport.Problem(field: field + ".bandwidth", message: "is required: the BANDWIDTH of the variant switched to")
            }
            guard bandwidth.isFinite, bandwidth >= 1, bandwidth <= QualityReport.maxBandwidth else {
                throw QualityReport.Problem(
                    field: field + ".bandwidth",
                    message: "must be a BANDWIDTH from 1 to \(Int64(QualityReport.maxBandwidth)) bits/s"
                )
            }
            event.bandwidth = Int64(bandwidth.rounded())
            event.at = at ?? 0
        case .error:
            event.fatal = self.fatal ?? false
            event.code = try bounded(self.code?.text, field: field + ".code")
        case .ended:
            guard at != nil else {
                throw QualityReport.Problem(field: field + ".at", message: "is required: the stream time playback ended at, in seconds")
            }
        case .access, .server:
            return nil
        }
        return event
    }
}

/// An AVPlayerItemAccessLogEvent under its own property names. AVPlayer gives a negative value
/// for what it does not know (its documentation, e.g. `startupTime`, `indicatedBitrate`): read
/// as unknown, not refused.
private struct RawAccessEntry: Decodable {
    var startupTime: Double?
    var durationWatched: Double?
    var numberOfStalls: Double?
    var indicatedBitrate: Double?
    var playbackStartOffset: Double?

    func event(field: String, received: Int64) throws(QualityReport.Problem) -> QualityEvent {
        func known(_ value: Double?) -> Double? { value.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil } }
        var event = QualityEvent(kind: .access, received: received)
        event.at = try milliseconds(
            known(self.playbackStartOffset),
            field: field + ".playbackStartOffset",
            upTo: QualityReport.maxStreamSeconds,
            unit: "stream seconds"
        )
        event.ms = try milliseconds(
            known(self.durationWatched),
            field: field + ".durationWatched",
            upTo: QualityReport.maxDurationSeconds,
            unit: "seconds"
        )
        event.startup = try milliseconds(
            known(self.startupTime),
            field: field + ".startupTime",
            upTo: QualityReport.maxStartupMilliseconds / 1000,
            unit: "seconds"
        )
        if let stalls = known(self.numberOfStalls) {
            guard stalls <= 100_000 else {
                throw QualityReport.Problem(field: field + ".numberOfStalls", message: "must be a count from 0 to 100000")
            }
            event.stalls = Int(stalls)
        }
        if let bitrate = known(self.indicatedBitrate) {
            guard bitrate <= QualityReport.maxBandwidth else {
                throw QualityReport.Problem(
                    field: field + ".indicatedBitrate",
                    message: "must be at most \(Int64(QualityReport.maxBandwidth)) bits/s"
                )
            }
            event.bandwidth = bitrate >= 1 ? Int64(bitrate.rounded()) : nil
        }
        return event
    }
}

/// An AVPlayerItemErrorLogEvent under its own property names: an error, not fatal by itself (the
/// app reports the item's failure as an `error` event with `fatal: true`).
private struct RawErrorEntry: Decodable {
    var errorStatusCode: Double?
    var errorDomain: String?
    var errorComment: String?

    func event(field: String, received: Int64) throws(QualityReport.Problem) -> QualityEvent {
        var parts: [String] = []
        if let domain = self.errorDomain { parts.append(domain) }
        if let status = self.errorStatusCode, status.isFinite, abs(status) < 1e15 { parts.append(String(Int64(status))) }
        if let comment = self.errorComment { parts.append(comment) }
        let code = try bounded(parts.isEmpty ? nil : parts.joined(separator: " "), field: field)
        return QualityEvent(kind: .error, fatal: false, code: code, received: received)
    }
}

/// Seconds as sent, checked and rounded once to whole milliseconds.
private func milliseconds(_ seconds: Double?, field: String, upTo bound: Double, unit: String) throws(QualityReport.Problem) -> Int64? {
    guard let seconds else { return nil }
    guard seconds.isFinite, seconds >= 0, seconds <= bound else {
        throw QualityReport.Problem(field: field, message: "must be a number of \(unit) from 0 to \(Int(bound))")
    }
    return Int64((seconds * 1000).rounded())
}

private func bounded(_ text: String?, field: String) throws(QualityReport.Problem) -> String? {
    guard let text else { return nil }
    guard text.utf8.count <= QualityReport.maxCodeBytes else {
        throw QualityReport.Problem(field: field, message: "is at most \(QualityReport.maxCodeBytes) bytes")
    }
    return text
}

import Foundation
import Testing

@testable import AdQuality

/// Players' reports as apps send them (docs/quality.md "Reports"): every kind read, every bound
/// checked where it enters, a wrong type naming its field, unknown fields and types ignored.
@Suite("Quality reports")
struct QualityReportTests {
    static func read(_ json: String, received: Int64 = 1_000) throws(QualityReport.Problem) -> QualityReport {
        try QualityReport(json: Array(json.utf8), received: received)
    }

    static func problem(_ json: String) -> QualityReport.Problem? {
        do {
            _ = try Self.read(json)
            return nil
        } catch {
            return error
        }
    }

    @Test("player events of every kind are read into whole milliseconds of stream time, received at the server's time")
    func playerEvents() throws {
        let report = try Self.read(
            """
            {"events": [{"type": "startup", "ms": 850.4}, {"type": "stall", "at": 12.3, "duration": 1.2},
             {"type": "level", "at": 0, "bandwidth": 510400}, {"type": "error", "at": 3.1, "fatal": true, "code": "fragLoadError"},
             {"type": "error", "at": 4, "code": 404}, {"type": "ended", "at": 51.84}]}
            """,
            received: 77
        )
        #expect(report.events.map(\.kind) == [.startup, .stall, .level, .error, .error, .ended])
        #expect(report.events[0].ms == 850 && report.events[0].at == nil)
        #expect(report.events[1].at == 12_300 && report.events[1].ms == 1_200)
        #expect(report.events[2].bandwidth == 510_400 && report.events[2].at == 0)
        #expect(report.events[3].fatal == true && report.events[3].code == "fragLoadError")
        #expect(report.events[4].fatal == false && report.events[4].code == "404")
        #expect(report.events[5].at == 51_840)
        #expect(report.events.allSatisfy { $0.received == 77 })
        #expect(!report.replacesAccessLog && report.ignored == 0)
    }

    @Test("AVPlayer's access and error logs are read under AVPlayer's property names; its negative 'unknown' values are unknown, not errors")
    func avPlayerLogs() throws {
        let report = try Self.read(
            """
            {"accessLog": [{"startupTime": 0.62, "durationWatched": 30.5, "numberOfStalls": 2, "indicatedBitrate": 1200000,
              "observedBitrate": 8000000, "uri": "https://x/v2.m3u8", "playbackSessionID": "ABC", "playbackStartOffset": 0},
              {"startupTime": -1, "durationWatched": 10, "numberOfStalls": -1, "indicatedBitrate": -1, "playbackStartOffset": 30.5}],
             "errorLog": [{"errorStatusCode": -12938, "errorDomain": "CoreMediaErrorDomain", "errorComment": "HTTP 404: File Not Found",
              "uri": "https://x/ad.ts", "date": "2026-12-07T10:00:00Z"}]}
            """
        )
        #expect(report.replacesAccessLog)
        let access = report.events.filter { $0.kind == .access }
        #expect(access.count == 2)
        #expect(access[0].startup == 620 && access[0].ms == 30_500 && access[0].stalls == 2 && access[0].bandwidth == 1_200_000 && access[0].at == 0)
        #expect(access[1].startup == nil && access[1].stalls == nil && access[1].bandwidth == nil && access[1].at == 30_500)
        let error = try #require(report.events.first { $0.kind == .error })
        #expect(error.fatal == false && error.code == "CoreMediaErrorDomain -12938 HTTP 404: File Not Found")
    }

    @Test("a wrong type, a missing value or a number out of its bounds names the field and what to send")
    func problems() {
        let cases: [(String, String, String)] = [
            (#"{"events": [{"type": "startup", "ms": 1}, {"type": "stall", "at": 1, "duration": "long"}]}"#, "events[1].duration", "a number"),
            (#"{"events": [{"type": "stall", "at": 1}]}"#, "events[0].duration", "is required"),
            (#"{"events": [{"type": "stall", "duration": 1}]}"#, "events[0].at", "is required"),
            (#"{"events": [{"type": "stall", "at": -1, "duration": 1}]}"#, "events[0].at", "from 0 to 604800"),
            (#"{"events": [{"type": "stall", "at": 1, "duration": 1e300}]}"#, "events[0].duration", "from 0 to 86400"),
            (#"{"events": [{"type": "startup", "ms": 9999999}]}"#, "events[0].ms", "from 0 to 600000"),
            (#"{"events": [{"type": "startup"}]}"#, "events[0].ms", "is required"),
            (#"{"events": [{"type": "level", "at": 0, "bandwidth": 0}]}"#, "events[0].bandwidth", "from 1"),
            (#"{"events": [{"type": "ended"}]}"#, "events[0].at", "is required"),
            (#"{"events": [{"at": 1}]}"#, "events[0].type", "is required"),
            (#"{"events": [{"type": "error", "at": 1, "fatal": "yes"}]}"#, "events[0].fatal", "true or false"),
            (#"{"events": {"type": "startup"}}"#, "events", "a list"),
            (#"{"accessLog": [{"durationWatched": 100000}]}"#, "accessLog[0].durationWatched", "from 0 to 86400"),
            (#"{"accessLog": [{"indicatedBitrate": 1e12}]}"#, "accessLog[0].indicatedBitrate", "at most"),
            (#"{"events": [{"type": "error", "at": 1, "code": "\#(String(repeating: "x", count: 201))"}]}"#, "events[0].code", "200 bytes"),
            (#"{"other": 1}"#, "", "has no events"),
            (#"[1, 2]"#, "", "an object"),
            (#"{"events": [}"#, "", "not valid JSON"),
        ]
        for (json, field, says) in cases {
            let problem = Self.problem(json)
            #expect(problem?.field == field, "\(json): \(String(describing: problem))")
            #expect(problem?.message.contains(says) == true, "\(json): \(String(describing: problem))")
        }
    }

    @Test("unknown fields and event types are ignored and counted; too many entries or bytes are refused whole")
    func bounds() throws {
        let report = try Self.read(#"{"events": [{"type": "seek", "at": 3}, {"type": "ended", "at": 4, "extra": {"a": [1]}}], "player": "hls.js"}"#)
        #expect(report.events.map(\.kind) == [.ended] && report.ignored == 1)
        let many = "{\"events\": [" + Array(repeating: #"{"type": "ended", "at": 1}"#, count: 201).joined(separator: ",") + "]}"
        #expect(Self.problem(many)?.message.contains("at most 200") == true)
        let big = #"{"events": [], "pad": ""# + String(repeating: "x", count: QualityReport.maxBytes) + "\"}"
        #expect(Self.problem(big)?.message.contains("at most \(QualityReport.maxBytes) bytes") == true)
        // The access entries are an event kind of their own: a player event cannot claim it.
        #expect(try Self.read(#"{"events": [{"type": "access", "at": 1}]}"#).ignored == 1)
    }
}

import Foundation

/// The CMCD version 1 keys (CTA-5004 §3.3) a player sends on its requests — as the `CMCD` query
/// argument (the payload percent-encoded, §2.2) or in the `CMCD-Request`, `CMCD-Object`,
/// `CMCD-Status` and `CMCD-Session` headers (§2.1) — that the server's view of a session reads:
/// `bs` (buffer starvation since the last request), `su` (starting up), `br` (encoded bitrate,
/// kbps), `bl` (buffer length, ms), `mtp` (measured throughput, kbps), `sid` (the player's session
/// id) and `ot` (object type). Read off the request path and kept as the text the request carried;
/// parsed later, away from the answer (``init(query:headers:)``). A payload that does not parse is
/// no payload: a request never fails for its CMCD.
public struct CMCDRequest: Sendable, Hashable {
    public var starved: Bool
    public var starting: Bool
    public var bitrate: Int64?
    public var buffer: Int64?
    public var throughput: Int64?
    public var session: String?
    public var objectType: String?

    /// The payload as a request carries it: `query`, the `CMCD` argument's value (still
    /// percent-encoded), or `headers`, the values of its `CMCD-*` headers. Nil without a key, or
    /// for a payload that does not parse (RFC 8941 dictionary syntax, at most 4 KiB).
    public init?(query: String?, headers: [String]) {
        var text = headers.joined(separator: ",")
        if let query, let decoded = query.replacingOccurrences(of: "+", with: " ").removingPercentEncoding {
            text = text.isEmpty ? decoded : text + "," + decoded
        }
        guard !text.isEmpty, let payload = try? CMCDPayload(Array(text.utf8)[...], field: "CMCD") else { return nil }
        func integer(_ key: String, upTo bound: Int64) -> Int64? { try? payload.integer(key, field: "CMCD", upTo: bound) }
        self.starved = payload.boolean("bs")
        self.starting = payload.boolean("su")
        self.bitrate = integer("br", upTo: Int64(QualityReport.maxBandwidth) / 1000).flatMap { $0 > 0 ? $0 : nil }
        self.buffer = integer("bl", upTo: Int64(QualityReport.maxStreamSeconds) * 1000)
        self.throughput = integer("mtp", upTo: Int64(QualityReport.maxBandwidth) / 1000)
        self.session = payload.token("sid")
        self.objectType = payload.token("ot")
        guard !payload.isEmpty else { return nil }
    }

    /// The `CMCD` argument of a request's path (`…/v0.m3u8?CMCD=bs%2Cbr%3D3200`), still
    /// percent-encoded; nil when there is none.
    public static func queryValue(inPath path: String) -> String? {
        for argument in Self.query(inPath: path) ?? [] where argument.hasPrefix("CMCD=") {
            return String(argument.dropFirst(5))
        }
        return nil
    }

    /// The arguments of a request path's query (`a=1`, `b`), as they are; nil without a query —
    /// found in one pass over the path's contiguous bytes, as most paths have none.
    public static func query(inPath path: String) -> [Substring]? {
        let question =
            path.utf8.withContiguousStorageIfAvailable { $0.firstIndex(of: UInt8(ascii: "?")) }
            ?? path.utf8.firstIndex(of: UInt8(ascii: "?")).map { path.utf8.distance(from: path.utf8.startIndex, to: $0) }
        guard let question else { return nil }
        return path.utf8.dropFirst(question + 1).split(separator: UInt8(ascii: "&")).map { Substring($0) }
    }
}

import HLSPlaylist

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A catalogue of titles (`program: { catalogue: URL }`, docs/campaign-format.md "Catalogues"):
/// every multivariant playlist below an origin prefix plays with the campaign's ads. A title is
/// loaded when a viewer first starts it (``CampaignLoader/load(_:source:title:)``), as a programme
/// asset of its own cut at its markers or by ``schedule``.
public struct Catalogue: Sendable, Hashable {
    /// The prefix every title lies below: an http(s) URL ending in `/`.
    public let prefix: URL
    /// Breaks come from each title's own markers (`breaks: markers`); a title without any gets
    /// the ``schedule``.
    public let readsMarkers: Bool
    /// Breaks placed by rule where a title has no markers; nil: such a title plays without ads.
    public let schedule: BreakSchedule?
    /// How many titles a replica keeps loaded, and for how long before asking the origin again.
    public let cache: CatalogueCache

    /// The longest title path a session may name (below the prefix).
    public static let maxPathBytes = 1_024

    /// The URL of the title at `path` below ``prefix``, or nil when the path may not name a
    /// title: it must be relative, end in `.m3u8`, and hold only segments of unreserved and
    /// sub-delimiter characters (RFC 3986 §2.2–2.3) and percent-encoded octets — no `.` or `..`
    /// segment, no empty one, no query or fragment — so it never leaves the prefix.
    ///
    /// Percent-encoding is how a title whose folder has a space or a letter beyond ASCII
    /// (`Le%20Bureau/%C3%89pisode%201/master.m3u8`) is named; the path reaches the origin as
    /// written. What an origin would decode into a way out is refused: an encoded `/`, `\`, `%`
    /// or control character, an encoded unreserved character (`%2E` is a `.`; RFC 3986 §2.3
    /// says no producer writes them, so each title has one spelling), and octets that do not
    /// decode as UTF-8 (`%c0%ae` is an overlong `.` that lenient decoders take for one: it reached
    /// the origin's root).
    public func url(of path: String) -> URL? {
        guard !path.isEmpty, path.utf8.count <= Self.maxPathBytes, path.hasSuffix(".m3u8") else { return nil }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for segment in segments {
            guard !segment.isEmpty, segment != ".", segment != "..", Self.isTitleSegment(segment.utf8) else { return nil }
        }
        guard let url = URL(string: path, relativeTo: self.prefix)?.absoluteURL,
            url.absoluteString == self.prefix.absoluteString + path
        else { return nil }
        return url
    }

    /// Whether a segment holds only what ``url(of:)`` lets through.
    private static func isTitleSegment(_ bytes: Substring.UTF8View) -> Bool {
        var index = bytes.startIndex
        var decodedSegment: [UInt8] = []
        var escaped = false
        while index < bytes.endIndex {
            let byte = bytes[index]
            bytes.formIndex(after: &index)
            if URIBytes.isUnreserved(byte) || Self.subDelimiters.contains(byte) {
                decodedSegment.append(byte)
                continue
            }
            guard byte == UInt8(ascii: "%"), index < bytes.endIndex, let high = URIBytes.hexValue(bytes[index]) else { return false }
            bytes.formIndex(after: &index)
            guard index < bytes.endIndex, let low = URIBytes.hexValue(bytes[index]) else { return false }
            bytes.formIndex(after: &index)
            let decoded = high << 4 | low
            if URIBytes.isUnreserved(decoded) || decoded < 0x20 || decoded == 0x7f || Self.refusedEncoded.contains(decoded) { return false }
            decodedSegment.append(decoded)
            escaped = true
        }
        // The segment as an origin decodes it must be UTF-8 (Swift's decoder refuses overlong
        // forms and surrogates, as RFC 3629 §3 requires).
        return !escaped || String(validating: decodedSegment, as: UTF8.self) != nil
    }

    /// Octets an origin would decode into another path: `/`, `\`, `%` (a second decoding).
    private static let refusedEncoded: Set<UInt8> = [UInt8(ascii: "/"), UInt8(ascii: "\\"), UInt8(ascii: "%")]

    /// Sub-delimiters, `:` and `@` (RFC 3986 §3.3 `pchar`, besides the unreserved).
    private static let subDelimiters: Set<UInt8> = Set("!$&'()*+,;=:@".utf8)
}

/// `schedule:` — where breaks go in a title without markers, at segment boundaries.
public struct BreakSchedule: Sendable, Hashable {
    /// A break at the start of this length; nil: none.
    public let preroll: ExactDecimal?
    /// A mid-roll every this many seconds of programme; nil: none.
    public let every: ExactDecimal?
    /// The length of each mid-roll.
    public let midDuration: ExactDecimal?
    /// A break after the end of this length; nil: none.
    public let postroll: ExactDecimal?
    /// No mid-roll in the last this many seconds of a title.
    public let minTail: ExactDecimal
    /// The pools that fill the scheduled breaks.
    public let pools: [String]

    /// The breaks of a title `duration` seconds long: id and programme time, in order (the loader
    /// cuts each at the segment boundary at or before its time).
    public func breaks(duration: ExactDecimal) -> [(id: String, at: ExactDecimal, duration: ExactDecimal)] {
        var breaks: [(id: String, at: ExactDecimal, duration: ExactDecimal)] = []
        if let preroll = self.preroll { breaks.append(("preroll", .zero, preroll)) }
        if let every = self.every, let length = self.midDuration, every > .zero {
            var at = every
            var index = 1
            // Exact multiples: at = every × index, never a sum of rounded times.
            while at <= duration - self.minTail, at < duration {
                breaks.append(("mid-\(index)", at, length))
                index += 1
                at = ExactDecimal(scaledValue: every.scaledValue * Int128(index))
            }
        }
        if let postroll = self.postroll { breaks.append(("postroll", duration, postroll)) }
        return breaks
    }
}

/// `cache:` — a replica's bound on loaded titles, and how long one serves before the origin is
/// asked (conditionally) whether it changed.
public struct CatalogueCache: Sendable, Hashable {
    public var titles: Int = 2_000
    public var memoryMiB: Int = 256
    public var ttl: Duration = .seconds(300)

    public init(titles: Int = 2_000, memoryMiB: Int = 256, ttl: Duration = .seconds(300)) {
        self.titles = titles
        self.memoryMiB = memoryMiB
        self.ttl = ttl
    }
}

import AdCampaign
import HLSPlaylist

/// One impression of an ad for a viewer: a session whose player reached it (its first beacon),
/// or, where AdStitch fires none, a session that started with it in its plan.
public struct Impression: Sendable, Hashable {
    public let ad: String
    /// Milliseconds since the epoch.
    public let at: Int64
    public let session: String

    public init(ad: String, at: Int64, session: String) {
        self.ad = ad
        self.at = at
        self.session = session
    }
}

/// What a viewer's impressions say of each frequency cap of a campaign at an instant
/// (docs/campaign-format.md "Frequency caps"): the rule, apart from where the impressions are kept.
public struct FrequencyCapStatus: Sendable {
    /// Per cap, the impressions it counts.
    public var counted: [[Impression]] = []
    /// The indexes of the caps reached.
    public var reached: [Int] = []
    /// The impressions could not be read: no cap is reached.
    public var unavailable = false

    public init(unavailable: Bool = false) {
        self.unavailable = unavailable
    }

    /// Each of `caps` at `at` (ms): the impressions within its window that its ads pattern
    /// matches, and whether they reach its `max`.
    public init(caps: some Sequence<FrequencyCap>, impressions: [Impression], at: Int64) {
        for (index, cap) in caps.enumerated() {
            let since = at - Int64(cap.per) * 1000
            let counted = impressions.filter { $0.at >= since && $0.at <= at && cap.ads.matches($0.ad) }
            self.counted.append(counted)
            if counted.count >= cap.max { self.reached.append(index) }
        }
    }

    /// A viewer's caps as the preview shows them.
    public struct Viewer: Sendable {
        public let id: String
        public let status: FrequencyCapStatus

        public init(id: String, status: FrequencyCapStatus) {
            self.id = id
            self.status = status
        }

        /// As the preview's report writes it (`frequencyCaps`).
        public func json(_ caps: [FrequencyCap]) -> JSONValue {
            .object([
                ("viewer", .string(self.id)),
                (
                    "caps",
                    .array(
                        zip(caps, self.status.counted).enumerated().map { index, pair in
                            let (cap, counted) = pair
                            return .object([
                                ("ads", .string(cap.ads.source)), ("max", .integer(cap.max)), ("per", .string(cap.perText)),
                                ("reached", .bool(self.status.reached.contains(index))),
                                (
                                    "impressions",
                                    .array(
                                        counted.map {
                                            .object([
                                                ("ad", .string($0.ad)), ("at", .string(DateTime.iso8601(millisecondsSinceEpoch: $0.at))),
                                                ("session", .string($0.session)),
                                            ])
                                        }
                                    )
                                ),
                            ])
                        }
                    )
                ),
            ])
        }
    }
}

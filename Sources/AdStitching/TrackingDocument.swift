import AdCampaign
import AdDecision
import HLSPlaylist

/// A session's tracking document (`tracking.json`, client-side reporting; docs/campaign-format.md
/// "Measurement", schema in docs/tracking.schema.json): what a player SDK fires from when AdStitch
/// fires nothing — each break and ad in stream time (the boundary manifest's times, so either
/// insertion mode), every event of each ad with the stream time it falls at and its URLs as the
/// ad server or campaign wrote them (VAST macros for the player to fill), and the ad's
/// verification scripts for an Open Measurement SDK. The slate has no events and is left out.
public struct TrackingDocument: Sendable {
    public let manifest: BoundaryManifest

    public init(_ manifest: BoundaryManifest) {
        self.manifest = manifest
    }

    /// The events a player fires as the playhead reaches them, with where each falls as a
    /// fraction (quarters) of the ad: impression and start at its start, the quartiles at 1/4,
    /// 2/4 and 3/4, complete at its end (VAST 4.3 §3.14.1).
    static let timed: [(name: String, quarters: Int)] = [
        ("impression", 0), ("start", 0), ("firstQuartile", 1), ("midpoint", 2), ("thirdQuartile", 3), ("complete", 4),
    ]

    /// Where an event `quarters`/4 into an ad of `duration` starting at `start` falls: exact for
    /// every duration a playlist writes (the quarter of a decimal of at most 16 fraction digits).
    static func time(_ start: ExactDecimal, _ duration: ExactDecimal, quarters: Int) -> ExactDecimal {
        start + ExactDecimal(scaledValue: duration.scaledValue * Int128(quarters) / 4)
    }

    public var json: JSONValue {
        let manifest = self.manifest
        var members: [(String, JSONValue)] = [
            ("version", .integer(1)),
            ("reporting", .string("client")),
            ("insertion", .string(manifest.insertion.rawValue)),
            ("campaign", .string(manifest.campaign)),
            ("session", .string(manifest.session)),
            ("duration", .decimal(manifest.duration)),
        ]
        if let primaryDuration = manifest.primaryDuration { members.append(("primaryDuration", .decimal(primaryDuration))) }
        members.append(("breaks", .array(manifest.breaks.map(Self.json))))
        return .object(members)
    }

    private static func json(_ item: BoundaryManifest.Break) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .string(item.id)), ("start", .decimal(item.start)), ("duration", .decimal(item.duration)),
        ]
        if let primary = item.primary {
            members.append(("primary", .object([("start", .decimal(primary.start)), ("resumeOffset", .decimal(primary.resumeOffset))])))
        }
        members.append(("ads", .array(item.ads.filter { !$0.isSlate }.map(Self.json))))
        return .object(members)
    }

    private static func json(_ ad: BoundaryManifest.AdEntry) -> JSONValue {
        var events: [JSONValue] = []
        for (name, quarters) in Self.timed {
            guard let urls = ad.tracking[name], !urls.isEmpty else { continue }
            events.append(
                .object([
                    ("event", .string(name)), ("at", .decimal(Self.time(ad.start, ad.duration, quarters: quarters))),
                    ("urls", .array(urls.map(JSONValue.string))),
                ])
            )
        }
        let timed = Set(Self.timed.map(\.name))
        let other = ad.tracking.keys.filter { !timed.contains($0) && !(ad.tracking[$0] ?? []).isEmpty }.sorted()
        var members: [(String, JSONValue)] = [
            ("id", .string(ad.id)), ("start", .decimal(ad.start)), ("duration", .decimal(ad.duration)), ("events", .array(events)),
        ]
        if !other.isEmpty {
            members.append(("interactive", .object(other.map { ($0, .array((ad.tracking[$0] ?? []).map(JSONValue.string))) })))
        }
        if !ad.verifications.isEmpty {
            members.append(("verifications", .array(ad.verifications.map(Self.json))))
        }
        return .object(members)
    }

    private static func json(_ verification: AdVerification) -> JSONValue {
        var members: [(String, JSONValue)] = []
        if let vendor = verification.vendor { members.append(("vendor", .string(vendor))) }
        members.append(
            (
                "resources",
                .array(
                    verification.resources.map { resource in
                        var fields: [(String, JSONValue)] = [("kind", .string(resource.kind)), ("uri", .string(resource.uri))]
                        if let framework = resource.apiFramework { fields.append(("apiFramework", .string(framework))) }
                        if let type = resource.type { fields.append(("type", .string(type))) }
                        if let optional = resource.browserOptional { fields.append(("browserOptional", .bool(optional))) }
                        return .object(fields)
                    }
                )
            )
        )
        if let parameters = verification.parameters { members.append(("parameters", .string(parameters))) }
        if !verification.tracking.isEmpty {
            members.append(
                (
                    "tracking",
                    .object(verification.tracking.keys.sorted().map { ($0, .array((verification.tracking[$0] ?? []).map(JSONValue.string))) })
                )
            )
        }
        return .object(members)
    }
}

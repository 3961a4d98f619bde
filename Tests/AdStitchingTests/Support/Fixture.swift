import AdCampaign
import AdDecision
import AdStitching
import Foundation
import HLSPlaylist
import Testing

/// The repository this file is in: the demo campaigns, the golden files and the schema are read
/// from the source tree (the golden files are also rewritten there).
enum Repository {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func campaign(_ id: String) -> URL { Self.root.appendingPathComponent("Campaigns/\(id)/campaign.yaml") }

    /// `docs/boundary-manifest.schema.json`.
    static let manifestSchema = Self.root.appendingPathComponent("docs/boundary-manifest.schema.json")

    /// `docs/asset-list.schema.json`.
    static let assetListSchema = Self.root.appendingPathComponent("docs/asset-list.schema.json")
    static let liveManifestSchema = Self.root.appendingPathComponent("docs/live-boundary-manifest.schema.json")
    /// `docs/tracking.schema.json`.
    static let trackingSchema = Self.root.appendingPathComponent("docs/tracking.schema.json")

    /// `Tests/AdStitchingTests/Golden/`.
    static let golden = Self.root.appendingPathComponent("Tests/AdStitchingTests/Golden")
}

/// The hand-written campaigns and playlists under `Fixtures/` (their segment files need not exist).
enum Fixture {
    static let directory = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!

    static func url(_ path: String) -> URL { Self.directory.appendingPathComponent(path) }

    static func load(_ name: String) throws(CampaignError) -> Campaign {
        try CampaignLoader.load(Self.url(name))
    }
}

/// The two demo campaigns, each loaded once for the whole run.
enum Demo: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// MPEG-TS, an AES-128 programme (explicit IVs), clear ads, a slate, `markers: [daterange]`.
    case eveningNews = "evening-news"
    /// fMP4 with byte ranges, demuxed English and Spanish audio, subtitles and I-frames the ads
    /// partly lack, `markers: [daterange, cue]`.
    case featureFMP4 = "feature-fmp4"
    /// ONE continuous TS programme cut at its CUE and DATERANGE SCTE-35 markers and at a time
    /// (virtual islands, replaced stretches), `markers: [daterange, cue]`.
    case singleAsset = "single-asset"

    var testDescription: String { self.rawValue }

    private static let loaded: [Demo: Result<Campaign, CampaignError>] = Dictionary(
        uniqueKeysWithValues: Demo.allCases.map { demo in
            (demo, Result { () throws(CampaignError) in try CampaignLoader.load(Repository.campaign(demo.rawValue)) })
        }
    )

    func campaign() throws -> Campaign { try Self.loaded[self]!.get() }

    /// Media URIs as a CDN would serve them: the campaign's folder rebased onto an https URL.
    static func uris(for campaign: Campaign) -> URIStyle {
        URIStyle.rebased(
            root: campaign.file.deletingLastPathComponent(),
            onto: URL(string: "https://cdn.example/campaigns/\(campaign.id)/")!
        )
    }
}

/// An ISO 8601 date-time as a `Date`.
func date(_ text: String) -> Date {
    guard let dateTime = DateTime(text) else { preconditionFailure("\(text) is not an ISO 8601 date-time") }
    return Date(timeIntervalSince1970: dateTime.secondsSinceEpoch.doubleValue)
}

/// `text` as an `ExactDecimal`.
func decimal(_ text: String) -> ExactDecimal {
    guard let value = ExactDecimal(text) else { preconditionFailure("\(text) is not a decimal") }
    return value
}

/// A viewer: by default session s-1 on a Wednesday at noon UTC.
func viewer(_ attributes: [String: String] = [:], session: String = "s-1", at: String = "2026-11-25T12:00:00Z") -> ViewerContext {
    ViewerContext(session: session, at: date(at), attributes: attributes)
}

/// `count` viewers that differ in every way the demo campaigns' rules and startup entries look
/// at: session id, locale (Spanish speakers lose bravo), ads seen, time (Friday evening in Madrid
/// boosts alpha), device (TVs start higher) and measured bandwidth.
func variedViewers(_ count: Int = 50) -> [ViewerContext] {
    let locales: [String?] = [nil, "en-GB", "es-ES", "es", "fr-FR"]
    let seen: [String?] = [nil, "alpha", "bravo,delta", "alpha,bravo,charlie", "delta", "charlie"]
    let times = ["2026-11-25T12:00:00Z", "2026-11-27T19:30:00+01:00", "2026-11-28T23:00:00+01:00", "2026-03-29T01:30:00Z"]
    let devices: [String?] = [nil, "Living-Room TV", "phone"]
    let bandwidths: [String?] = [nil, "300000", "5000000", "250000"]
    return (0..<count).map { index in
        var attributes: [String: String] = [:]
        attributes["locale"] = locales[index % locales.count]
        attributes["seen"] = seen[(index / 2) % seen.count]
        attributes["device"] = devices[(index / 3) % devices.count]
        attributes["bandwidth"] = bandwidths[(index / 5) % bandwidths.count]
        return viewer(attributes, session: "session-\(index)", at: times[(index / 7) % times.count])
    }
}

extension Plan {
    /// The pieces as `id@start`.
    var signature: [String] { self.pieces.map { "\($0.id)@\($0.start)" } }
}

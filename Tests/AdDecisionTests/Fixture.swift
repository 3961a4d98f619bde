import AdCampaign
import AdDecision
import Foundation
import HLSPlaylist
import Testing

/// The campaigns and playlists under `Fixtures/`.
enum Fixture {
    static let directory = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!

    static func url(_ path: String) -> URL { Self.directory.appendingPathComponent(path) }

    /// `decision.yaml`: the demo campaign's shape over the fixture assets.
    static func decisionCampaign() throws -> Campaign {
        try CampaignLoader.load(Self.url("decision.yaml"))
    }

    /// A campaign from YAML, its playlist paths resolved against `Fixtures/`.
    static func campaign(_ yaml: String) throws -> Campaign {
        try CampaignLoader.load(yaml: yaml, file: Self.url("inline.yaml"))
    }

    /// The condition of a one-rule campaign whose rule says `when: <when>`.
    static func condition(_ when: String) throws -> Condition {
        let yaml = """
            version: 1
            id: conditions
            program:
              islands:
                - { id: act-1, playlist: media/program/act-1/master.m3u8 }
            breaks:
              - { id: mid, after: act-1, duration: 10, pools: [prime] }
            pools:
              prime:
                - { id: alpha, playlist: media/ads/alpha/master.m3u8 }
            rules:
              - name: under-test
                when: \(when)
                then: { boost: { alpha: 2 } }
            """
        return try self.campaign(yaml).rules[0].condition
    }
}

/// An ISO 8601 date-time as a `Date`.
func date(_ text: String) -> Date {
    guard let dateTime = DateTime(text) else { preconditionFailure("\(text) is not an ISO 8601 date-time") }
    return Date(timeIntervalSince1970: dateTime.secondsSinceEpoch.doubleValue)
}

/// A viewer: by default session s-1 on a Wednesday at noon UTC, when no time rule of the fixtures holds.
func viewer(_ attributes: [String: String] = [:], session: String = "s-1", at: String = "2026-11-25T12:00:00Z") -> ViewerContext {
    ViewerContext(session: session, at: date(at), attributes: attributes)
}

/// `text` as an `ExactDecimal`.
func decimal(_ text: String) -> ExactDecimal {
    guard let value = ExactDecimal(text) else { preconditionFailure("\(text) is not a decimal") }
    return value
}

extension Plan {
    /// The pieces as `id@start`, to compare plans as a whole.
    var signature: [String] { self.pieces.map { "\($0.id)@\($0.start)" } }

    func planned(_ breakID: String) -> PlannedBreak? { self.breaks.first { $0.adBreak.id == breakID } }
}

extension PlannedBreak {
    func candidate(_ adID: String) -> Candidate? { self.candidates.first { $0.ad.id == adID } }
}

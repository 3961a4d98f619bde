import AdCampaign
import AdDecision
import AdStitching
import Foundation
import HLSPlaylist
import Testing

/// A stitched VOD playlist that carries `EXT-X-PROGRAM-DATE-TIME` (`markers: [daterange]`) carries
/// one at its start and after every discontinuity, on the session's one timeline: each the
/// session's start plus the piece's exact stream time, the same in every rendition. Players that
/// keep dates per discontinuity sequence (Shaka, Media3) otherwise lose wall-clock time at every ad.
@Suite("Program date-times in stitched playlists")
struct ProgramDateTimeTests {
    @Test("every piece of 30 varied sessions of every demo with date ranges starts with its date, alike in every rendition")
    func dateAfterEveryDiscontinuity() throws {
        var checked = 0
        for demo in Demo.allCases {
            let campaign = try demo.campaign()
            let renderer = SessionRenderer(layout: try StitchLayout(campaign: campaign, uris: Demo.uris(for: campaign)))
            let dated = campaign.markers.contains(.daterange)
            for context in variedViewers(30) {
                let plan = Planner().plan(campaign, for: context)
                let expected = plan.pieces.map { piece in
                    DateTime.iso8601(
                        millisecondsSinceEpoch: context.milliseconds + Int64((piece.start.scaledValue + 500_000_000_000_000) / 1_000_000_000_000_000)
                    )
                }
                for rendition in renderer.layout.renditions {
                    let text = try renderer.mediaPlaylist(plan, rendition: rendition)
                    let lines = text.split(separator: "\n")
                    let dates = lines.filter { $0.hasPrefix("#EXT-X-PROGRAM-DATE-TIME:") }.map {
                        String($0.dropFirst("#EXT-X-PROGRAM-DATE-TIME:".count))
                    }
                    guard dated else {
                        #expect(dates.isEmpty, "\(demo) \(rendition.id): a playlist without date ranges carries no dates")
                        continue
                    }
                    #expect(dates == expected, "\(demo) \(context.session) \(rendition.id)")
                    // Each discontinuity is followed by its date before any segment.
                    for (index, line) in lines.enumerated() where line == "#EXT-X-DISCONTINUITY" {
                        #expect(lines[index + 1].hasPrefix("#EXT-X-PROGRAM-DATE-TIME:"), "\(demo) \(rendition.id) line \(index + 2)")
                    }
                    let parsed = try PlaylistParser().parseMediaPlaylist(text)
                    #expect(PlaylistLinter().lint(parsed).filter { $0.severity == .error }.isEmpty, "\(demo) \(rendition.id)")
                    checked += 1
                }
            }
        }
        #expect(checked >= 60, "only \(checked) dated playlists checked: no demo has date ranges any more")
    }
}

import AdCampaign
import AdDecision
import AdStitching
import Foundation
import HLSPlaylist
import Testing

/// One fixed session of each demo, compared byte for byte with the files under `Golden/`: any
/// change to what a player or the boundary-manifest client receives shows up as a diff to review.
///
/// To accept a change, regenerate the files and read the diff before committing it:
///
///     ADSTITCH_UPDATE_GOLDEN=1 swift test --filter AdStitchingTests.GoldenTests
///
/// The plans are seeded with the campaign's revision, a digest of its YAML and playlists, so
/// editing a demo's media or campaign file changes the ads of these sessions too.
@Suite("Golden sessions")
struct GoldenTests {
    static let isUpdating = ProcessInfo.processInfo.environment["ADSTITCH_UPDATE_GOLDEN"] == "1"

    /// An English-speaking TV viewer on a Friday evening in Madrid (alpha boosted, startup capped at
    /// 3 Mb/s, so the 360p variant is listed first).
    static let context = viewer(["locale": "en-GB", "device": "Living-Room TV"], session: "golden-6", at: "2026-11-27T19:30:00+01:00")

    /// The files compared for each demo: the multivariant playlist, the first video variant, the
    /// boundary manifest, and for fMP4 the Spanish audio (bravo has none: its DEFAULT plays), the
    /// subtitles (filled for the ads) and the I-frames (GAP where an ad has none).
    static func files(_ demo: Demo) -> [String] {
        switch demo {
        case .eveningNews: ["master.m3u8", "v0.m3u8", "boundaries.json"]
        case .featureFMP4: ["master.m3u8", "v0.m3u8", "a1.m3u8", "s2.m3u8", "i0.m3u8", "boundaries.json"]
        case .singleAsset: ["master.m3u8", "v0.m3u8", "boundaries.json"]
        }
    }

    @Test("The fixed session matches its golden files byte for byte", arguments: Demo.allCases)
    func matchesGoldenFiles(_ demo: Demo) throws {
        let campaign = try demo.campaign()
        let layout = try StitchLayout(campaign: campaign, uris: Demo.uris(for: campaign), emptySubtitleURI: StitchedSession.emptySubtitleURI)
        let session = try StitchedSession(layout: layout, context: Self.context)
        var output = session.texts.mapValues { $0 }
        output["master"] = session.masterText
        output["boundaries"] = session.manifestText
        let directory = Repository.golden.appendingPathComponent(demo.rawValue)
        if Self.isUpdating { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        for file in Self.files(demo) {
            let name = String(file.prefix { $0 != "." })
            let actual = try #require(output[name], "no \(file) in the session")
            let url = directory.appendingPathComponent(file)
            if Self.isUpdating {
                try Data(actual.utf8).write(to: url)
                continue
            }
            let expected = try String(contentsOf: url, encoding: .utf8)
            #expect(actual == expected, "\(demo.rawValue)/\(file) differs from the golden file: \(Self.firstDifference(expected, actual))")
        }
        // The golden session is a valid session like any other.
        #expect(try ManifestSchema.shared.get().violations(of: ExactJSON.parse(session.manifestText)).isEmpty)
        for rendition in session.renditions {
            #expect(PlaylistLinter().lint(session.playlist(rendition)).filter { $0.severity == .error }.isEmpty, "\(rendition.id)")
        }
    }

    @Test("The golden sessions show what they are meant to show", arguments: Demo.allCases)
    func goldenSessionsCoverTheirCases(_ demo: Demo) throws {
        let plan = Planner().plan(try demo.campaign(), for: Self.context)
        let ids = plan.pieces.map(\.id)
        #expect(ids.contains("slate"), "\(ids)")
        switch demo {
        case .eveningNews:
            // A clear ad after the encrypted programme, alpha's tracking URL, the 360p variant first.
            #expect(ids.contains("alpha") && ids.firstIndex(of: "act-1")! < ids.count - 1)
            #expect(plan.startup.variant == 1)
        case .featureFMP4:
            // bravo (English audio only, no I-frames, no subtitles) and alpha (I-frames by byte range).
            #expect(ids.contains("bravo") && ids.contains("alpha"), "\(ids)")
        case .singleAsset:
            // Four virtual islands around two replacements (CUE, DATERANGE SCTE-35) and an insertion.
            #expect(ids.filter { $0.hasPrefix("part-") } == ["part-1", "part-2", "part-3", "part-4"], "\(ids)")
            #expect(plan.breaks.map { $0.adBreak.placement?.replaced != nil } == [true, true, false])
        }
    }

    /// `line N: expected … / actual …` for the first line that differs.
    static func firstDifference(_ expected: String, _ actual: String) -> String {
        let left = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let right = actual.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<max(left.count, right.count) {
            let (l, r) = (index < left.count ? left[index] : "<end>", index < right.count ? right[index] : "<end>")
            if l != r { return "line \(index + 1): expected \"\(l)\", got \"\(r)\" (rerun with ADSTITCH_UPDATE_GOLDEN=1 to accept)" }
        }
        return "no line differs"
    }
}

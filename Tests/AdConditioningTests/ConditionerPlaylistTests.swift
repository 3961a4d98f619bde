import AdCampaign
import Foundation
import HLSPlaylist
import Testing

@testable import AdConditioning

/// The conditioner's multivariant playlist (issue 54): written through HLSPlaylist's tags, so a
/// programme rendition's NAME, LANGUAGE or GROUP-ID that holds a quote, a comma or a line break
/// still writes a playlist that parses back, lint-clean, with every rendition and variant.
@Suite("Conditioned multivariant playlist")
struct ConditionerPlaylistTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test(
        "the fMP4 demo's target (two demuxed languages) with hostile names and languages: the master parses back with the rule's values; with plain ones it is byte for byte what it was"
    )
    func hostileNames() throws {
        let campaign = try CampaignLoader.load(Self.repository.appendingPathComponent("Campaigns/feature-fmp4/campaign.yaml"))
        let target = try ConditioningTarget(campaign: campaign)
        try #require(target.audios.count == 2 && !target.videos.isEmpty)
        let renditions =
            target.videos.indices.map {
                Conditioner.Report.Rendition(
                    uri: "v\($0)/index.m3u8",
                    kind: "video",
                    resolution: nil,
                    bandwidth: 500_000,
                    averageBandwidth: 400_000,
                    segments: 2,
                    seconds: 1
                )
            } + [
                Conditioner.Report.Rendition(
                    uri: "audio2ch/index.m3u8",
                    kind: "audio",
                    resolution: nil,
                    bandwidth: 130_000,
                    averageBandwidth: 128_000,
                    segments: 2,
                    seconds: 1
                )
            ]

        // Plain names: what the string-built writer wrote, line for line.
        let plain = Conditioner(target: target).masterPlaylist(renditions, audioFolders: [2: "audio2ch"])
        let first = target.audios[0]
        #expect(
            plain.contains(
                "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"\(first.groupID)\",NAME=\"\(first.name)\",LANGUAGE=\"\(first.language ?? "")\",DEFAULT=\(first.isDefault ? "YES" : "NO"),AUTOSELECT=YES,CHANNELS=\"\(first.channels)\",URI=\"audio2ch/index.m3u8\"\n"
            ),
            "\(plain)"
        )

        for (name, language) in [("Le \"Spot\", 2", "fr\""), ("a\nb", "en\r\n"), ("\"", ""), ("x=\"y\",z", "de")] {
            var hostile = target
            hostile.audios[0].name = name
            hostile.audios[0].language = language
            hostile.audios[1].groupID = hostile.audios[0].groupID
            let text = Conditioner(target: hostile).masterPlaylist(renditions, audioFolders: [2: "audio2ch"])
            let master = try PlaylistParser().parseMultivariantPlaylist(text)
            #expect(master.renditions.count == 2, "\(text)")
            #expect(master.variants.count == target.videos.count, "\(text)")
            let media = try #require(master.renditions.first?.value)
            #expect(media.name == AttributeList.quotable(name, name: "NAME"), "\(name.debugDescription): \(text)")
            #expect(media.language == AttributeList.quotable(language, name: "LANGUAGE"))
            #expect(media.uri == "audio2ch/index.m3u8")
            let errors = PlaylistLinter().lint(master).filter { $0.severity == .error }.filter { !"\($0)".contains("LANGUAGE") }
            #expect(errors.isEmpty, "\(errors)\n\(text)")
        }
    }
}

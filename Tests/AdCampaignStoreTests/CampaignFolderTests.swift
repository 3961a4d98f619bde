import AdCampaignStore
import Foundation
import Testing

/// What the reload poll watches in a campaign's folder.
@Suite("Campaign folder")
struct CampaignFolderTests {
    @Test("every playlist under the folder is found, at any depth, and nothing else")
    func playlists() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("folder-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: root) }
        let files = ["campaign.yaml", "master.m3u8", "a/v0.m3u8", "a/s0.ts", "a/b/c/deep.m3u8", "a/b/c/key.bin", "x.m3u8.bak", "e/empty"]
        for file in files {
            let url = root.appendingPathComponent(file)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("x".utf8).write(to: url)
        }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("empty-dir"), withIntermediateDirectories: true)
        let found = Set(CampaignFolder.playlists(under: root.path))
        #expect(found == Set(["master.m3u8", "a/v0.m3u8", "a/b/c/deep.m3u8"].map { root.appendingPathComponent($0).path }))
        #expect(CampaignFolder.playlists(under: root.appendingPathComponent("missing").path).isEmpty)
    }

    @Test("the fingerprint changes when a watched file or a playlist changes, and only then")
    func fingerprint() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("print-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("media"), withIntermediateDirectories: true)
        let campaign = root.appendingPathComponent("campaign.yaml")
        let segment = root.appendingPathComponent("media/s0.ts")
        for url in [campaign, segment] { try Data("x".utf8).write(to: url) }
        let folder = CampaignFolder(url: root)
        let watched = [segment.path]
        let first = folder.fingerprint(campaign, watched: watched)
        #expect(folder.fingerprint(campaign, watched: watched) == first)
        try Data("xy".utf8).write(to: segment)
        let grown = folder.fingerprint(campaign, watched: watched)
        #expect(grown != first)
        try Data("x".utf8).write(to: root.appendingPathComponent("media/new.m3u8"))
        let withPlaylist = folder.fingerprint(campaign, watched: watched)
        #expect(withPlaylist != grown)
        try FileManager.default.removeItem(at: segment)
        #expect(folder.fingerprint(campaign, watched: watched) != withPlaylist)
    }
}

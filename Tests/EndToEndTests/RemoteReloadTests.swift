import AdCampaign
import AdCampaignStore
import AdMetrics
import AdOrigin
import Foundation
import Logging
import NIOCore
import NIOPosix
import Testing

@testable import AdStitchServer

/// A served campaign whose playlists are on an origin: polled with conditional requests (an
/// unchanged origin costs 304s, no parse, and the serving load stays), a changed playlist gives a
/// new revision, an outage keeps the last good revision serving and shows the error, a first
/// load that failed recovers on a later poll.
@Suite("Remote campaigns, polled")
struct RemoteReloadTests {
    static let demo = Repository.root.appendingPathComponent("Campaigns/evening-news")

    /// A copy of the demo's playlists (no media: nothing proxies or checks it) to serve and edit.
    static func originFolder() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("origin-\(UUID().uuidString.prefix(8))")
        let media = Self.demo.appendingPathComponent("media")
        let files = try #require(FileManager.default.enumerator(at: media, includingPropertiesForKeys: nil)?.allObjects as? [URL])
        for file in files where file.pathExtension == "m3u8" {
            let relative = String(file.standardizedFileURL.path.dropFirst(Self.demo.standardizedFileURL.path.count + 1))
            let target = root.appendingPathComponent(relative)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: file, to: target)
        }
        return root
    }

    /// A campaigns folder with the demo's YAML on `base`; `origin` goes into its `origin:` block.
    static func campaigns(base: String, origin: String = "{ poll: 1, attempts: 1 }") throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("remote-reload-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("news"), withIntermediateDirectories: true)
        let yaml = try String(contentsOf: Self.demo.appendingPathComponent("campaign.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "playlist: media/", with: "playlist: \(base)media/")
            .replacingOccurrences(of: "title:", with: "origin: \(origin)\ntitle:")
        try Data(yaml.utf8).write(to: folder.appendingPathComponent("news/campaign.yaml"))
        return folder
    }

    /// Polls as the server's reloader does, on NIO's blocking pool (loading waits for fetches),
    /// once the campaign's one-second `origin.poll` is due.
    static func poll(_ store: CampaignStore) async throws {
        try await Task.sleep(for: .milliseconds(1_050))
        _ = try await NIOThreadPool.singleton.runIfActive { store.reload(logger: Logger(label: "test")) }
    }

    static func makeStore(_ folder: URL, metrics: ServerMetrics) async throws -> (CampaignStore, OriginClient) {
        let client = OriginClient(metrics: metrics.factory)
        let store = try await NIOThreadPool.singleton.runIfActive {
            CampaignStore(folder: folder, logger: Logger(label: "test"), metrics: metrics, remote: RemotePlaylists(client: client))
        }
        return (store, client)
    }

    @Test("a slow origin holds up no other campaign's reload: origins are asked concurrently, a local edit loads at once")
    func slowOriginDoesNotHoldLocalEdits() async throws {
        let root = try Self.originFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let origin = try await StaticServer(root: root)
        // The remote campaign's slate comes from a path the origin answers 3 s late (three playlists: a 9 s poll).
        let folder = try Self.campaigns(base: origin.base.absoluteString)
        defer { try? FileManager.default.removeItem(at: folder) }
        let remoteYAML = folder.appendingPathComponent("news/campaign.yaml")
        try Data(
            try String(contentsOf: remoteYAML, encoding: .utf8)
                .replacingOccurrences(of: "\(origin.base.absoluteString)media/slate/", with: "\(origin.base.absoluteString)_/slow/3000/media/slate/")
                .utf8
        ).write(to: remoteYAML)
        // A local campaign beside it.
        try FileManager.default.copyItem(at: Self.demo, to: folder.appendingPathComponent("local"))
        let localYAML = folder.appendingPathComponent("local/campaign.yaml")
        let local = try String(contentsOf: localYAML, encoding: .utf8).replacingOccurrences(of: "id: evening-news", with: "id: local-news")
        try Data(local.utf8).write(to: localYAML)
        let (store, client) = try await Self.makeStore(folder, metrics: ServerMetrics())
        defer { Task { try? await client.shutdown() } }
        let before = try #require(store.campaign("local-news")).campaign.revision
        #expect(store.campaign("evening-news") != nil, "\(store.statuses)")

        // The remote campaign's poll is due; the local one is edited.
        try await Task.sleep(for: .milliseconds(1_050))
        try Data(local.replacingOccurrences(of: "title: ", with: "title: Edited ").utf8).write(to: localYAML)
        let started = ContinuousClock.now
        for _ in 0..<2 {  // seen, then stable: loaded
            _ = try await NIOThreadPool.singleton.runIfActive { store.reload(logger: Logger(label: "test"), originWait: .milliseconds(200)) }
        }
        let took = ContinuousClock.now - started
        #expect(try #require(store.campaign("local-news")).campaign.revision != before, "the local edit is loaded")
        #expect(took < .seconds(6), "two reloads took \(took) behind a 9 s origin poll")
        // The slow poll finishes on its own, and the remote campaign keeps serving.
        try await Task.sleep(for: .seconds(10))
        #expect(store.statuses.allSatisfy { $0.error == nil }, "\(store.statuses)")
    }

    @Test("unchanged: 304s and the same load; changed: a new revision; origin gone: the last good revision serves and the error shows")
    func polls() async throws {
        let root = try Self.originFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let origin = try await StaticServer(root: root)
        let folder = try Self.campaigns(base: origin.base.absoluteString)
        defer { try? FileManager.default.removeItem(at: folder) }
        let metrics = ServerMetrics()
        let (store, client) = try await Self.makeStore(folder, metrics: metrics)
        defer { Task { try? await client.shutdown() } }

        let first = try #require(store.campaign("evening-news"), "\(store.statuses)")
        let playlists = try origin.hits(under: "/media/")
        #expect(playlists > 10)

        // Unchanged: one conditional request per playlist, all 304, the same load serving.
        try await Self.poll(store)
        #expect(try origin.hits(under: "/media/") == 2 * playlists)
        #expect(store.campaign("evening-news")?.load == first.load)
        #expect(store.statuses.first?.error == nil)
        let exposition = String(buffer: metrics.exposition())
        #expect(exposition.contains("adstitch_origin_requests_total{status=\"304\"} \(playlists)"), "\(exposition)")
        #expect(exposition.contains("adstitch_origin_requests_total{status=\"200\"} \(playlists)"))
        #expect(exposition.contains("adstitch_origin_fetch_seconds_count"))

        // A changed slate playlist on the origin: a new revision at the next poll. (A comment line
        // would not do: comments are no part of a revision.)
        let slate = root.appendingPathComponent("media/slate/180p/index.m3u8")
        let edited = try String(contentsOf: slate, encoding: .utf8).replacingOccurrences(
            of: "#EXTM3U\n",
            with: "#EXTM3U\n#EXT-X-START:TIME-OFFSET=0\n"
        )
        try Data(edited.utf8).write(to: slate)
        try await Self.poll(store)
        let second = try #require(store.campaign("evening-news"))
        #expect(second.campaign.revision != first.campaign.revision)
        #expect(store.statuses.first?.serving == second.campaign.revision && store.statuses.first?.error == nil)

        // The origin goes away: the revision keeps serving, the error names the URL.
        origin.process.stop()
        try await Self.poll(store)
        #expect(store.campaign("evening-news")?.load == second.load)
        let status = try #require(store.statuses.first)
        #expect(status.serving == second.campaign.revision)
        let error = try #require(status.error)
        #expect(error.contains("cannot refresh from the origin") && error.contains(origin.base.absoluteString + "media/"), "\(error)")
        #expect(error.contains("revision \(second.campaign.revision) keeps serving"), "\(error)")
        #expect(String(buffer: metrics.exposition()).contains("adstitch_origin_requests_total{status=\"error\"}"))
    }

    @Test("a first load that failed on an origin error recovers at the next poll")
    func recovers() async throws {
        let root = try Self.originFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let origin = try await StaticServer(root: root)
        // The slate answers 500 once, then its playlist.
        let folder = try Self.campaigns(base: origin.base.absoluteString)
        defer { try? FileManager.default.removeItem(at: folder) }
        let yaml = folder.appendingPathComponent("news/campaign.yaml")
        let failing = try String(contentsOf: yaml, encoding: .utf8)
            .replacingOccurrences(of: origin.base.absoluteString + "media/slate/", with: origin.base.absoluteString + "_/fail/1/slate/media/slate/")
        try Data(failing.utf8).write(to: yaml)
        let (store, client) = try await Self.makeStore(folder, metrics: ServerMetrics())
        defer { Task { try? await client.shutdown() } }

        #expect(store.campaign("evening-news") == nil)
        let failed = try #require(store.statuses.first)
        #expect(failed.serving == nil)
        #expect(failed.error?.contains("_/fail/1/slate/media/slate/master.m3u8 answered HTTP 500") == true, "\(failed.error ?? "")")

        try await Self.poll(store)
        #expect(store.campaign("evening-news") != nil, "\(store.statuses)")
        #expect(store.statuses.first?.error == nil)
    }
}

import AdCampaign
import AdDecision
import AdStitching
import Foundation
import HLSPlaylist

/// A demo campaign's session stitched into a temporary folder and served over HTTP, the way a
/// player meets it: `<base>/session/master.m3u8`, media under `<base>/campaign/`.
final class ServedSessionFolder: Sendable {
    let root: URL
    let plan: Plan
    let manifest: BoundaryManifest
    let renditions: [StitchRendition]
    let server: StaticServer

    var base: URL { self.server.base }
    var masterURL: URL { self.base.appendingPathComponent("session/master.m3u8") }
    func url(_ rendition: StitchRendition) -> URL { self.base.appendingPathComponent("session/\(rendition.id).m3u8") }

    init(campaign id: String, context: ViewerContext) async throws {
        let campaign = try CampaignLoader.load(Repository.campaign(id))
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("adstitch-e2e-\(UUID().uuidString.prefix(8))")
        let sessionDirectory = root.appendingPathComponent("session")
        try FileManager.default.createDirectory(at: sessionDirectory, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: root.appendingPathComponent("campaign"),
            withDestinationURL: campaign.file.deletingLastPathComponent()
        )
        let server = try await StaticServer(root: root)
        let uris = URIStyle.rebased(root: campaign.file.deletingLastPathComponent(), onto: server.base.appendingPathComponent("campaign/"))
        let layout = try StitchLayout(campaign: campaign, uris: uris)
        let plan = Planner().plan(campaign, for: context)
        for rendered in try SessionRenderer(layout: layout).session(.stitched).renderAll(plan) {
            try Data(rendered.bytes).write(to: sessionDirectory.appendingPathComponent(rendered.file.name))
        }
        let manifest = BoundaryManifest(plan)
        self.root = root
        self.plan = plan
        self.manifest = manifest
        self.renditions = layout.renditions
        self.server = server
    }

    /// Writes a page that plays the session in a `<video>` and records its events.
    func writePlayerPage() throws -> URL {
        let page = """
            <!doctype html>
            <html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>AdStitch e2e</title></head>
            <body><video id="video" src="master.m3u8" muted autoplay playsinline width="640"></video>
            <script>
              const video = document.getElementById('video');
              window.events = [];
              for (const name of ['loadedmetadata', 'playing', 'waiting', 'ended', 'error']) {
                video.addEventListener(name, () => window.events.push(name + '@' + video.currentTime.toFixed(2)));
              }
              video.addEventListener('loadedmetadata', () => { video.playbackRate = 4; });
            </script></body></html>
            """
        try Data(page.utf8).write(to: self.root.appendingPathComponent("session/play.html"))
        return self.base.appendingPathComponent("session/play.html")
    }

    /// Writes a page that plays the session with hls.js (MSE) — the build scripts/hlsjs.py
    /// extracts (`make test` runs it) copied beside it — recording hls.js's fatal errors in
    /// `window.hlsError`.
    func writeHlsJsPage() throws -> URL {
        try FileManager.default.copyItem(at: HlsJs.file(), to: self.root.appendingPathComponent("session/hls.js"))
        let page = HlsJs.page(title: "AdStitch e2e, hls.js", rate: 4)
        try Data(page.utf8).write(to: self.root.appendingPathComponent("session/hlsjs.html"))
        return self.base.appendingPathComponent("session/hlsjs.html")
    }

    deinit {
        try? FileManager.default.removeItem(at: self.root)
    }
}

/// hls.js as scripts/hlsjs.py extracts it from a pinned wheel (`make test` runs the script first).
enum HlsJs {
    static let version = "1.6.15"

    /// The extracted build, after checking its banner names the pinned version.
    /// A page that plays `master.m3u8` beside it with `hls.js` beside it (MSE) at `rate`,
    /// recording hls.js's fatal errors in `window.hlsError`.
    static func page(title: String, rate: Int = 1) -> String {
        """
        <!doctype html>
        <html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>\(title)</title>
        <script src="hls.js"></script></head>
        <body><video id="video" muted playsinline width="640"></video>
        <script>
          const video = document.getElementById('video');
          window.hlsError = null;
          const hls = new Hls();
          hls.on(Hls.Events.ERROR, (event, data) => { if (data.fatal) window.hlsError = data.type + ': ' + data.details; });
          hls.loadSource('master.m3u8');
          hls.attachMedia(video);
          hls.on(Hls.Events.MANIFEST_PARSED, () => { video.playbackRate = \(rate); video.play(); });
        </script></body></html>
        """
    }

    static func file() throws -> URL {
        let file = Repository.root.appendingPathComponent(".build-hlsjs/hls.js")
        let head = (try? String(contentsOf: file, encoding: .utf8))?.prefix(80) ?? ""
        guard head.hasPrefix("/* hls.js \(Self.version),") else {
            throw Tool.Missing(name: "hls.js \(Self.version) at .build-hlsjs/hls.js (scripts/hlsjs.py extracts it)")
        }
        return file
    }
}

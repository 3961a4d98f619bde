import AdCampaign
import AdCampaignStore
import AdLiveRuntime
import AdMetrics
import AdOrigin
import AdQuality
import AdStitching
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// `GET /v1/campaigns/{id}/media/**`: the media of local campaigns, so the demo plays from the
/// same server. Only what the campaign's playlists reference is served (segments, init sections,
/// keys), and the playlists of ads and slate, which interstitial sessions play as they are —
/// never the campaign file, the programme's playlists, key-info files or anything else; byte ranges
/// (RFC 9110 §14) are answered, which byte-range segments need.
struct MediaController: Sendable {
    let store: CampaignStore
    /// Where a request carrying CMCD with a `sid` is noted for the server's view of its session
    /// (``SessionObserver``), and the clock it is noted by.
    let observer: SessionObserver
    let policy: SessionPolicy

    /// Reads files off the event loops (Hummingbird's file I/O on NIO's thread pool), in chunks.
    let fileIO = FileIO()

    func register(on router: Router<AdStitchRequestContext>) {
        router.getAndHead(Routes.media) { request, context in try await self.file(request, context) }
    }

    func file(_ request: Request, _ context: AdStitchRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let (campaign, folder, adPlaylists) = try self.store.media(for: context)
        let parts = context.parameters.getCatchAll().map { $0.removingPercentEncoding ?? String($0) }
        guard !parts.isEmpty, !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." || $0.contains("/") || $0.contains("\0") }) else {
            throw Problem.badRequest("media paths are plain file names under the campaign's folder")
        }
        let url = parts.reduce(folder) { $0.appendingPathComponent($1) }.standardizedFileURL
        guard campaign.files.media[url] != nil || adPlaylists.contains(url) || Self.isConditioned(url, in: campaign),
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int
        else {
            throw Problem.notFound("no media file \(parts.joined(separator: "/")) in campaign \(id)")
        }
        var headers: HTTPFields = [
            .contentType: Self.contentType(url.pathExtension), .acceptRanges: "bytes", .cacheControl: "public, max-age=86400",
            .accessControlAllowOrigin: "*",
        ]
        // RFC 9110 §14.2: a Range the server does not understand (another unit, several ranges,
        // bad syntax) is ignored — the whole file, 200. Only a well-formed range past the end is 416.
        guard size > 0 else {
            headers[.contentLength] = "0"
            return Response(status: .ok, headers: headers)
        }
        var status = HTTPResponse.Status.ok
        var bytes = 0...(size - 1)
        if let header = request.headers[.range], let range = ByteRange(header) {
            guard let (start, end) = range.bounds(size: size) else {
                headers[.contentRange] = "bytes */\(size)"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
            headers[.contentRange] = "bytes \(start)-\(end)/\(size)"
            status = .partialContent
            bytes = start...end
        }
        headers[.contentLength] = String(bytes.count)
        let body = try await self.fileIO.loadFile(path: url.path, range: bytes, context: context)
        // A player that sends CMCD (hls.js's `cmcd` option) says on each segment request whether
        // its buffer ran dry; its `sid` joins the request to the session whose files carried it.
        if request.method == .get, let clues = SessionObserver.Clues(request.head),
            let sid = CMCDRequest(query: clues.cmcdQuery, headers: clues.cmcdHeaders)?.session, sid.utf8.count <= 64
        {
            self.observer.note(campaign: id, token: SessionObserver.sidPrefix + sid, .media, at: self.policy.nowMilliseconds, clues: clues)
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// Whether `url` is a file of a creative conditioned into the campaign's store (its
    /// playlists, segments and init sections; not an encode still being written).
    static func isConditioned(_ url: URL, in campaign: Campaign) -> Bool {
        guard let store = campaign.creatives?.store.standardizedFileURL.path else { return false }
        let path = url.path
        guard path.hasPrefix(store + "/") else { return false }
        // A creative's folder, a version's folder, then its files — never a partial encode.
        let inside = path.dropFirst(store.count + 1).split(separator: "/")
        return inside.count >= 3 && !inside.contains { $0.hasPrefix(".") }
    }

    /// Local media as absolute paths under `/v1/campaigns/{id}/media/` (what this controller
    /// serves); remote URLs unchanged.
    static func uris(campaign id: String, folder: URL) -> URIStyle {
        // A path-only base: `rebased` writes it and the file's path below `folder` after it.
        URIStyle.rebased(root: folder, onto: URL(string: Routes.mediaPrefix(id)) ?? URL(fileURLWithPath: "/"))
    }

    static func contentType(_ extension: String) -> String {
        switch `extension`.lowercased() {
        case "ts": "video/mp2t"
        case "m4s", "mp4": "video/mp4"
        case "m4a": "audio/mp4"
        case "aac": "audio/aac"
        case "vtt": "text/vtt"
        case "m3u8": "application/vnd.apple.mpegurl"
        case "key": "application/octet-stream"
        default: "application/octet-stream"
        }
    }
}

extension CampaignStore {
    /// A store whose campaigns' local media are served by this server's media route
    /// (``MediaController/uris(campaign:folder:)``), as `serve` builds it; tests build it so too.
    package convenience init(
        folder: URL,
        logger: Logger,
        metrics: ServerMetrics = ServerMetrics(),
        remote: RemotePlaylists? = nil,
        live: LiveChannels? = nil,
        mediaRoots: [URL] = [],
        revisionRetention: Duration = .seconds(86_400),
        loadNow: Bool = true
    ) {
        self.init(
            folder: folder,
            logger: logger,
            metrics: metrics,
            remote: remote,
            live: live,
            mediaRoots: mediaRoots,
            revisionRetention: revisionRetention,
            mediaURIs: MediaController.uris,
            loadNow: loadNow
        )
    }
}

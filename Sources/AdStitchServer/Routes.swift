import Hummingbird

/// Every route of the API, in one place (docs/http-api.md lists them; docs/openapi.yaml
/// describes them): controllers register these patterns, and links are built from them.
enum Routes {
    static let healthz: RouterPath = "/healthz"
    static let readyz: RouterPath = "/readyz"
    static let metrics: RouterPath = "/metrics"
    static let campaigns: RouterPath = "/v1/campaigns"
    static let creatives: RouterPath = "/v1/creatives"
    static let master: RouterPath = "/v1/campaigns/:id/master.m3u8"
    /// A new session of a catalogue title: `{path…}` is its multivariant playlist below the prefix.
    static let catalogueMaster: RouterPath = "/v1/campaigns/:id/assets/**"
    static let sessionFile: RouterPath = "/v1/campaigns/:id/sessions/:token/:file"
    /// A live channel's primary playlist of one rendition, the same for every viewer (its interstitial sessions').
    static let channelPlaylist: RouterPath = "/v1/campaigns/:id/channel/:file"
    /// A segment where an ad's events fall (server-side reporting): `302` to it, the events fired.
    static let beacon: RouterPath = "/v1/campaigns/:id/sessions/:token/beacons/:piece/:events/:signature"
    /// A session's viewing quality: its player's reports (`POST`), its figures (`GET`).
    static let sessionQuality: RouterPath = "/v1/campaigns/:id/sessions/:token/qoe"
    /// The name of ``sessionQuality``'s last segment: no session file has it, and the door leaves it to the router.
    static let sessionQualityFile = "qoe"
    /// A campaign's viewing-quality KPIs.
    static let campaignQuality: RouterPath = "/v1/campaigns/:id/qoe"
    /// The ad events fired for a session (the beacon ledger).
    static let sessionEvents: RouterPath = "/v1/sessions/:token/events"
    static let media: RouterPath = "/v1/campaigns/:id/media/**"
    static let player: RouterPath = "/play/:id"
    /// The player page's script: its player and the viewing-quality reporter (``PlayerScript``).
    static let playerScript: RouterPath = "/play/assets/player.js"
    /// The hls.js build its player uses (`serve --hls-js`).
    static let playerHlsJs: RouterPath = "/play/assets/hls.js"
    static let preview: RouterPath = "/preview"
    static let previewCreatives: RouterPath = "/preview/creatives"
    static let previewStylesheet: RouterPath = "/preview/assets/preview.css"
    static let previewScript: RouterPath = "/preview/assets/preview.js"
    static let previewPlayer: RouterPath = "/preview/assets/hls.js"
    static let previewCampaign: RouterPath = "/preview/:id"
    static let previewCompare: RouterPath = "/preview/:id/compare"
    static let previewReport: RouterPath = "/preview/:id/report.json"
    /// The campaign's viewing quality, drawn (docs/preview.md "Quality").
    static let previewQuality: RouterPath = "/preview/:id/quality"
    static let previewMedia: RouterPath = "/preview/:id/media"
    static let previewMediaJSON: RouterPath = "/preview/:id/media.json"
    static let previewMaster: RouterPath = "/preview/:id/master.m3u8"
    static let previewSessionFile: RouterPath = "/preview/:id/sessions/:token/:file"
    /// ``channelPlaylist`` for the preview's live interstitial sessions.
    static let previewChannelPlaylist: RouterPath = "/preview/:id/channel/:file"

    /// Where a new session of campaign `id` starts.
    static func masterPath(_ id: String) -> String { "/v1/campaigns/\(id)/master.m3u8" }
    /// Where a new session of catalogue `id`'s title at `title` (below the prefix) starts.
    static func catalogueMasterPath(_ id: String, title: String) -> String { "/v1/campaigns/\(id)/assets/\(title)" }
    /// What a title's master (``catalogueMasterPath(_:title:)``) writes before `sessions/…` so
    /// its URIs resolve (RFC 3986 §5.2) to the session file route: up from `assets/` and each
    /// folder of the title path to `/v1/campaigns/{id}/`. Relative, not from the root, so a
    /// proxy that mounts AdStitch under a path of its own keeps working.
    static func catalogueSessionsPrefix(title: String) -> String {
        String(repeating: "../", count: 1 + title.utf8.count { $0 == UInt8(ascii: "/") })
    }
    /// The folder of campaign `id`'s local media (`/v1/campaigns/{id}/media/`).
    static func mediaPrefix(_ id: String) -> String { "/v1/campaigns/\(id)/media/" }
    /// The path of a viewer session's file.
    static func sessionFilePath(_ id: String, token: String, file: String) -> String { "/v1/campaigns/\(id)/sessions/\(token)/\(file)" }

    /// The viewer session file route, as its metrics label it (``SessionFileDoor`` answers it).
    static let sessionFileRoute = "/v1/campaigns/{id}/sessions/{token}/{file}"

    /// The campaign, token and file a request target names on the session file route, read as
    /// the router reads its routes (segments as sent, a query ignored); nil for a target elsewhere,
    /// or one the path rule refuses (``HTTPSemanticsMiddleware/pathProblem(_:)``), which the
    /// router answers.
    static func sessionFile(in target: String) -> (id: Substring, token: Substring, file: Substring)? {
        // One pass over the bytes: the literal parts, and each named segment between them (the
        // door asks this of every request, so nothing here compares characters or allocates).
        let bytes = target.utf8
        let end = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.endIndex
        var index = bytes.startIndex
        var escaped = false
        func literal(_ text: String.UTF8View) -> Bool {
            for byte in text {
                guard index < end, bytes[index] == byte else { return false }
                bytes.formIndex(after: &index)
            }
            return true
        }
        func segment() -> Substring? {
            let start = index
            var dots = 0
            while index < end, bytes[index] != UInt8(ascii: "/") {
                if bytes[index] == UInt8(ascii: "%") { escaped = true }
                if bytes[index] == UInt8(ascii: ".") { dots += 1 }
                bytes.formIndex(after: &index)
            }
            let length = bytes.distance(from: start, to: index)
            // Empty, `.` and `..` segments break the path rule.
            guard length > 0, !(length == dots && dots <= 2) else { return nil }
            return target[start..<index]
        }
        guard literal("/v1/campaigns/".utf8), let id = segment(), literal("/sessions/".utf8), let token = segment(), literal("/".utf8),
            let file = segment(), index == end
        else { return nil }
        // A percent-escape may hide a dot segment: the rule's own reading decides.
        if escaped, HTTPSemanticsMiddleware.pathProblem(String(target[..<end])) != nil { return nil }
        return (id, token, file)
    }
}

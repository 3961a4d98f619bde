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
    /// A segment where an ad's events fall (server-side reporting): `302` to it, the events fired.
    static let beacon: RouterPath = "/v1/campaigns/:id/sessions/:token/beacons/:piece/:events/:signature"
    /// The ad events fired for a session (the beacon ledger).
    static let sessionEvents: RouterPath = "/v1/sessions/:token/events"
    static let media: RouterPath = "/v1/campaigns/:id/media/**"
    static let player: RouterPath = "/play/:id"
    static let preview: RouterPath = "/preview"
    static let previewCreatives: RouterPath = "/preview/creatives"
    static let previewStylesheet: RouterPath = "/preview/assets/preview.css"
    static let previewScript: RouterPath = "/preview/assets/preview.js"
    static let previewPlayer: RouterPath = "/preview/assets/hls.js"
    static let previewCampaign: RouterPath = "/preview/:id"
    static let previewCompare: RouterPath = "/preview/:id/compare"
    static let previewReport: RouterPath = "/preview/:id/report.json"
    static let previewMedia: RouterPath = "/preview/:id/media"
    static let previewMediaJSON: RouterPath = "/preview/:id/media.json"
    static let previewMaster: RouterPath = "/preview/:id/master.m3u8"
    static let previewSessionFile: RouterPath = "/preview/:id/sessions/:token/:file"

    /// Where a new session of campaign `id` starts.
    static func masterPath(_ id: String) -> String { "/v1/campaigns/\(id)/master.m3u8" }
    /// Where a new session of catalogue `id`'s title at `title` (below the prefix) starts.
    static func catalogueMasterPath(_ id: String, title: String) -> String { "/v1/campaigns/\(id)/assets/\(title)" }
    /// The folder of campaign `id`'s local media (`/v1/campaigns/{id}/media/`).
    static func mediaPrefix(_ id: String) -> String { "/v1/campaigns/\(id)/media/" }
    /// The path of a viewer session's file.
    static func sessionFilePath(_ id: String, token: String, file: String) -> String { "/v1/campaigns/\(id)/sessions/\(token)/\(file)" }
}

import AdCampaign
import AdDecision
import AdOrigin
import AdServerClient
import AdStitching
import ArgumentParser
import Foundation

/// `adstitch stitch CAMPAIGN.yaml --out DIR`: one viewer's session, written to disk.
struct Stitch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Stitch one viewer's session: DIR/master.m3u8, one playlist per rendition, DIR/boundaries.json.",
        discussion: """
            Segment URIs point at the campaign's media relative to DIR, or under --base-url. With \
            --insertion interstitials the playlists are the programme alone with an HLS Interstitial per \
            break, and DIR/assets-BREAK.json the asset list of each break that plays (players resolve its \
            URIs against the page, so give --base-url for a session to be played from a web server).
            """
    )

    @Argument(help: "The campaign file.")
    var campaign: String

    @Option(help: "The folder to write the session to (created if missing).")
    var out: String

    @Option(help: "Write media URIs under this URL instead of relative paths (the campaign's folder maps to it).")
    var baseURL: String?

    @Option(help: "stitched (ads in the playlists) or interstitials (HLS Interstitials); default: the campaign's insertion, auto meaning stitched.")
    var insertion: Insertion?

    @OptionGroup var viewer: ContextOptions

    @OptionGroup(title: "Origins")
    var origin: OriginFlags

    @OptionGroup var catalogue: TitleOption

    func validate() throws {
        if self.insertion == .auto {
            throw ValidationError("--insertion auto depends on the player asking; stitch a session as stitched or interstitials")
        }
        if let baseURL, URL(string: baseURL)?.scheme == nil {
            throw ValidationError("--base-url \(baseURL) must be an absolute URL such as https://cdn.example/campaigns/")
        }
    }

    func run() throws {
        let campaign = try CampaignFile.load(self.campaign, origin: self.origin, title: self.catalogue.title)
        let directory = URL(fileURLWithPath: self.out, isDirectory: true).standardizedFileURL
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let uris =
            self.baseURL.flatMap(URL.init(string:)).map { URIStyle.rebased(root: campaign.file.deletingLastPathComponent(), onto: $0) }
            ?? .relative(to: directory)
        let context = self.viewer.context
        // An ad decision server's creatives first (`ad_server:`), laid out beside the campaign's ads.
        let decisions = CLIAdServerDecisions.decide(campaign, for: context, origin: self.origin)
        let plan = Planner().plan(decisions.campaign, for: context, decided: decisions.decided)
        // Each break's answer as the fill settled it (an answered ad the fill did not play says why).
        for report in decisions.reports { Output.error(report.settled(by: plan).text) }
        do {
            let layout = try StitchLayout(campaign: decisions.campaign, uris: uris)
            let renderer = SessionRenderer(layout: layout)
            let insertion = self.insertion ?? campaign.insertion
            // Each file written whole and renamed into place (a reader never sees half of one),
            // the multivariant playlist last, so it never names a playlist not there yet — the
            // way docs/http-api.md asks campaigns to be published.
            // Reported client-side whatever the campaign says: no server is there to fire the
            // ads' events, so the files hand them to the player (tracking.json, the manifest's `tracking`).
            let files = try renderer.session(insertion == .auto ? .stitched : insertion, reporting: .client).renderAll(plan)
            for rendered in files.filter({ $0.file != .multivariant }) + files.filter({ $0.file == .multivariant }) {
                try Data(rendered.bytes).write(to: directory.appendingPathComponent(rendered.file.name), options: .atomic)
            }
            Output.write(
                "stitched session \(context.session): \(plan.pieces.count) pieces, \(plan.duration) s, "
                    + "\(layout.renditions.count) renditions → \(directory.path)/master.m3u8\n"
            )
        } catch let error as StitchError {
            Output.error("\(self.campaign): error: \(error.message)")
            throw ExitCode(1)
        }
    }
}

/// Loads a campaign named on the command line, printing every issue on failure.
enum CampaignFile {
    /// Runs `body` with a source of local files and of playlists on http(s) origins, fetched as
    /// `--origin-…` and the campaign's `origin:` block say, through one origin client shut down
    /// after it (async-http-client requires that).
    static func withSource<T>(_ origin: OriginFlags, _ body: (PlaylistSource) throws -> T) rethrows -> T {
        let client = OriginClient(settings: origin.settings)
        defer { try? client.shutdownWaiting() }
        return try body(client.playlistSource.allowingLinks(into: origin.mediaRootURLs))
    }

    /// `title`: a catalogue campaign's title to load as its programme; a catalogue needs one.
    /// `leavingOut`: an ad being made, whose entries are not loaded (``CampaignLoader``).
    static func load(_ path: String, origin: OriginFlags, title: String?, leavingOut: String? = nil) throws -> Campaign {
        let campaign: Campaign
        do {
            campaign = try Self.withSource(origin) { source in
                try CampaignLoader.load(URL(fileURLWithPath: path), source: source, title: title, leavingOut: leavingOut)
            }
        } catch let error as CampaignError {
            for issue in error.issues { Output.error(Self.format(issue)) }
            throw ExitCode(1)
        }
        if let catalogue = campaign.catalogue {
            Output.error(
                "\(path): error: campaign \(campaign.id) is a catalogue: give --title PATH, a title's multivariant playlist below \(catalogue.prefix.absoluteString)"
            )
            throw ExitCode(1)
        }
        return campaign
    }

    /// `file:line:column: error: field: message` (or `warning`).
    static func format(_ issue: CampaignIssue, severity: String = "error") -> String {
        issue.field.isEmpty
            ? "\(issue.location): \(severity): \(issue.message)" : "\(issue.location): \(severity): \(issue.field): \(issue.message)"
    }
}

extension Insertion: ExpressibleByArgument {}

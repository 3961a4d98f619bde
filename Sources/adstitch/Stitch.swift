import AdCampaign
import AdDecision
import AdOrigin
import AdStitching
import ArgumentParser
import Foundation

/// `adstitch stitch CAMPAIGN.yaml --out DIR`: one viewer's session, written to disk.
struct Stitch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Stitch one viewer's session: DIR/master.m3u8, one playlist per rendition, DIR/boundaries.json.",
        discussion: "Segment URIs point at the campaign's media relative to DIR, or under --base-url."
    )

    @Argument(help: "The campaign file.")
    var campaign: String

    @Option(help: "The folder to write the session to (created if missing).")
    var out: String

    @Option(help: "Write media URIs under this URL instead of relative paths (the campaign's folder maps to it).")
    var baseURL: String?

    @OptionGroup var viewer: ContextOptions

    func validate() throws {
        if let baseURL, URL(string: baseURL)?.scheme == nil {
            throw ValidationError("--base-url \(baseURL) must be an absolute URL such as https://cdn.example/campaigns/")
        }
    }

    func run() throws {
        let campaign = try CampaignFile.load(self.campaign)
        let directory = URL(fileURLWithPath: self.out, isDirectory: true).standardizedFileURL
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let uris =
            self.baseURL.flatMap(URL.init(string:)).map { URIStyle.rebased(root: campaign.file.deletingLastPathComponent(), onto: $0) }
            ?? .relative(to: directory)
        let context = self.viewer.context
        do {
            let layout = try StitchLayout(campaign: campaign, uris: uris)
            let plan = Planner().plan(campaign, for: context)
            let renderer = SessionRenderer(layout: layout)
            for (file, text) in try renderer.renderAll(plan) {
                try Data(text.utf8).write(to: directory.appendingPathComponent(file.name))
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
    /// Local files, and playlists on http(s) origins with the origin defaults (DESIGN.md
    /// `origin:`). One client for the process, which exits without a deinit to shut it down.
    static let source = OriginClient().playlistSource

    static func load(_ path: String) throws -> Campaign {
        do {
            return try CampaignLoader.load(URL(fileURLWithPath: path), source: Self.source)
        } catch {
            for issue in error.issues { Output.error(Self.format(issue)) }
            throw ExitCode(1)
        }
    }

    /// `file:line:column: error: field: message` (or `warning`).
    static func format(_ issue: CampaignIssue, severity: String = "error") -> String {
        issue.field.isEmpty
            ? "\(issue.location): \(severity): \(issue.message)" : "\(issue.location): \(severity): \(issue.field): \(issue.message)"
    }
}

import AdCampaign
import AdStitching
import Foundation
import Logging
import Synchronization

/// A campaign ready to serve: loaded, laid out for stitching with media URIs under
/// `/v1/campaigns/{id}/media/`.
public struct ServedCampaign: Sendable {
    public let campaign: Campaign
    public let folder: URL
    public let renderer: SessionRenderer
}

/// The load status of one campaign file, as `GET /v1/campaigns` shows it.
public struct CampaignStatus: Sendable {
    public let file: String
    public let id: String?
    public let revision: String?
    /// Nil when the campaign loaded; else every issue, one per line.
    public let error: String?
}

/// The campaigns of a folder: every `*/campaign.yaml` (and `*.yaml` at the top), each loaded and
/// laid out once. Reading is lock-protected so requests see a consistent set.
public final class CampaignStore: Sendable {
    public let folder: URL
    private let state = Mutex<(campaigns: [String: ServedCampaign], statuses: [CampaignStatus])>(([:], []))

    public init(folder: URL, logger: Logger) {
        self.folder = folder.standardizedFileURL
        self.load(logger: logger)
    }

    public func campaign(_ id: String) -> ServedCampaign? {
        self.state.withLock { $0.campaigns[id] }
    }

    public var statuses: [CampaignStatus] {
        self.state.withLock { $0.statuses }
    }

    /// The campaign files of the folder, sorted.
    func files() -> [URL] {
        let manager = FileManager.default
        var files: [URL] = []
        for name in (try? manager.contentsOfDirectory(atPath: self.folder.path)) ?? [] {
            let url = self.folder.appendingPathComponent(name)
            if name.hasSuffix(".yaml") || name.hasSuffix(".yml") {
                files.append(url)
            } else if manager.fileExists(atPath: url.appendingPathComponent("campaign.yaml").path) {
                files.append(url.appendingPathComponent("campaign.yaml"))
            }
        }
        return files.sorted { $0.path < $1.path }
    }

    func load(logger: Logger) {
        var campaigns: [String: ServedCampaign] = [:]
        var statuses: [CampaignStatus] = []
        for file in self.files() {
            do {
                let campaign = try CampaignLoader.load(file)
                guard campaigns[campaign.id] == nil else {
                    throw CampaignError([CampaignIssue(file: file.path, line: 0, column: 0, field: "id", "campaign id \"\(campaign.id)\" is used by another file; ids must be unique in the folder")])
                }
                let folder = file.deletingLastPathComponent().standardizedFileURL
                let layout = try StitchLayout(campaign: campaign, uris: Self.mediaURIs(campaign: campaign.id, folder: folder))
                campaigns[campaign.id] = ServedCampaign(campaign: campaign, folder: folder, renderer: SessionRenderer(layout: layout))
                statuses.append(CampaignStatus(file: file.path, id: campaign.id, revision: campaign.revision, error: nil))
                logger.info("campaign loaded", metadata: ["campaign": "\(campaign.id)", "revision": "\(campaign.revision)"])
            } catch {
                let message = (error as? CampaignError)?.description ?? (error as? StitchError)?.message ?? "\(error)"
                statuses.append(CampaignStatus(file: file.path, id: nil, revision: nil, error: message))
                logger.error("campaign failed to load", metadata: ["file": "\(file.path)", "error": "\(message)"])
            }
        }
        self.state.withLock { $0 = (campaigns, statuses) }
    }

    /// Local media as absolute paths under `/v1/campaigns/{id}/media/`; remote URLs unchanged.
    static func mediaURIs(campaign id: String, folder: URL) -> URIStyle {
        let root = folder.path.hasSuffix("/") ? folder.path : folder.path + "/"
        return URIStyle { url in
            let path = url.standardizedFileURL.path
            guard url.isFileURL, path.hasPrefix(root) else { return url.absoluteString }
            let relative = String(path.dropFirst(root.count))
            return "/v1/campaigns/\(id)/media/" + (relative.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? relative)
        }
    }
}

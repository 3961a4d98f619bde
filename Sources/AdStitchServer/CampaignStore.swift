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
    /// The revision of the last successful load: what new sessions get, even after a failed reload.
    public let serving: String?
    /// Nil when the last load succeeded; else every issue, one per line.
    public let error: String?
}

/// The campaigns of a folder: every `*/campaign.yaml` (and `*.yaml` at the top), each loaded and
/// laid out once, and loaded again when its files change (``reload(logger:)``, polled by
/// ``CampaignReloader``). A campaign that fails to reload keeps serving its last good revision,
/// and older revisions stay available, so sessions started on them keep their ads.
public final class CampaignStore: Sendable {
    public let folder: URL
    public let metrics: ServerMetrics
    /// How many revisions of a campaign are kept for sessions started on them.
    static let keptRevisions = 8

    private struct Entry {
        var fingerprint: String
        var status: CampaignStatus
    }

    private struct State {
        var current: [String: ServedCampaign] = [:]
        var revisions: [String: [ServedCampaign]] = [:]
        var entries: [String: Entry] = [:]
    }

    private let state = Mutex(State())

    public init(folder: URL, logger: Logger, metrics: ServerMetrics = ServerMetrics()) {
        self.folder = folder.standardizedFileURL
        self.metrics = metrics
        self.reload(logger: logger)
    }

    /// The revision new sessions of `id` get.
    public func campaign(_ id: String) -> ServedCampaign? {
        self.state.withLock { $0.current[id] }
    }

    /// A given revision of `id`, current or kept.
    public func campaign(_ id: String, revision: String) -> ServedCampaign? {
        self.state.withLock { state in state.revisions[id]?.last { $0.campaign.revision == revision } }
    }

    public var statuses: [CampaignStatus] {
        self.state.withLock { $0.entries.values.map(\.status).sorted { $0.file < $1.file } }
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

    /// Sizes and modification times of the campaign file and every playlist under its folder:
    /// cheap to compute every few seconds, and it changes when anything the campaign reads does.
    func fingerprint(_ file: URL) -> String {
        let manager = FileManager.default
        func stamp(_ path: String) -> String {
            let attributes = try? manager.attributesOfItem(atPath: path)
            let size = attributes?[.size] as? Int ?? -1
            let date = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            return "\(path)|\(size)|\(date)"
        }
        var stamps = [stamp(file.path)]
        let folder = file.deletingLastPathComponent()
        if file.lastPathComponent == "campaign.yaml", let walker = manager.enumerator(atPath: folder.path) {
            for case let path as String in walker where path.hasSuffix(".m3u8") {
                stamps.append(stamp(folder.appendingPathComponent(path).path))
            }
        }
        return stamps.sorted().joined(separator: "\n")
    }

    /// Loads what changed since the last call. Returns whether anything did.
    @discardableResult
    public func reload(logger: Logger) -> Bool {
        let files = self.files()
        var changed = false
        for file in files {
            let fingerprint = self.fingerprint(file)
            let previous = self.state.withLock { $0.entries[file.path] }
            guard previous?.fingerprint != fingerprint else { continue }
            changed = true
            self.load(file, fingerprint: fingerprint, previous: previous?.status, logger: logger)
        }
        let present = Set(files.map(\.path))
        self.state.withLock { state in
            for (path, entry) in state.entries where !present.contains(path) {
                changed = true
                state.entries[path] = nil
                if let id = entry.status.id { state.current[id] = nil }  // kept revisions still serve their sessions
                logger.info("campaign file removed", metadata: ["file": "\(path)"])
            }
        }
        let (loaded, failing) = self.state.withLock { state in (state.current.count, state.entries.values.filter { $0.status.error != nil }.count) }
        self.metrics.campaigns(loaded: loaded, failing: failing)
        return changed
    }

    private func load(_ file: URL, fingerprint: String, previous: CampaignStatus?, logger: Logger) {
        do {
            let campaign = try CampaignLoader.load(file)
            let folder = file.deletingLastPathComponent().standardizedFileURL
            let layout = try StitchLayout(campaign: campaign, uris: Self.mediaURIs(campaign: campaign.id, folder: folder))
            let served = ServedCampaign(campaign: campaign, folder: folder, renderer: SessionRenderer(layout: layout))
            try self.state.withLock { state in
                if let other = state.entries.first(where: { $0.key != file.path && $0.value.status.id == campaign.id }) {
                    throw CampaignError([
                        CampaignIssue(file: file.path, line: 0, column: 0, field: "id", "campaign id \"\(campaign.id)\" is already used by \(other.key); ids must be unique in the folder")
                    ])
                }
                state.current[campaign.id] = served
                var kept = state.revisions[campaign.id, default: []].filter { $0.campaign.revision != campaign.revision }
                kept.append(served)
                state.revisions[campaign.id] = Array(kept.suffix(Self.keptRevisions))
                state.entries[file.path] = Entry(
                    fingerprint: fingerprint, status: CampaignStatus(file: file.path, id: campaign.id, serving: campaign.revision, error: nil))
            }
            logger.info("campaign loaded", metadata: ["campaign": "\(campaign.id)", "revision": "\(campaign.revision)"])
        } catch {
            let message = (error as? CampaignError)?.description ?? (error as? StitchError)?.message ?? "\(error)"
            // The previous revision, if any, keeps serving: a bad edit never replaces a good campaign.
            self.state.withLock { state in
                state.entries[file.path] = Entry(
                    fingerprint: fingerprint,
                    status: CampaignStatus(file: file.path, id: previous?.id, serving: previous?.serving, error: message))
            }
            self.metrics.reloadFailed(campaign: previous?.id ?? Self.name(of: file))
            logger.error("campaign failed to load", metadata: ["file": "\(file.path)", "error": "\(message)"])
        }
    }

    /// What a campaign file is called before it has loaded: its folder for `*/campaign.yaml`.
    static func name(of file: URL) -> String {
        file.lastPathComponent == "campaign.yaml" ? file.deletingLastPathComponent().lastPathComponent : file.deletingPathExtension().lastPathComponent
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

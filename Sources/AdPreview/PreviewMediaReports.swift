import AdCampaign
import AdMedia
import Foundation
import Synchronization

/// `validate --media` for the preview (docs/preview.md "Media"): a campaign revision's media
/// report, made once per revision on a thread of its own — ffprobe runs for seconds, and no event
/// loop may wait on it — and shared by every request that asks while it runs or after.
package final class PreviewMediaReports: Sendable {
    private struct Key: Hashable {
        let campaign: String
        let revision: String
    }

    /// One report per campaign: the newest revision's (a reload replaces it).
    private let reports = Mutex<[String: (key: Key, task: Task<MediaReport, Never>)]>([:])
    private let inspector: MediaInspector

    package init(inspector: MediaInspector = MediaInspector()) {
        self.inspector = inspector
    }

    /// The report of `campaign`'s revision, made now or earlier.
    package func report(_ campaign: Campaign) async -> MediaReport {
        let key = Key(campaign: campaign.id, revision: campaign.revision)
        let inspector = self.inspector
        let task = self.reports.withLock { reports -> Task<MediaReport, Never> in
            if let known = reports[campaign.id], known.key == key { return known.task }
            let task = Task<MediaReport, Never> {
                await withCheckedContinuation { continuation in
                    DispatchQueue.global(qos: .utility).async { continuation.resume(returning: inspector.inspect(campaign)) }
                }
            }
            reports[campaign.id] = (key, task)
            return task
        }
        return await task.value
    }
}

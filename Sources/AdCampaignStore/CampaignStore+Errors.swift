import AdCampaign
import AdStitching
import Foundation

/// A load's error as the campaign list and the log show it: every path relative to the
/// campaigns folder, so a status reads the same on every replica and gives away no layout.
extension CampaignStore {
    func describe(_ error: any Error) -> String {
        if let error = error as? CampaignError {
            return CampaignError(
                error.issues.map { issue in
                    var issue = issue
                    issue.file = self.relative(issue.file)
                    issue.message = self.relativePaths(in: issue.message)
                    return issue
                }
            ).description
        }
        return self.relativePaths(in: (error as? StitchError)?.message ?? "\(error)")
    }

    private var root: String { self.folder.path.hasSuffix("/") ? self.folder.path : self.folder.path + "/" }

    func relative(_ path: String) -> String {
        path.hasPrefix(self.root) ? String(path.dropFirst(self.root.count)) : path
    }

    private func relativePaths(in text: String) -> String {
        let resolved = self.folder.resolvingSymlinksInPath().path + "/"
        return text.replacingOccurrences(of: self.root, with: "").replacingOccurrences(of: resolved, with: "")
    }
}

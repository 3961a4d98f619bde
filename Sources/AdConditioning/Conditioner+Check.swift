import AdCampaign
import AdStitching
import Foundation

extension Conditioner {
    /// The check conditioning promises: the asset at `report.master` loads as ad `id` of
    /// `campaign` with no warning and lays out in its sessions. The problems found, each a line
    /// (`error: …`, `warning: …`); none when it plays. `folder`: where the asset was written
    /// (its files are read inside it).
    public static func problems(
        _ report: Report,
        id: String,
        campaign: Campaign,
        source: PlaylistSource,
        folder: URL
    ) -> [String] {
        let master = URL(fileURLWithPath: report.master)
        var problems: [String] = []
        do {
            let checked = try CampaignLoader.checkedCreative(at: master, id: id, for: campaign, source: source, field: "ad \(id)", folder: folder)
            problems += checked.warnings.map { "warning: \($0.message)" }
            _ = try StitchLayout(campaign: campaign, uris: .absolute).layOut(creative: checked.asset, id: id)
        } catch let error as CampaignError {
            problems += error.issues.map { "error: \($0.message)" }
        } catch let error as StitchError {
            problems += ["error: \(error.message)"]
        } catch {
            problems += ["error: \(error)"]
        }
        return problems
    }
}

import AdCampaign
import AdDecision
import ArgumentParser

/// `adstitch preview CAMPAIGN.yaml`: the plan a viewer would get, and why.
struct Preview: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the plan for a viewer: the timeline, why each ad was chosen or excluded, the startup variant and order."
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Argument(help: "The campaign file.")
    var campaign: String

    @Option(help: "text or json.")
    var format: Format = .text

    @OptionGroup var viewer: ContextOptions

    func run() throws {
        let campaign = try CampaignFile.load(self.campaign)
        let report = PlanReport(Planner().plan(campaign, for: self.viewer.context))
        Output.write(self.format == .json ? report.json.text() : report.text)
    }
}

import AdCampaign
import AdDecision
import AdServerClient
import AdStitching
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

    @OptionGroup(title: "Origins")
    var origin: OriginFlags

    @OptionGroup var catalogue: TitleOption

    func run() throws {
        let loaded = try CampaignFile.load(self.campaign, origin: self.origin, title: self.catalogue.title)
        // What the ad decision server answers for each break, on standard error (`ad_server:`).
        let decisions = CLIAdServerDecisions.decide(loaded, for: self.viewer.context, origin: self.origin)
        let campaign = decisions.campaign
        let plan = Planner().plan(campaign, for: self.viewer.context, decided: decisions.decided)
        // Each break's answer as the fill settled it (an answered ad the fill did not play says why).
        let reports = decisions.reports.map { $0.settled(by: plan) }
        for report in reports { Output.error(report.text) }
        // The rewrite rules match URIs as they are written: absolute here (origin URLs for
        // remote media, file URLs for local).
        let layout = campaign.rewrites.isEmpty ? nil : try? StitchLayout(campaign: campaign, uris: .absolute)
        let report = PlanReport(plan) { layout?.appliedRewrites($0, rewrites: plan.rewrites) ?? [] }
        // With an ad server: the plan report and, under `adServer`, each break's request and answer.
        var json = report.json
        if case .object(let fields) = json, !reports.isEmpty {
            json = .object(fields + [("adServer", .array(reports.map(\.json)))])
        }
        Output.write(self.format == .json ? json.text() : report.text)
    }
}

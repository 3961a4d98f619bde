import AdCampaign
import AdCampaignStore
import Foundation
import Hummingbird

/// What routes ask of the store by their `:id`: the campaign, or the local media it may serve.
extension CampaignStore {
    /// What the media route of `:id` may serve: the campaign's local media, from its folder (a
    /// catalogue's: its ads' and slate's, the same for every title).
    func media(for context: AdStitchRequestContext) throws -> (campaign: Campaign, folder: URL, adPlaylists: Set<URL>) {
        let id = try context.parameters.require("id")
        if let titles = self.catalogue(id) {
            let template = titles.template
            return (template.campaign, template.folder, template.adPlaylists)
        }
        let served = try self.campaign(for: context)
        return (served.campaign, served.folder, served.adPlaylists)
    }

    /// The campaign a route's `:id` names, or a 404 problem that says where they are listed.
    func campaign(for context: AdStitchRequestContext, listedAt list: String = "GET /v1/campaigns") throws -> ServedCampaign {
        let id = try context.parameters.require("id")
        guard let served = self.campaign(id) else {
            if self.catalogue(id) != nil {
                throw Problem.notFound("campaign \"\(id)\" is a catalogue: a session starts at \(Routes.catalogueMasterPath(id, title: "{path}"))")
            }
            throw Problem.notFound("no campaign \"\(id)\" is loaded; \(list) lists them")
        }
        return served
    }
}

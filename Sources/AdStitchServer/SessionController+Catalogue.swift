import AdCampaign
import AdCampaignStore
import AdSessions
import Hummingbird

/// Catalogue sessions (docs/http-api.md "Catalogues"): a title's start, and a session whose title
/// this replica does not hold.
extension SessionController {
    /// `GET /v1/campaigns/{id}/assets/{path…}?session=…&attr=…`: a new session of the catalogue
    /// title whose multivariant playlist is `{path…}` below the catalogue's prefix (a path that
    /// could leave it is refused), loaded now unless this replica holds it.
    func catalogueMaster(_ request: Request, _ context: AdStitchRequestContext) async throws -> Response {
        let id = try context.parameters.require("id")
        guard let titles = self.store.catalogue(id) else {
            throw Problem.notFound(
                self.store.campaign(id) != nil
                    ? "campaign \"\(id)\" is not a catalogue: a session starts at \(Routes.masterPath(id))"
                    : "no catalogue \"\(id)\" is loaded; GET /v1/campaigns lists the campaigns"
            )
        }
        let path = context.parameters.getCatchAll().joined(separator: "/")
        return try await self.start(self.title(path, of: titles), title: path, request, context)
    }

    /// The title at `path` of `titles`, held or loaded now (and noted as started); the problem a
    /// request gets for a path that is not a title's, a missing title or a failing origin.
    func title(_ path: String, of titles: CatalogueTitles) async throws -> ServedCampaign {
        guard titles.template.catalogue.url(of: path) != nil else {
            throw Problem.badRequest(
                "\(path) is not a title path: give the path of the title's multivariant playlist below the catalogue's prefix, "
                    + "ending in .m3u8, as the origin names it (no '.', '..' or empty segment; percent-encode a space or a letter beyond ASCII, "
                    + "never '/', '\\', '%', a control character or an unreserved character)"
            )
        }
        do {
            return try await titles.start(path)
        } catch {
            throw error.problem
        }
    }

    /// The load a session's revision is on: kept by the store, or (a catalogue's title this
    /// replica does not hold) loaded again; nil when neither can be.
    func served(_ token: SessionToken) async -> ServedCampaign? {
        if let served = self.store.campaign(token.campaign, revision: token.revision) { return served }
        guard let path = token.title, let titles = self.store.catalogue(token.campaign) else { return nil }
        return try? await titles.restore(path, revision: token.revision)
    }

    /// Loads the title of a catalogue session this replica does not hold; 410 when the origin no
    /// longer has the revision the session started on.
    func restoreTitle(_ token: SessionToken) async throws {
        guard let path = token.title, let titles = self.store.catalogue(token.campaign) else { return }
        let restored: ServedCampaign?
        do {
            restored = try await titles.restore(path, revision: token.revision)
        } catch {
            throw error.problem
        }
        guard restored != nil else {
            throw Problem(
                status: .gone,
                title: "Gone",
                detail:
                    "title \(path) changed at the origin since this session started (revision \(token.revision)); start a new session at \(Routes.catalogueMasterPath(token.campaign, title: path))"
            )
        }
    }
}

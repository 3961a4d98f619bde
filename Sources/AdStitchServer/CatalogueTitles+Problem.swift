import AdCampaignStore
import HTTPTypes

extension CatalogueTitles.Failure {
    /// The answer to a session start whose title could not be had.
    var problem: Problem {
        switch self {
        case .missing(let detail): Problem.notFound(detail)
        case .origin(let detail): Problem(status: .badGateway, title: "Origin failed", detail: detail + "; try again")
        case .invalid(let detail): Problem(status: .unprocessableContent, title: "Title not stitchable", detail: detail)
        }
    }
}

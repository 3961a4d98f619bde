import AdCampaign
import AdDecision
import AdOrigin
import AdSessions
import AdStitching
import HLSPlaylist
import Logging

/// Frequency caps (docs/campaign-format.md "Frequency caps"): at a session start, which of the
/// campaign's caps the viewer has reached, from their impressions in the ``ImpressionStore``; the
/// impressions themselves, recorded at the start or, for an ad whose beacons AdStitch fires, when
/// the player reaches it. A store that fails or is slow never fails or
/// delays a start past its deadline: the session starts without caps, and the log says so.
struct FrequencyCapper: Sendable {
    let store: any ImpressionStore
    let logger: Logger
    /// How long a start waits for the store, reading and then writing.
    static let deadline = Duration.milliseconds(500)

    /// The caps of `campaign` the viewer has reached at `at` (ms), and the impressions each counts.
    func status(_ campaign: Campaign, viewer: String, at: Int64) async -> FrequencyCapStatus {
        let caps = campaign.frequencyCaps.prefix(SessionToken.maxCapped)
        guard let longest = caps.map(\.per).max() else { return FrequencyCapStatus() }
        let impressions: [Impression]
        do {
            let (store, id, since) = (self.store, campaign.id, at - Int64(longest) * 1000)
            impressions = try await Deadline.run(within: Self.deadline) { try await store.impressions(campaign: id, viewer: viewer, since: since) }
        } catch {
            self.logger.warning(
                "cannot read a viewer's impressions; the session starts without frequency caps",
                metadata: ["campaign": "\(campaign.id)", "error": "\(error)"]
            )
            return FrequencyCapStatus(unavailable: true)
        }
        return FrequencyCapStatus(caps: caps, impressions: impressions, at: at)
    }

    /// Records the impressions of `plan` (the ads any cap counts) for the viewer at its start,
    /// but those `seen` says AdStitch will see play (server-side reporting: their beacons count
    /// them, ``record(campaign:session:piece:ad:viewer:at:)``).
    func record(_ plan: Plan, viewer: String, at: Int64, seen: (Ad) -> Bool = { _ in false }) async {
        var ads: [(piece: Int, ad: String)] = []
        for (index, piece) in plan.pieces.enumerated() {
            guard case .ad(let ad, _) = piece.kind, !seen(ad) else { continue }
            ads.append((index, ad.id))
        }
        await self.record(plan.campaign, session: plan.context.session, breakID: "", ads: ads, viewer: viewer, at: at)
    }

    /// Records that the viewer's session `session` played the ad at `place` (a plan's piece, or
    /// a live break's) at `at` (ms): the first of its beacons reached AdStitch. Once per session
    /// and place, however often.
    func record(campaign: Campaign, session: String, place: BeaconPlace, ad: String, viewer: String, at: Int64) async {
        await self.record(campaign, session: session, breakID: place.breakID ?? "", ads: [(place.piece, ad)], viewer: viewer, at: at)
    }

    /// The one writer: the ads any of `campaign`'s caps counts, within ``deadline``.
    private func record(_ campaign: Campaign, session: String, breakID: String, ads: [(piece: Int, ad: String)], viewer: String, at: Int64) async {
        let counted = ads.filter { ad in campaign.frequencyCaps.contains { $0.ads.matches(ad.ad) } }
        guard !counted.isEmpty else { return }
        do {
            let (store, id) = (self.store, campaign.id)
            try await Deadline.run(within: Self.deadline) {
                try await store.record(campaign: id, viewer: viewer, session: session, breakID: breakID, ads: counted, at: at)
            }
        } catch {
            self.logger.warning(
                "cannot record a session's impressions; frequency caps will not count them",
                metadata: ["campaign": "\(campaign.id)", "error": "\(error)"]
            )
        }
    }
}

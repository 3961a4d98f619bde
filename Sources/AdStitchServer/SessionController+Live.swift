import AdCampaign
import AdCampaignStore
import AdDecision
import AdLive
import AdLiveRuntime
import AdSessions
import AdStitching
import Foundation
import HLSPlaylist
import HTTPTypes
import Hummingbird
import NIOCore

extension SessionController {
    /// A live session's media playlist or boundary manifest (docs/design-decisions.md "Live"),
    /// rendered from the channel's latest windows and breaks at each refresh: no origin request
    /// per viewer, and nothing kept, since the answer moves with the channel.
    func liveFile(
        _ file: SessionFile,
        _ served: ServedCampaign,
        _ token: SessionToken,
        joined: Int,
        tokenText: String,
        verified: VerifiedSession?,
        for request: Request,
        peer: SocketAddress?
    ) async throws -> (HTTPFields, AnswerBody) {
        let kind = try await self.liveKind(served, token, joined: joined, deviceHeaders: self.deviceHeaders(request.headers, peer: peer))
        // Server-side reporting: the ads' event segments by their beacon links (scope viewer only).
        let reporting = token.reporting ?? served.campaign.reporting
        let beacons = token.scope == .viewer && reporting == .server ? self.beaconLinks(served.campaign, token: tokenText) : nil
        let text = try self.render(Self.metricKind(file)) {
            try kind.render(file, self.session(served, token, tokenText: tokenText, verified: verified).plan, links: SessionLinks(beacons: beacons))
                .bytes
        }
        // Players reload a live playlist every target duration or so: never stored, revalidated by ETag.
        let (headers, body) = Response.taggedParts(
            String(decoding: text, as: UTF8.self),
            contentType: file.contentType,
            cache: "no-cache",
            for: request,
            etag: nil
        )
        return (headers, AnswerBody(body))
    }

    /// A live session's kind at this moment: the channel's latest windows and breaks as this
    /// replica read them, and the ads an ad server chose for the breaks the viewer has seen (asked
    /// for now if new, with the viewer's `X-Device-*` headers).
    func liveKind(
        _ served: ServedCampaign,
        _ token: SessionToken,
        joined: Int,
        deviceHeaders: [(name: String, value: String)]
    ) async throws -> LiveSessionKind {
        guard let channel = served.channel, served.campaign.live != nil else {
            throw Problem.notFound("campaign \(served.campaign.id) revision \(served.campaign.revision) is not live")
        }
        // Every rendition cut where every replica cuts it: at the newest segment first seen a
        // hold-back ago, back by its durations (LiveChannelTimeline.cut) — whatever the origin's
        // dates say, so a viewer whose refreshes alternate replicas never sees the window go back.
        let cut = channel.timeline.cut(at: ExactDecimal(significand: Int(self.policy.nowMilliseconds), exponent: 3))
        let breaks = cut.breaks
        let (decided, creatives) = try await self.liveDecisions(served, token: token, breaks: breaks, deviceHeaders: deviceHeaders)
        let renderer = creatives.isEmpty ? served.renderer : SessionRenderer(layout: served.renderer.layout.adding(creatives))
        return LiveSessionKind(
            renderer: renderer,
            reporting: token.reporting ?? served.campaign.reporting,
            channel: LiveSessionKind.Channel(
                windows: cut.windows,
                breaks: breaks,
                joined: joined,
                decided: decided,
                clock: cut.clock
            )
        )
    }
}

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
        let kind = try await self.liveKind(
            served,
            token,
            joined: joined,
            deviceHeaders: self.deviceHeaders(request.headers, peer: peer),
            startOffset: try Self.startOffset(request.uri.queryParameters["_HLS_start_offset"].map(String.init)),
            assetList: { if case .assetList(let id) = file { id } else { nil } }()
        )
        // Server-side reporting: the ads' event segments by their beacon links (scope viewer only).
        let reporting = token.reporting ?? served.campaign.reporting
        let beacons = token.scope == .viewer && reporting == .server ? self.beaconLinks(served.campaign, token: tokenText) : nil
        // An asset list's local media are absolute (hls.js resolves them against the page).
        let base = self.publicAddress.base(for: request)?.base
        let text = try self.render(Self.metricKind(file)) {
            try kind.render(
                file,
                self.session(served, token, tokenText: tokenText, verified: verified).plan,
                links: SessionLinks(base: base, beacons: beacons)
            )
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

    /// `_HLS_start_offset` (RFC 8216bis Appendix D.4) as sent: seconds into a break, from 0 to
    /// ``LiveLimits/maxBreakDuration``; nil when absent.
    static func startOffset(_ text: String?) throws(Problem) -> ExactDecimal? {
        guard let text else { return nil }
        guard text.utf8.count <= 24, let offset = ExactDecimal(text), offset >= .zero, offset <= LiveLimits.maxBreakDuration else {
            throw Problem.badRequest(
                "_HLS_start_offset=\(text.prefix(24)) must be the seconds into the break the player starts at, from 0 to \(LiveLimits.maxBreakDuration)"
            )
        }
        return offset
    }

    /// A live session's kind at this moment: the channel's latest windows and breaks as this
    /// replica read them, and the ads an ad server chose for the breaks the viewer has seen (asked
    /// for now if new, with the viewer's `X-Device-*` headers) — stitched, or as the channel's
    /// interstitials (whose asset lists start `startOffset` into a break; an interstitial session
    /// asks the ad server only for the break of the asset list asked for, `assetList`).
    func liveKind(
        _ served: ServedCampaign,
        _ token: SessionToken,
        joined: Int,
        deviceHeaders: [(name: String, value: String)],
        startOffset: ExactDecimal? = nil,
        assetList: String? = nil
    ) async throws -> any SessionKind {
        guard let channel = served.channel, served.campaign.live != nil else {
            throw Problem.notFound("campaign \(served.campaign.id) revision \(served.campaign.revision) is not live")
        }
        // Every rendition cut where every replica cuts it: at the newest segment first seen a
        // hold-back ago, back by its durations (LiveChannelTimeline.cut) — whatever the origin's
        // dates say, so a viewer whose refreshes alternate replicas never sees the window go back.
        let cut = channel.timeline.cut(at: ExactDecimal(significand: Int(self.policy.nowMilliseconds), exponent: 3))
        let breaks = cut.breaks
        let asked = token.insertion == .interstitials ? breaks.filter { $0.id == assetList } : breaks
        let (decided, creatives) = try await self.liveDecisions(served, token: token, breaks: asked, deviceHeaders: deviceHeaders)
        let renderer = creatives.isEmpty ? served.renderer : SessionRenderer(layout: served.renderer.layout.adding(creatives))
        if token.insertion == .interstitials {
            return LiveInterstitialSessionKind(
                renderer: renderer,
                reporting: token.reporting ?? served.campaign.reporting,
                channel: LiveInterstitialSessionKind.Channel(breaks: breaks, decided: decided, startOffset: startOffset)
            )
        }
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

extension SessionController {
    /// `GET /v1/campaigns/{id}/channel/{rendition}.m3u8`: a live channel's primary playlist of one
    /// rendition for its interstitial sessions (``SessionRenderer/channelPrimary(rendition:window:breaks:live:)``)
    /// — the same bytes for every viewer and replica at one cut, whatever the query (the viewer's
    /// `token`, which the playlist imports): a CDN keeps it by its path for less than half a target
    /// duration (``SessionRenderer/channelPrimaryMaxAge(targetDuration:)``), revalidated by ETag.
    /// Served from the campaign's current revision.
    func channelPlaylist(_ request: Request, _ context: AdStitchRequestContext) throws -> Response {
        let served = try self.store.campaign(for: context)
        guard let channel = served.channel, let live = served.campaign.live else {
            throw Problem.notFound("campaign \(served.campaign.id) is not live: it has no channel playlists")
        }
        let file = try context.parameters.require("file")
        let renditions = served.renderer.layout.renditions
        guard let index = renditions.firstIndex(where: { SessionFile.playlist($0).name == file }) else {
            throw Problem.notFound(
                "the channel has no playlist \(file); it has \(renditions.map { SessionFile.playlist($0).name }.joined(separator: ", "))"
            )
        }
        let cut = channel.timeline.cut(at: ExactDecimal(significand: Int(self.policy.nowMilliseconds), exponent: 3), sightings: true)
        guard cut.windows.indices.contains(index), let window = cut.windows[index] else {
            throw Problem(
                status: .serviceUnavailable,
                title: "Channel not ready",
                detail: "this replica has not read rendition \(renditions[index].id) of the live channel yet; try again in a few seconds"
            )
        }
        let text = try self.render("channel") {
            try served.renderer.channelPrimary(rendition: renditions[index], window: window, breaks: cut.breaks, live: live).text
        }
        // The server's view of the session whose token the query carries, where no CDN answered
        // for this replica: only a token of this campaign's viewers, checked as a session file's
        // is (a stranger's query must not fill the observer with kilobytes a request).
        if request.method == .get, let token = request.uri.queryParameters[Substring(SessionRenderer.channelTokenParameter)],
            (try? self.checkedToken(String(token), campaign: served.campaign.id, scope: .viewer, now: self.policy.nowSeconds)) != nil
        {
            self.observer.note(
                campaign: served.campaign.id,
                token: String(token),
                .file(file),
                at: self.policy.nowMilliseconds,
                clues: SessionObserver.Clues(request.head)
            )
        }
        let maxAge = SessionRenderer.channelPrimaryMaxAge(targetDuration: window.targetDuration)
        return .tagged(text, contentType: SessionFile.playlist(renditions[index]).contentType, cache: "public, max-age=\(maxAge)", for: request)
    }
}

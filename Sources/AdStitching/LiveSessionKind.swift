import AdCampaign
import AdDecision
import AdLive
import HLSPlaylist

/// A live session (docs/design-decisions.md "Live"): its media playlists and boundary manifest
/// are the viewer's fill of the channel as this replica last read it (``Channel``), made anew at
/// every refresh.
public struct LiveSessionKind: SessionKind {
    /// The channel at one request.
    public struct Channel: Sendable {
        /// Each rendition's window, in layout order, cut as every replica cuts it
        /// (``LiveChannelTimeline/cut(at:)``); nil where this replica has not read the rendition yet.
        public var windows: [LiveRenditionWindow?]
        /// The channel's breaks so far, as the cut knows them (``LiveChannelTimeline/Cut/breaks``).
        public var breaks: [LiveBreak]
        /// The media sequence number the viewer joined at (the session's token).
        public var joined: Int
        /// What the viewer's ad decision server chose for each break, by break id.
        public var decided: [String: [Ad]]
        /// Where windows are cut now and the channel's target duration (``LiveSchedule``'s `clock`).
        public var clock: (cutoff: ExactDecimal, targetDuration: Int)?

        public init(
            windows: [LiveRenditionWindow?],
            breaks: [LiveBreak],
            joined: Int,
            decided: [String: [Ad]] = [:],
            clock: (cutoff: ExactDecimal, targetDuration: Int)? = nil
        ) {
            self.windows = windows
            self.breaks = breaks
            self.joined = joined
            self.decided = decided
            self.clock = clock
        }
    }

    public let renderer: SessionRenderer
    public let reporting: Campaign.Reporting
    /// The channel at this request; nil where only the session's files are asked for.
    public let channel: Channel?
    public var name: String { "live" }

    public init(renderer: SessionRenderer, reporting: Campaign.Reporting, channel: Channel? = nil) {
        self.renderer = renderer
        self.reporting = reporting
        self.channel = channel
    }

    /// The multivariant playlist, each rendition's playlist, the boundary manifest and the
    /// subtitle fillers. No tracking document: reporting server-side, the playlists' beacon links
    /// fire the ads' events (``SessionLinks/beacons``); client-side, the player fires them from
    /// the boundary manifest, which it fetches with each refresh.
    public var files: [SessionFile] {
        [.multivariant] + self.renderer.layout.renditions.map(SessionFile.playlist) + [.boundaries] + self.subtitleFillers
    }

    public func render(_ file: SessionFile, _ plan: @autoclosure () -> Plan, links: SessionLinks) throws(StitchError) -> RenderedBytes {
        switch file {
        case .multivariant:
            return RenderedBytes(text: try self.renderer.multivariant(plan(), playlistURI: links.playlistURI, boundariesURI: links.boundariesURI))
        case .playlist(let rendition):
            guard let index = self.renderer.layout.renditions.firstIndex(of: rendition),
                let windows = self.channel?.windows, windows.indices.contains(index), let window = windows[index]
            else {
                throw StitchError(
                    .notReady,
                    rendition: rendition.id,
                    "this replica has not read rendition \(rendition.id) of the live channel yet; try again in a few seconds"
                )
            }
            return try self.renderer.livePlaylist(try self.schedule(plan()), rendition: rendition, window: window, beacons: links.beacons)
        case .boundaries:
            guard let window = self.channel?.windows.first ?? nil else { throw StitchError(.notReady, "the live channel has not been read yet") }
            return RenderedBytes(text: try self.schedule(plan()).manifest(window, trackers: self.reporting.handsTrackersToPlayer).text())
        case .emptySubtitles, .emptyIMSC: return Self.filler(file)
        case .tracking, .assetList, .adPlaylist:
            throw .notInLayout(
                "live sessions have media playlists and boundaries.json (no \(file.name): a live session's ads' events fire from its playlists' beacon links, or its player fires them from the boundary manifest)"
            )
        }
    }

    /// The viewer's fill of the channel's breaks, its open breaks filled to the live edge: the
    /// latest end of any rendition's window.
    public func schedule(_ plan: Plan) throws(StitchError) -> LiveSchedule {
        guard let channel = self.channel, let live = self.renderer.layout.campaign.live else {
            throw .notInLayout("campaign \(self.renderer.layout.campaign.id) is not live, or its channel has not been read")
        }
        return try LiveSchedule(
            plan: plan,
            live: live,
            layout: self.renderer.layout,
            breaks: channel.breaks,
            joined: channel.joined,
            liveEdge: channel.windows.compactMap { $0?.segments.last?.end }.max() ?? .zero,
            decided: channel.decided,
            clock: channel.clock
        )
    }
}

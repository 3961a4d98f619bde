import AdCampaign
import AdStitching
import Foundation

/// How a session start picks its insertion mode (docs/http-api.md "Insertion"): the request's
/// `insertion=`, else the campaign's `insertion:`; `auto` picks interstitials for players known
/// to play HLS Interstitials and stitched for every other.
///
/// Known players:
/// - AVPlayer, which names itself `AppleCoreMedia/…` with its OS: iOS, iPadOS and tvOS 15 or
///   later (`CPU OS 15_0 like Mac OS X`), macOS 12 or later (`Mac OS X 12_0`) — the releases
///   that brought `AVPlayerInterstitialEventController`. Safari's own `<video>` and apps that set
///   another User-Agent are not recognised: they get stitched sessions, which every player plays.
/// - hls.js 1.6 or later, which a browser cannot be told apart by: the page declares it with the
///   query parameter `player=hls.js/1.6.15` (the version optional: `player=hls.js` is taken as a
///   current one). `player` stays a viewer attribute that rules may use too.
///
/// One exception: hls.js before 1.7 stalls after a break that resumes the programme inside its
/// final segment (``InterstitialSchedule/breaksResumingInFinalSegment(of:)``; docs/real-clients.md),
/// so for a campaign with such a break `auto` gives it stitched sessions — and so does a page that
/// names hls.js without a version, which may be a 1.6. An explicit `insertion=interstitials` is
/// served as asked.
enum InsertionChoice {
    /// The mode a session of `campaign` starts in; `campaign` nil (the preview, whose player works
    /// around the hls.js 1.6 stall) skips the exception above.
    static func resolve(_ mode: Insertion, userAgent: String?, player: String?, campaign: Campaign? = nil) -> Insertion {
        guard mode == .auto else { return mode }
        guard Self.playsInterstitials(userAgent: userAgent, player: player) else { return .stitched }
        if let player, let campaign, Self.mayBeHlsJsBefore17(player), !InterstitialSchedule.breaksResumingInFinalSegment(of: campaign).isEmpty {
            return .stitched
        }
        return .interstitials
    }

    static func playsInterstitials(userAgent: String?, player: String?) -> Bool {
        if let player, Self.isHlsJs16(player) { return true }
        guard let userAgent, userAgent.hasPrefix("AppleCoreMedia/") else { return false }
        if let major = Self.version(after: "CPU OS ", in: userAgent) { return major >= 15 }
        if let major = Self.version(after: "Mac OS X ", in: userAgent) { return major >= 12 }
        return false
    }

    /// `hls.js`, `hls.js/1.6.15`, `hlsjs/1.7`: true from 1.6 on.
    static func isHlsJs16(_ player: String) -> Bool {
        switch Self.hlsJsVersion(player) {
        case nil: false
        case .unstated?: true
        case .stated(let major, let minor)?: (major, minor) >= (1, 6)
        }
    }

    /// hls.js that may be older than 1.7: `hls.js/1.6.15`, and `hls.js` without a version.
    static func mayBeHlsJsBefore17(_ player: String) -> Bool {
        switch Self.hlsJsVersion(player) {
        case nil: false
        case .unstated?: true
        case .stated(let major, let minor)?: (major, minor) < (1, 7)
        }
    }

    /// The version a `player=` value names for hls.js.
    private enum HlsJsVersion {
        /// `hls.js` alone.
        case unstated
        /// `hls.js/1.6.15`: 1 and 6 (`hlsjs/1.7`: minor 7, `hls.js/2`: minor 0).
        case stated(major: Int, minor: Int)
    }

    /// Nil when `player` is not hls.js, or names a version that does not parse.
    private static func hlsJsVersion(_ player: String) -> HlsJsVersion? {
        let lowered = player.lowercased()
        guard let name = ["hls.js", "hlsjs"].first(where: { lowered.hasPrefix($0) }) else { return nil }
        let rest = lowered.dropFirst(name.count)
        guard !rest.isEmpty else { return .unstated }
        guard rest.first == "/" else { return nil }
        let numbers = rest.dropFirst().split(separator: ".").map { Int($0) }
        guard let major = numbers.first ?? nil else { return nil }
        return .stated(major: major, minor: numbers.count > 1 ? numbers[1] ?? 0 : 0)
    }

    /// The major version in `… 17_4 …` right after `marker`.
    private static func version(after marker: String, in text: String) -> Int? {
        guard let range = text.range(of: marker) else { return nil }
        let digits = text[range.upperBound...].prefix { $0.isASCII && $0.isNumber }
        return Int(digits)
    }
}

import AdCampaign
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
enum InsertionChoice {
    static func resolve(_ mode: Insertion, userAgent: String?, player: String?) -> Insertion {
        guard mode == .auto else { return mode }
        return Self.playsInterstitials(userAgent: userAgent, player: player) ? .interstitials : .stitched
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
        let lowered = player.lowercased()
        guard let name = ["hls.js", "hlsjs"].first(where: { lowered.hasPrefix($0) }) else { return false }
        let rest = lowered.dropFirst(name.count)
        guard !rest.isEmpty else { return true }
        guard rest.first == "/" else { return false }
        let numbers = rest.dropFirst().split(separator: ".").map { Int($0) }
        guard let major = numbers.first ?? nil else { return false }
        let minor = numbers.count > 1 ? numbers[1] ?? 0 : 0
        return (major, minor) >= (1, 6)
    }

    /// The major version in `… 17_4 …` right after `marker`.
    private static func version(after marker: String, in text: String) -> Int? {
        guard let range = text.range(of: marker) else { return nil }
        let digits = text[range.upperBound...].prefix { $0.isASCII && $0.isNumber }
        return Int(digits)
    }
}

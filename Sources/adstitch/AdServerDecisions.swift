import AdCampaign
import AdDecision
import AdOrigin
import AdServer
import Foundation
import HLSPlaylist

/// What a campaign's ad decision server (`ad_server:`) decides for one viewer, as `stitch` and
/// `preview` ask it: a VAST request per break, all breaks at once, each bounded by the campaign's
/// `timeout` for its whole wrapper chain; the answer's ads that can play (an HLS creative that
/// stitches with the programme), each whole, in pod order; what failed or was skipped, and why.
struct AdServerDecisions {
    /// The campaign with the chosen creatives laid out beside its own ads (a pool of their own).
    var campaign: Campaign
    /// The creatives each break plays first, by break id.
    var decided: [String: [Ad]]
    var reports: [BreakReport]

    /// One break's request and what came of it.
    struct BreakReport: Encodable {
        var breakID: String
        var url: String
        /// `answered`, `failed` (no answer: the pools fill the break).
        var outcome: String
        var error: String?
        var wrappers: [String] = []
        var played: [String] = []
        var skipped: [Skipped] = []

        struct Skipped: Encodable {
            var id: String
            var reason: String
            var vastError: Int?
        }

        var text: String {
            var line = "ad server: break \(self.breakID): GET \(self.url) → \(self.outcome)"
            if let error = self.error { line += " (\(error)); the break's fallback pools fill it" }
            if !self.wrappers.isEmpty { line += "; wrappers followed: \(self.wrappers.count)" }
            line += "; plays: \(self.played.isEmpty ? "none" : self.played.joined(separator: ", "))"
            for skipped in self.skipped {
                line += "; skipped \(skipped.id): \(skipped.reason)\(skipped.vastError.map { " [VAST \($0)]" } ?? "")"
            }
            return line
        }
    }

    /// Asks the campaign's ad server for every break of `context`'s session; a campaign without
    /// one decides nothing.
    static func decide(_ campaign: Campaign, for context: ViewerContext, origin: OriginFlags) -> AdServerDecisions {
        guard let settings = campaign.adServer else { return AdServerDecisions(campaign: campaign, decided: [:], reports: []) }
        let client = OriginClient(settings: origin.settings)
        defer { try? client.shutdownWaiting() }
        let source = client.playlistSource.allowingLinks(into: origin.mediaRootURLs)
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        Task {
            let outcome = await withTaskGroup(of: (BreakReport, [Ad]).self) { group in
                for adBreak in campaign.breaks {
                    group.addTask { await Self.ask(settings, adBreak, campaign: campaign, context: context, client: client, source: source) }
                }
                var outcome: [(BreakReport, [Ad])] = []
                for await item in group { outcome.append(item) }
                return outcome
            }
            box.set(outcome)
            done.signal()
        }
        done.wait()
        let byBreak = Dictionary(uniqueKeysWithValues: box.value.map { ($0.0.breakID, $0) })
        let ordered = campaign.breaks.compactMap { byBreak[$0.id] }
        var decided: [String: [Ad]] = [:]
        for (report, ads) in ordered where !ads.isEmpty { decided[report.breakID] = ads }
        let creatives = ordered.flatMap(\.1)
        return AdServerDecisions(
            campaign: creatives.isEmpty ? campaign : campaign.adding(creatives, inPool: "ad-server"),
            decided: decided,
            reports: ordered.map(\.0)
        )
    }

    /// One break: the request, its wrapper chain, the pod, each chosen creative loaded and checked.
    private static func ask(
        _ settings: AdServerSettings,
        _ adBreak: AdBreak,
        campaign: Campaign,
        context: ViewerContext,
        client: OriginClient,
        source: PlaylistSource
    ) async -> (BreakReport, [Ad]) {
        let values = AdServerTemplate.Values(
            session: context.session,
            attributes: context.attributes,
            breakID: adBreak.id,
            breakPosition: Self.position(adBreak, in: campaign),
            breakDuration: adBreak.duration,
            programID: campaign.id,
            programDuration: campaign.islands.map(\.asset.duration).sum(),
            cacheBuster: UInt32.random(in: 0...UInt32.max)
        )
        guard let url = settings.vast.url(values) else {
            return (BreakReport(breakID: adBreak.id, url: settings.vast.source, outcome: "failed", error: "the request URL is not valid"), [])
        }
        var report = BreakReport(breakID: adBreak.id, url: url.absoluteString, outcome: "answered")
        var originSettings = OriginSettings()
        originSettings.timeout = settings.timeout
        originSettings.attempts = 1
        let fetch: VASTResolver.Fetch = { [originSettings] url in
            do {
                guard case .fetched(let answer) = try await client.fetch(url, settings: originSettings) else { return Data() }
                return Data(answer.bytes)
            } catch let error as OriginError {
                throw VASTError(error.reason == .timeout ? .wrapperTimeout : .wrapper, error.description)
            }
        }
        // The whole chain within the campaign's timeout: what is late is a failed answer.
        let resolution: Result<VASTResolver.Resolution, VASTError> = await withTaskGroup(of: Result<VASTResolver.Resolution, VASTError>?.self) {
            group in
            group.addTask {
                do {
                    let document = try VASTDocument(try await fetch(url))
                    return .success(await VASTResolver(maxWrappers: settings.maxWrappers, fetch: fetch).resolve(document, from: url))
                } catch let error as VASTError {
                    return .failure(error)
                } catch {
                    return .failure(VASTError(.wrapper, "\(error)"))
                }
            }
            group.addTask {
                try? await Task.sleep(for: settings.timeout)
                return Task.isCancelled ? nil : .failure(VASTError(.wrapperTimeout, "no answer within \(settings.timeout)"))
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .failure(VASTError(.wrapperTimeout, "no answer within \(settings.timeout)"))
        }
        let answer: VASTResolver.Resolution
        switch resolution {
        case .failure(let error):
            report.outcome = "failed"
            report.error = error.description
            return (report, [])
        case .success(let value):
            answer = value
        }
        report.wrappers = answer.requests
        for failure in answer.failures {
            report.skipped.append(.init(id: failure.adID ?? "?", reason: failure.error.message, vastError: failure.error.code.rawValue))
        }
        // Each chosen creative's HLS playlist, loaded and checked as a pool ad is; one that cannot
        // play is skipped, and the pod fills on without it.
        var assets: [String: Asset] = [:]
        let choice = VASTBreakFill.choose(answer.ads, duration: adBreak.duration) { ad in
            guard let file = ad.creative?.mediaFiles.first(where: \.isHLS), let creativeURL = URL(string: file.uri) else {
                return ("no HLS media file (an MP4 needs conditioning)", .noSupportedMediaFile)
            }
            let id = ad.identity ?? file.uri
            do {
                assets[id] = try CampaignLoader.creative(at: creativeURL, id: id, for: campaign, source: source)
                return nil
            } catch let error as CampaignError {
                return (error.issues.first?.message ?? "\(error)", .noSupportedMediaFile)
            } catch {
                return ("\(error)", .noSupportedMediaFile)
            }
        }
        for skipped in choice.skipped {
            report.skipped.append(.init(id: skipped.ad.identity ?? "?", reason: skipped.reason, vastError: skipped.code?.rawValue))
        }
        var ads: [Ad] = []
        for chosen in choice.chosen {
            guard let id = chosen.identity, let asset = assets[id] else { continue }
            var tracking = chosen.tracking
            if !chosen.impressions.isEmpty { tracking["impression", default: []] = chosen.impressions + (tracking["impression"] ?? []) }
            ads.append(Ad(id: id, asset: asset, tracking: tracking))
            report.played.append(id)
        }
        return (report, ads)
    }

    /// `pre`, `mid` or `post`, as VAST requests name a break's place.
    static func position(_ adBreak: AdBreak, in campaign: Campaign) -> String {
        switch adBreak.position {
        case .before(let island) where island == campaign.islands.first?.id: "pre"
        case .after(let island) where island == campaign.islands.last?.id: "post"
        default: adBreak.placement.map { $0.cut == .zero ? "pre" : "mid" } ?? "mid"
        }
    }
}

/// The decisions, handed from the task that made them to the thread that waits.
private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [(AdServerDecisions.BreakReport, [Ad])] = []

    func set(_ value: [(AdServerDecisions.BreakReport, [Ad])]) { self.lock.withLock { self.stored = value } }
    var value: [(AdServerDecisions.BreakReport, [Ad])] { self.lock.withLock { self.stored } }
}

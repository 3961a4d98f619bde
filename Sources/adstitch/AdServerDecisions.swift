import AdCampaign
import AdDecision
import AdOrigin
import AdServer
import Foundation
import HLSPlaylist
import Synchronization

/// What a campaign's ad decision server (`ad_server:`) decides for one viewer, as `stitch` and
/// `preview` ask it: a VAST request per break, all breaks at once (or one VMAP request, its breaks
/// mapped onto the campaign's), each bounded by the campaign's `timeout` for its whole wrapper chain; the answer's ads that can play (an HLS creative that
/// stitches with the programme), each whole, in pod order; what failed or was skipped, and why.
struct AdServerDecisions {
    /// The campaign with the chosen creatives laid out beside its own ads (a pool of their own).
    var campaign: Campaign
    /// The creatives each break plays first, by break id.
    var decided: [String: [Ad]]
    var reports: [BreakReport]

    /// One break's request and what came of it.
    struct BreakReport {
        var breakID: String
        var url: String
        /// `answered`, `failed` (no answer: the pools fill the break).
        var outcome: String
        var error: String?
        var wrappers: [String] = []
        var played: [String] = []
        var skipped: [Skipped] = []

        struct Skipped {
            var id: String
            var reason: String
            var vastError: Int?
        }

        /// The report as the preview's JSON writes it (`adServer`, one entry per break).
        var json: JSONValue {
            var fields: [(String, JSONValue)] = [("break", .string(self.breakID)), ("url", .string(self.url)), ("outcome", .string(self.outcome))]
            if let error = self.error { fields.append(("error", .string(error))) }
            fields.append(("wrappers", .array(self.wrappers.map(JSONValue.string))))
            fields.append(("played", .array(self.played.map(JSONValue.string))))
            fields.append(
                (
                    "skipped",
                    .array(
                        self.skipped.map { skipped in
                            .object(
                                [("id", .string(skipped.id)), ("reason", .string(skipped.reason))]
                                    + (skipped.vastError.map { [("vastError", JSONValue.integer($0))] } ?? [])
                            )
                        }
                    )
                )
            )
            return .object(fields)
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
        let asker = Asker(
            settings: settings,
            campaign: campaign,
            context: context,
            client: client,
            source: client.playlistSource.allowingLinks(into: origin.mediaRootURLs)
        )
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        Task {
            box.set(await asker.everyBreak())
            done.signal()
        }
        done.wait()
        let byBreak = Dictionary(box.value.map { ($0.0.breakID, $0) }, uniquingKeysWith: { first, _ in first })
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

    /// One session's requests: every break's answer, and the creatives that play.
    private struct Asker: Sendable {
        let settings: AdServerSettings
        let campaign: Campaign
        let context: ViewerContext
        let client: OriginClient
        let source: PlaylistSource

        func values(_ adBreak: AdBreak?) -> AdServerTemplate.Values {
            AdServerTemplate.Values(
                session: self.context.session,
                attributes: self.context.attributes,
                breakID: adBreak?.id ?? "",
                breakPosition: adBreak.map { AdServerDecisions.position($0, in: self.campaign) } ?? "",
                breakDuration: adBreak?.duration ?? .zero,
                programID: self.campaign.id,
                programDuration: self.campaign.islands.map(\.asset.duration).sum(),
                cacheBuster: UInt32.random(in: 0...UInt32.max)
            )
        }

        /// A fetch through the origin client, one try within the campaign's timeout; its failures as VAST codes.
        var fetch: VASTResolver.Fetch {
            var settings = OriginSettings()
            settings.timeout = self.settings.timeout
            settings.attempts = 1
            let client = self.client
            return { [settings] url in
                do {
                    guard case .fetched(let answer) = try await client.fetch(url, settings: settings) else { return Data() }
                    return Data(answer.bytes)
                } catch let error as OriginError {
                    throw VASTError(error.reason == .timeout ? .wrapperTimeout : .wrapper, error.description)
                }
            }
        }

        /// `work` within the campaign's timeout: what is late fails with VAST error 301.
        func bounded<T: Sendable>(_ work: @escaping @Sendable () async throws(VASTError) -> T) async -> Result<T, VASTError> {
            let timeout = self.settings.timeout
            return await withTaskGroup(of: Result<T, VASTError>?.self) { group in
                group.addTask {
                    do throws(VASTError) { return .success(try await work()) } catch { return .failure(error) }
                }
                group.addTask {
                    try? await Task.sleep(for: timeout)
                    return Task.isCancelled ? nil : .failure(VASTError(.wrapperTimeout, "no answer within \(timeout)"))
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first ?? .failure(VASTError(.wrapperTimeout, "no answer within \(timeout)"))
            }
        }

        func everyBreak() async -> [(BreakReport, [Ad])] {
            switch self.settings.request {
            case .vast(let template):
                return await withTaskGroup(of: (BreakReport, [Ad]).self) { group in
                    for adBreak in self.campaign.breaks {
                        group.addTask {
                            guard let url = template.url(self.values(adBreak)) else {
                                return (
                                    BreakReport(breakID: adBreak.id, url: template.source, outcome: "failed", error: "the request URL is not valid"),
                                    []
                                )
                            }
                            let fetch = self.fetch
                            let answer = await self.bounded { () throws(VASTError) in
                                let document = try await Self.document(fetch, url)
                                return await VASTResolver(maxWrappers: self.settings.maxWrappers, fetch: fetch).resolve(document, from: url)
                            }
                            return self.fill(adBreak, url: url.absoluteString, answer)
                        }
                    }
                    var outcome: [(BreakReport, [Ad])] = []
                    for await item in group { outcome.append(item) }
                    return outcome
                }
            case .vmap(let template):
                return await self.vmap(template)
            }
        }

        /// One VMAP request for the session; each of its linear breaks fills the campaign's break
        /// at its place (`start`: the first break, `end`: the last, a time or a percentage: the break
        /// at that programme time within 2 s, `#n`: the n-th break).
        func vmap(_ template: AdServerTemplate) async -> [(BreakReport, [Ad])] {
            guard let url = template.url(self.values(nil)) else {
                return self.campaign.breaks.map {
                    (BreakReport(breakID: $0.id, url: template.source, outcome: "failed", error: "the VMAP URL is not valid"), [])
                }
            }
            let fetch = self.fetch
            let map = await self.bounded { () throws(VASTError) in try VMAPDocument(try await Self.data(fetch, url)) }
            let vmap: VMAPDocument
            switch map {
            case .success(let document):
                vmap = document
            case .failure(let error):
                return self.campaign.breaks.map {
                    (BreakReport(breakID: $0.id, url: url.absoluteString, outcome: "failed", error: error.description), [])
                }
            }
            let times = self.programmeTimes()
            return await withTaskGroup(of: (BreakReport, [Ad]).self) { group in
                var mapped: Set<String> = []
                for vmapBreak in vmap.breaks where vmapBreak.isLinear {
                    guard let adBreak = self.campaignBreak(for: vmapBreak.offset, times: times), mapped.insert(adBreak.id).inserted else { continue }
                    group.addTask {
                        switch vmapBreak.source {
                        case .inline(let document)?:
                            let answer = await self.bounded { () throws(VASTError) in
                                await VASTResolver(maxWrappers: self.settings.maxWrappers, fetch: fetch).resolve(document, from: url)
                            }
                            return self.fill(adBreak, url: "\(url.absoluteString) (inline VAST)", answer)
                        case .adTag(let tag)?:
                            guard let tagURL = URL(string: tag) else {
                                return (BreakReport(breakID: adBreak.id, url: tag, outcome: "failed", error: "the AdTagURI is not a URL"), [])
                            }
                            let answer = await self.bounded { () throws(VASTError) in
                                let document = try await Self.document(fetch, tagURL)
                                return await VASTResolver(maxWrappers: self.settings.maxWrappers, fetch: fetch).resolve(document, from: tagURL)
                            }
                            return self.fill(adBreak, url: tagURL.absoluteString, answer)
                        case nil:
                            return (
                                BreakReport(
                                    breakID: adBreak.id,
                                    url: url.absoluteString,
                                    outcome: "failed",
                                    error: "its VMAP break has no ad source"
                                ), []
                            )
                        }
                    }
                }
                var outcome: [(BreakReport, [Ad])] = []
                for await item in group { outcome.append(item) }
                for adBreak in self.campaign.breaks where !mapped.contains(adBreak.id) {
                    outcome.append(
                        (BreakReport(breakID: adBreak.id, url: url.absoluteString, outcome: "failed", error: "the VMAP has no break for it"), [])
                    )
                }
                return outcome
            }
        }

        /// Each campaign break's programme time: where it stands among the islands, or its cut.
        func programmeTimes() -> [(AdBreak, ExactDecimal)] {
            var starts: [String: ExactDecimal] = [:]
            var ends: [String: ExactDecimal] = [:]
            var time = ExactDecimal.zero
            for island in self.campaign.islands {
                starts[island.id] = island.contentStart ?? time
                time = (island.contentStart ?? time) + island.asset.duration
                ends[island.id] = time
            }
            return self.campaign.breaks.compactMap { adBreak in
                if let placement = adBreak.placement { return (adBreak, placement.cut) }
                switch adBreak.position {
                case .before(let island): return starts[island].map { (adBreak, $0) }
                case .after(let island): return ends[island].map { (adBreak, $0) }
                case .live: return nil
                }
            }
        }

        func campaignBreak(for offset: VMAPDocument.Offset, times: [(AdBreak, ExactDecimal)]) -> AdBreak? {
            let total = self.campaign.programAsset?.duration ?? self.campaign.islands.map(\.asset.duration).sum()
            func nearest(_ time: ExactDecimal) -> AdBreak? {
                let best = times.min { ($0.1 - time).magnitude < ($1.1 - time).magnitude }
                return best.flatMap { ($0.1 - time).magnitude <= ExactDecimal(2) ? $0.0 : nil }
            }
            switch offset {
            case .start: return times.first { $0.1 == .zero }?.0
            case .end: return times.last { $0.1 == total }?.0
            case .time(let time): return nearest(time)
            case .percent(let percent):
                return nearest(ExactDecimal(scaledValue: total.scaledValue * percent.scaledValue / ExactDecimal(100).scaledValue))
            case .position(let index): return self.campaign.breaks.indices.contains(index - 1) ? self.campaign.breaks[index - 1] : nil
            }
        }

        static func data(_ fetch: VASTResolver.Fetch, _ url: URL) async throws(VASTError) -> Data {
            do {
                return try await fetch(url)
            } catch let error as VASTError {
                throw error
            } catch {
                throw VASTError(.wrapper, "\(error)")
            }
        }

        static func document(_ fetch: VASTResolver.Fetch, _ url: URL) async throws(VASTError) -> VASTDocument {
            try VASTDocument(try await Self.data(fetch, url))
        }

        /// A break's answer resolved: the pod chosen, each chosen creative's HLS playlist loaded
        /// and checked as a pool ad is (one that cannot play is skipped; the pod fills on without it).
        func fill(_ adBreak: AdBreak, url: String, _ resolution: Result<VASTResolver.Resolution, VASTError>) -> (BreakReport, [Ad]) {
            var report = BreakReport(breakID: adBreak.id, url: url, outcome: "answered")
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
            var assets: [String: Asset] = [:]
            let choice = VASTBreakFill.choose(answer.ads, duration: adBreak.duration) { ad in
                guard let file = ad.creative?.mediaFiles.first(where: \.isHLS), let creativeURL = URL(string: file.uri) else {
                    return ("no HLS media file (an MP4 needs conditioning)", .noSupportedMediaFile)
                }
                let id = ad.identity ?? file.uri
                do {
                    assets[id] = try CampaignLoader.creative(at: creativeURL, id: id, for: self.campaign, source: self.source)
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
private final class ResultBox: Sendable {
    private let stored = Mutex<[(AdServerDecisions.BreakReport, [Ad])]>([])

    func set(_ value: [(AdServerDecisions.BreakReport, [Ad])]) { self.stored.withLock { $0 = value } }
    var value: [(AdServerDecisions.BreakReport, [Ad])] { self.stored.withLock { $0 } }
}

import AdCampaign
import AdDecision
import AdOrigin
import AdServer
import Foundation
import HLSPlaylist

extension AdServerDecisions {
    typealias BreakOutcome = (BreakReport, [Ad])

    /// One session's requests: every break's answer, and the creatives that play.
    struct Asker: Sendable {
        let settings: AdServerSettings
        let campaign: Campaign
        /// The breaks asked for: the campaign's, or the live break that just opened.
        let breaks: [AdBreak]
        let context: ViewerContext
        let client: OriginClient
        let deviceHeaders: [(name: String, value: String)]
        let condition: Condition?
        let loadCreative: LoadCreative
        /// Where what answers name may be fetched from (``Campaign/adServerAddresses``).
        let addresses: AddressPolicy

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

        /// A fetch of the ad server's own request through the origin client, one try within the
        /// campaign's timeout, with the viewer's device headers; its failures as VAST codes.
        var fetch: VASTResolver.Fetch { self.fetch(link: false) }

        /// ``fetch`` for what an answer names (wrappers, a VMAP's ad tags): only where the
        /// campaign's address policy lets it go, on connections of its own — a fan-out of
        /// wrappers never holds the connections the ad server's own requests need.
        var linkFetch: VASTResolver.Fetch { self.fetch(link: true) }

        private func fetch(link: Bool) -> VASTResolver.Fetch {
            var settings = link ? self.client.settings.forAdServerLinks(self.addresses) : self.client.settings
            if !link { settings.pool = .adServers }
            settings.timeout = self.settings.timeout
            settings.attempts = 1
            settings.maxBytes = AdServerLimits.maxAnswerBytes
            let (client, headers) = (self.client, self.deviceHeaders)
            return { [settings] url in
                do {
                    guard case .fetched(let answer) = try await client.fetch(url, settings: settings, headers: headers) else { return Data() }
                    return Data(answer.bytes)
                } catch let error as OriginError {
                    throw VASTError(error.reason == .timeout ? .wrapperTimeout : .wrapper, error.description)
                }
            }
        }

        /// `work` until `deadline`: what is late fails with VAST error 301, and the caller goes
        /// on at the deadline whether or not the work heeds its cancellation.
        func bounded<T: Sendable>(
            until deadline: ContinuousClock.Instant,
            _ work: @escaping @Sendable () async throws(VASTError) -> T
        ) async -> Result<T, VASTError> {
            do {
                return .success(try await Deadline.run(until: deadline, limit: self.settings.timeout) { try await work() })
            } catch let error as VASTError {
                return .failure(error)
            } catch {
                return .failure(VASTError(.wrapperTimeout, "no answer within \(self.settings.timeout)"))
            }
        }

        func everyBreak() async -> [BreakOutcome] {
            let deadline = ContinuousClock.now + self.settings.timeout
            switch self.settings.request {
            case .vast(let template):
                return await withTaskGroup(of: BreakOutcome.self) { group in
                    for adBreak in self.breaks {
                        group.addTask {
                            guard let url = template.url(self.values(adBreak)) else {
                                return (
                                    BreakReport(breakID: adBreak.id, url: template.source, outcome: .failed, error: "the request URL is not valid"),
                                    []
                                )
                            }
                            let (fetch, budget) = (self.fetch, AdServerLimits.Budget())
                            let answer = await self.bounded(until: deadline) { () throws(VASTError) in
                                let document = try await Self.document(fetch, url, budget: budget)
                                return await self.resolver(budget).resolve(document, from: url)
                            }
                            return await self.fill(adBreak, url: url.absoluteString, answer, deadline: deadline)
                        }
                    }
                    var outcome: [BreakOutcome] = []
                    for await item in group { outcome.append(item) }
                    return outcome
                }
            case .vmap(let template):
                return await self.vmap(template, deadline: deadline)
            }
        }

        /// One VMAP request for the session; each of its linear breaks fills the campaign's break
        /// at its place (`start`: the first break, `end`: the last, a time or a percentage: the break
        /// at that programme time within 2 s, `#n`: the n-th break).
        func vmap(_ template: AdServerTemplate, deadline: ContinuousClock.Instant) async -> [BreakOutcome] {
            guard let url = template.url(self.values(nil)) else {
                return self.breaks.map {
                    (BreakReport(breakID: $0.id, url: template.source, outcome: .failed, error: "the VMAP URL is not valid"), [])
                }
            }
            let fetch = self.fetch
            let map = await self.bounded(until: deadline) { () throws(VASTError) in
                try VMAPDocument(try await Self.data(fetch, url, budget: AdServerLimits.Budget()))
            }
            let vmap: VMAPDocument
            switch map {
            case .success(let document):
                vmap = document
            case .failure(let error):
                return self.breaks.map {
                    (
                        BreakReport(
                            breakID: $0.id,
                            url: url.absoluteString,
                            outcome: .failed,
                            error: error.description,
                            errorCode: error.code.rawValue
                        ), []
                    )
                }
            }
            let times = self.programmeTimes()
            return await withTaskGroup(of: BreakOutcome.self) { group in
                var mapped: Set<String> = []
                for vmapBreak in vmap.breaks where vmapBreak.isLinear {
                    guard let adBreak = self.campaignBreak(for: vmapBreak.offset, times: times), mapped.insert(adBreak.id).inserted else { continue }
                    group.addTask {
                        switch vmapBreak.source {
                        case .inline(let document)?:
                            let budget = AdServerLimits.Budget()
                            let answer = await self.bounded(until: deadline) { () throws(VASTError) in
                                await self.resolver(budget).resolve(document, from: url)
                            }
                            return await self.fill(adBreak, url: "\(url.absoluteString) (inline VAST)", answer, deadline: deadline)
                        case .adTag(let tag)?:
                            guard let tagURL = URL(string: tag) else {
                                return (BreakReport(breakID: adBreak.id, url: tag, outcome: .failed, error: "the AdTagURI is not a URL"), [])
                            }
                            let (budget, linkFetch) = (AdServerLimits.Budget(), self.linkFetch)
                            let answer = await self.bounded(until: deadline) { () throws(VASTError) in
                                let document = try await Self.document(linkFetch, tagURL, budget: budget)
                                return await self.resolver(budget).resolve(document, from: tagURL)
                            }
                            return await self.fill(adBreak, url: tagURL.absoluteString, answer, deadline: deadline)
                        case nil:
                            return (
                                BreakReport(breakID: adBreak.id, url: url.absoluteString, outcome: .failed, error: "its VMAP break has no ad source"),
                                []
                            )
                        }
                    }
                }
                var outcome: [BreakOutcome] = []
                for await item in group { outcome.append(item) }
                for adBreak in self.breaks where !mapped.contains(adBreak.id) {
                    outcome.append(
                        (BreakReport(breakID: adBreak.id, url: url.absoluteString, outcome: .failed, error: "the VMAP has no break for it"), [])
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
            return self.breaks.compactMap { adBreak in
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
            case .position(let index): return self.breaks.indices.contains(index - 1) ? self.breaks[index - 1] : nil
            case .time, .percent: return offset.time(inProgrammeOf: total).flatMap(nearest)
            }
        }

        /// The resolver of one break's answer: its wrappers share the break's `budget`, fetched
        /// as what the answer names (``linkFetch``).
        func resolver(_ budget: AdServerLimits.Budget) -> VASTResolver {
            VASTResolver(maxWrappers: self.settings.maxWrappers, budget: budget, fetch: self.linkFetch)
        }

        /// The answer at `url`, counted against the break's `budget`.
        static func data(_ fetch: VASTResolver.Fetch, _ url: URL, budget: AdServerLimits.Budget) async throws(VASTError) -> Data {
            guard budget.request() else { throw VASTError(.wrapperLimit, "the break has made the \(budget.requests) requests it may") }
            let data: Data
            do {
                data = try await fetch(url)
            } catch let error as VASTError {
                throw error
            } catch {
                throw VASTError(.wrapper, "\(error)")
            }
            guard budget.read(data.count) else { throw VASTError(.wrapper, "the answer is larger than the \(budget.bytes) bytes a break may read") }
            return data
        }

        static func document(_ fetch: VASTResolver.Fetch, _ url: URL, budget: AdServerLimits.Budget) async throws(VASTError) -> VASTDocument {
            try VASTDocument(try await Self.data(fetch, url, budget: budget))
        }

        /// A break's answer resolved: every candidate creative's HLS playlists had at once (within
        /// what is left of the timeout), then the pod chosen — one that cannot play is skipped and
        /// the pod fills on without it.
        func fill(
            _ adBreak: AdBreak,
            url: String,
            _ resolution: Result<VASTResolver.Resolution, VASTError>,
            deadline: ContinuousClock.Instant
        ) async -> BreakOutcome {
            var report = BreakReport(breakID: adBreak.id, url: url, outcome: .answered)
            let answer: VASTResolver.Resolution
            switch resolution {
            case .failure(let error):
                report.outcome = .failed
                report.error = error.description
                report.errorCode = error.code.rawValue
                return (report, [])
            case .success(let value):
                answer = value
            }
            report.wrappers = answer.requests
            for failure in answer.failures {
                report.skipped.append(
                    .init(id: failure.adID ?? "?", reason: failure.error.message, vastError: failure.error.code.rawValue, errorURLs: failure.errors)
                )
            }
            // Each creative of the answer, by identity (else its media file's URL): its HLS
            // playlists, else — with conditioning — its conditioned form.
            var sources: [String: CreativeSource] = [:]
            for ad in VASTBreakFill.playOrder(answer.ads) where sources.count < AdServerLimits.maxCreativesPerBreak {
                guard let key = Self.key(ad), let creative = ad.creative else { continue }
                if let file = creative.mediaFiles.first(where: \.isHLS), let url = URL(string: file.uri) {
                    sources[key] = .hls(url)
                } else if self.condition != nil, let source = creative.conditioningSource, let url = URL(string: source) {
                    sources[key] = .conditioned(url, duration: creative.duration.description)
                }
            }
            // Each creative within the deadline on its own: one slow playlist skips its creative alone.
            let outcomes = await withTaskGroup(of: (String, CreativeOutcome?).self) { group in
                for (id, source) in sources {
                    group.addTask {
                        let outcome = await self.bounded(until: deadline) { () throws(VASTError) in await self.creative(source, id: id) }
                        return (id, try? outcome.get())
                    }
                }
                var results: [String: CreativeOutcome] = [:]
                for await (id, result) in group { results[id] = result }
                return results
            }
            let choice = VASTBreakFill.choose(answer.ads, duration: adBreak.duration, standAlone: answer.allowsStandAloneAds) { ad in
                guard let key = Self.key(ad), sources[key] != nil else {
                    if sources.count >= AdServerLimits.maxCreativesPerBreak {
                        return ("not loaded: a break loads at most \(AdServerLimits.maxCreativesPerBreak) creatives", nil)
                    }
                    return (
                        self.condition == nil
                            ? "no HLS media file (an MP4 needs conditioning: creatives: in the campaign)" : "no HLS or progressive video media file",
                        .noSupportedMediaFile
                    )
                }
                switch outcomes[key] {
                case .loaded?: return nil
                case .skipped(let reason, let code)?: return (reason, code)
                case nil: return ("its playlists were not loaded within the timeout; later sessions play it once loaded", .wrapperTimeout)
                }
            }
            for skipped in choice.skipped {
                report.skipped.append(
                    .init(id: skipped.ad.identity ?? "?", reason: skipped.reason, vastError: skipped.code?.rawValue, errorURLs: skipped.ad.errors)
                )
            }
            var ads: [Ad] = []
            for chosen in choice.chosen {
                guard let id = Self.key(chosen), case .loaded(let asset)? = outcomes[id] else { continue }
                var tracking = chosen.tracking
                if !chosen.impressions.isEmpty { tracking["impression", default: []] = chosen.impressions + (tracking["impression"] ?? []) }
                ads.append(Ad(id: id, asset: asset, tracking: tracking, verifications: chosen.verifications.map(AdVerification.init)))
                report.played.append(id)
                // A <Duration> more than a segment off its media: the answer was chosen by the
                // one, the fill goes by the other.
                if let announced = chosen.creative?.duration, let segment = asset.variants.first?.playlist.targetDuration,
                    (announced - asset.duration).magnitude > ExactDecimal(segment)
                {
                    report.warnings.append(
                        "\(id): its <Duration> says \(announced) s, its media runs \(asset.duration) s (more than a \(segment) s segment apart); the fill goes by the media"
                    )
                }
            }
            return (report, ads)
        }

        /// Where a creative's playlists come from.
        enum CreativeSource: Sendable {
            /// Its HLS media file.
            case hls(URL)
            /// Conditioned from this mezzanine or progressive file, announced to run `duration`
            /// seconds (exact decimal text: an `ExactDecimal`'s 16-byte-aligned `Int128` crossing
            /// an async closure's arguments crashed the runtime here).
            case conditioned(URL, duration: String)
        }

        enum CreativeOutcome: Sendable {
            case loaded(Asset)
            case skipped(String, VASTError.Code)
        }

        /// A creative had from `source`: loaded, or skipped with why.
        func creative(_ source: CreativeSource, id: String) async -> CreativeOutcome {
            let url: URL
            switch source {
            case .hls(let hls):
                url = hls
            case .conditioned(let file, let duration):
                switch await self.condition?(file, id, duration) {
                case .ready(let master)?: url = master
                case .pending(let reason)?: return .skipped(reason, .mezzanineDownloading)
                case .unavailable(let reason)?: return .skipped(reason, .noSupportedMediaFile)
                case nil: return .skipped("no conditioning", .noSupportedMediaFile)
                }
            }
            switch await self.loadCreative(url, id) {
            case .success(let asset): return .loaded(asset)
            case .failure(let failure): return .skipped(failure.reason, .noSupportedMediaFile)
            }
        }

        /// A creative's identity (``ResolvedAd/identity``), else its HLS media file's URL, else
        /// the file conditioning reads.
        static func key(_ ad: ResolvedAd) -> String? {
            ad.identity ?? ad.creative?.mediaFiles.first(where: \.isHLS)?.uri ?? ad.creative?.conditioningSource
        }
    }
}

extension AdVerification {
    /// A VAST `<Verification>` as an ad's.
    init(_ verification: VASTVerification) {
        self.init(
            vendor: verification.vendor,
            resources: verification.resources.map {
                Resource(kind: $0.kind, uri: $0.uri, apiFramework: $0.apiFramework, type: $0.type, browserOptional: $0.browserOptional)
            },
            parameters: verification.parameters,
            tracking: verification.tracking
        )
    }
}

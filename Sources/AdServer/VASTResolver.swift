import Foundation
import HLSPlaylist

/// An inline ad reached from an ad server's answer, with everything the wrappers that led to it
/// said: their impressions, error URIs and tracking are kept with it (VAST 4.3 §2.3.4: a player
/// fires every wrapper's trackers along with the inline ad's).
public struct ResolvedAd: Sendable, Hashable {
    /// The outermost `<Ad>`'s id.
    public var id: String?
    /// Its place in the pod: the outermost ad's `sequence` (the wrapper's, when one leads to it).
    public var sequence: Int?
    public var creatives: [VASTCreative]
    public var impressions: [String]
    public var errors: [String]
    public var tracking: [String: [String]]
    /// The wrapper URIs followed to reach it, outermost first.
    public var wrappers: [String]
    public var adSystem: String?
    public var title: String?
    /// Its verifications, the wrappers' first (VAST 4.3 §3.16.1: a wrapper's are the ad's too).
    public var verifications: [VASTVerification] = []

    /// The first linear creative: what plays.
    public var creative: VASTCreative? { self.creatives.first }
    /// The creative's identity (``VASTCreative/identity``), else the ad's id.
    public var identity: String? { self.creative?.identity ?? self.id }
    public var duration: ExactDecimal { self.creative?.duration ?? .zero }
}

/// An ad (or a wrapper chain) of the answer that led to nothing that plays, with the VAST error
/// code to report on the error URIs of every wrapper in its chain.
public struct VASTFailure: Sendable, Hashable {
    public var adID: String?
    public var error: VASTError
    /// The error URIs of the chain (wrappers') to fire with `error.code`.
    public var errors: [String]
    public var wrappers: [String]
    /// A wrapper with `fallbackOnNoAd="false"` that came back empty (VAST 4.3 §3.19.1): the
    /// answer's stand-alone ads must not take its place.
    public var refusesFallback = false
}

/// Follows an answer's wrappers to inline ads (VAST 4.3 §2.3.4, §3.4.1): at most `maxWrappers`
/// deep, a URI already in the chain refused as a loop, `followAdditionalWrappers` and
/// `allowMultipleAds` as each wrapper says, and `fallbackOnNoAd="false"` (an empty wrapper
/// that says so keeps the answer's stand-alone ads out: ``Resolution/allowsStandAloneAds``). Wrappers of one answer are followed concurrently; the order of the answer is kept. The caller's `fetch` bounds the time
/// (the campaign's `timeout` covers the whole chain); the `budget` bounds what the chain may
/// ask and read (``AdServerLimits/Budget``), and a cancelled resolve asks nothing more.
public struct VASTResolver: Sendable {
    public typealias Fetch = @Sendable (URL) async throws -> Data

    public var maxWrappers: Int
    public var budget: AdServerLimits.Budget
    public var fetch: Fetch

    public init(maxWrappers: Int = 5, budget: AdServerLimits.Budget = AdServerLimits.Budget(), fetch: @escaping Fetch) {
        self.maxWrappers = maxWrappers
        self.budget = budget
        self.fetch = fetch
    }

    /// The most URIs an ad keeps per event (impressions, errors, each tracking event) with its
    /// wrappers' added: twice what one document may list.
    public static let maxTrackers = 2 * AdServerLimits.maxListEntries

    /// What the answer resolves to.
    public struct Resolution: Sendable, Hashable {
        public var ads: [ResolvedAd] = []
        public var failures: [VASTFailure] = []
        /// Every wrapper request made, in order of the answer.
        public var requests: [String] = []

        /// Whether the answer's stand-alone ads may fill the break: not when a wrapper that came
        /// back empty said `fallbackOnNoAd="false"` (VAST 4.3 §3.19.1: the player moves on to the
        /// next ad of the pod, or asks again, instead of substituting one).
        public var allowsStandAloneAds: Bool { !self.failures.contains(where: \.refusesFallback) }
    }

    /// Resolves `document`, the answer to a request for `url`.
    public func resolve(_ document: VASTDocument, from url: URL?) async -> Resolution {
        await self.resolve(document, chain: url.map { [$0.absoluteString] } ?? [], mayWrap: true)
    }

    private func resolve(_ document: VASTDocument, chain: [String], mayWrap: Bool) async -> Resolution {
        // Each ad's own resolution, concurrently when two or more wrappers would wait on the
        // network, then joined in the answer's order.
        let parts: [Resolution]
        if document.ads.count(where: \.isWrapper) < 2 {
            var sequential: [Resolution] = []
            for ad in document.ads { sequential.append(await self.resolve(ad, chain: chain, mayWrap: mayWrap)) }
            parts = sequential
        } else {
            parts = await self.concurrently(document, chain: chain, mayWrap: mayWrap)
        }
        var resolution = Resolution()
        // What the document itself refused: ads with an unusable creative, and those past the
        // limit (reported, never fired at: nothing of them was read).
        resolution.failures = document.rejected.map {
            VASTFailure(adID: $0.id, error: $0.error, errors: $0.errors, wrappers: Array(chain.dropFirst()))
        }
        if document.unread > 0 {
            let message = "\(document.unread) more <Ad>s not read: at most \(AdServerLimits.maxAdsPerDocument) are read from one answer"
            resolution.failures.append(VASTFailure(adID: nil, error: VASTError(.schema, message), errors: [], wrappers: Array(chain.dropFirst())))
        }
        for part in parts {
            resolution.ads += part.ads
            resolution.failures += part.failures
            resolution.requests += part.requests
        }
        resolution.failures = Self.bounded(resolution.failures)
        return resolution
    }

    /// `failures` kept to ``AdServerLimits/maxFailuresPerBreak``: past it, one more says how many
    /// were dropped, with no error URIs — each is a request AdStitch would make to the ad
    /// server's error tracker (a fan-out of wrappers failed by the hundred, and their error
    /// pixels then flooded the server that sent them).
    static func bounded(_ failures: [VASTFailure]) -> [VASTFailure] {
        let most = AdServerLimits.maxFailuresPerBreak
        guard failures.count > most else { return failures }
        let dropped = failures.count - (most - 1)
        let summary = VASTFailure(
            adID: nil,
            error: VASTError(.wrapper, "\(dropped) more ads or wrappers failed; not listed, their error URIs not fired"),
            errors: [],
            wrappers: []
        )
        return Array(failures.prefix(most - 1)) + [summary]
    }

    private func concurrently(_ document: VASTDocument, chain: [String], mayWrap: Bool) async -> [Resolution] {
        await withTaskGroup(of: (Int, Resolution).self) { group in
            for (index, ad) in document.ads.enumerated() {
                group.addTask { (index, await self.resolve(ad, chain: chain, mayWrap: mayWrap)) }
            }
            var parts = [Resolution](repeating: Resolution(), count: document.ads.count)
            for await (index, part) in group { parts[index] = part }
            return parts
        }
    }

    private func resolve(_ ad: VASTAd, chain: [String], mayWrap: Bool) async -> Resolution {
        var resolution = Resolution()
        let wrappers = Array(chain.dropFirst())
        switch ad.kind {
        case .inline(let creatives):
            resolution.ads.append(
                ResolvedAd(
                    id: ad.id,
                    sequence: ad.sequence,
                    creatives: creatives,
                    impressions: ad.impressions,
                    errors: ad.errors,
                    tracking: ad.tracking,
                    wrappers: wrappers,
                    adSystem: ad.adSystem,
                    title: ad.title,
                    verifications: ad.verifications
                )
            )
            return resolution
        case .wrapper(let wrapper):
            func fail(_ code: VASTError.Code, _ message: String) -> Resolution {
                var failed = resolution
                failed.failures.append(VASTFailure(adID: ad.id, error: VASTError(code, message), errors: ad.errors, wrappers: wrappers))
                return failed
            }
            guard mayWrap else {
                return fail(.wrapperLimit, "a wrapper answered a wrapper whose followAdditionalWrappers is false")
            }
            guard wrappers.count < self.maxWrappers else {
                return fail(.wrapperLimit, "more than \(self.maxWrappers) wrappers deep (max_wrappers)")
            }
            guard let url = URL(string: wrapper.adTagURI), url.scheme == "http" || url.scheme == "https" else {
                return fail(.wrapper, "VASTAdTagURI \"\(wrapper.adTagURI)\" is not an http(s) URL")
            }
            guard !chain.contains(url.absoluteString) else {
                return fail(.wrapper, "a wrapper loop: \(url.absoluteString) is already in the chain")
            }
            guard !Task.isCancelled else { return fail(.wrapperTimeout, "\(url.absoluteString): not asked, the break's time is up") }
            guard self.budget.request() else {
                return fail(
                    .wrapperLimit,
                    "\(url.absoluteString): not asked, the break has made the \(self.budget.requests) ad server requests it may"
                )
            }
            resolution.requests.append(url.absoluteString)
            let data: Data
            do {
                data = try await self.fetch(url)
            } catch {
                // A fetch says what failed with a VASTError (a timeout: 301); anything else is 300.
                let code = (error as? VASTError)?.code ?? (error is CancellationError ? .wrapperTimeout : .wrapper)
                return fail(code, "\(url.absoluteString): \((error as? VASTError)?.message ?? "\(error)")")
            }
            guard self.budget.read(data.count) else {
                return fail(.wrapper, "\(url.absoluteString): its answer takes the break past the \(self.budget.bytes) bytes it may read")
            }
            let document: VASTDocument
            do {
                document = try VASTDocument(data)
            } catch {
                return fail(error.code, "\(url.absoluteString): \(error.message)")
            }
            var inner = await self.resolve(document, chain: chain + [url.absoluteString], mayWrap: wrapper.followAdditionalWrappers)
            resolution.requests += inner.requests
            // allowMultipleAds false: only the first stand-alone ad of the answer (VAST 4.3 §3.4.1).
            // A pod alone then leaves nothing: said as such, so the ad ops team knows which side to
            // fix (the wrapper's attribute, or the answer).
            var podRefused = 0
            if !wrapper.allowMultipleAds {
                let standAlone = inner.ads.filter { $0.sequence == nil }
                podRefused = standAlone.isEmpty ? inner.ads.count : 0
                inner.ads = Array(standAlone.prefix(1))
            }
            // The wrapper's trackers go with every failure under it too.
            resolution.failures += inner.failures.map { failure in
                var failure = failure
                failure.errors = ad.errors + failure.errors
                return failure
            }
            guard !inner.ads.isEmpty else {
                let said =
                    podRefused > 0
                    ? "\(url.absoluteString) answered a pod of \(podRefused) ads and no stand-alone ad, but the wrapper does not allow a pod "
                        + "(allowMultipleAds is not \"true\": VAST 4.3 §3.4.1): set allowMultipleAds=\"true\" on the wrapper, or answer a stand-alone ad"
                    : "\(url.absoluteString) answered no ad"
                var failure = VASTFailure(
                    adID: ad.id,
                    error: VASTError(.noAdsAfterWrapper, said),
                    errors: ad.errors + document.errors,
                    wrappers: wrappers + [url.absoluteString]
                )
                if !wrapper.fallbackOnNoAd {
                    failure.refusesFallback = true
                    failure.error.message += " (fallbackOnNoAd is false: the answer's stand-alone ads do not take its place)"
                }
                resolution.failures.append(failure)
                return resolution
            }
            // Every wrapper's trackers, outermost first, at most ``maxTrackers`` per event: each is a
            // request on the viewer's behalf, and a chain must not multiply them.
            let most = Self.maxTrackers
            for var found in inner.ads {
                found.id = ad.id ?? found.id
                found.sequence = ad.sequence ?? found.sequence
                found.impressions = Array((ad.impressions + found.impressions).prefix(most))
                found.errors = Array((ad.errors + found.errors).prefix(most))
                for (event, uris) in ad.tracking { found.tracking[event] = Array((uris + (found.tracking[event] ?? [])).prefix(most)) }
                found.verifications = Array((ad.verifications + found.verifications).prefix(most))
                resolution.ads.append(found)
            }
            return resolution
        }
    }
}

/// The ads of a resolved answer that fill a break (VAST 4.3 §2.3.3): the pod's ads in `sequence`
/// order, then stand-alone ads in the answer's order where the pod leaves time (or where one of
/// its ads cannot play); each whole, none longer than what is left.
public enum VASTBreakFill {
    public struct Choice: Sendable, Hashable {
        public var chosen: [ResolvedAd] = []
        /// The ads not played, each with why (the preview shows it; with beacons, its VAST error).
        public var skipped: [Skipped] = []
    }

    public struct Skipped: Sendable, Hashable {
        public var ad: ResolvedAd
        public var reason: String
        public var code: VASTError.Code?
    }

    /// The order ads are tried in: the pod's by `sequence` (ties in the answer's order), then
    /// the stand-alone ads in the answer's order.
    public static func playOrder(_ ads: [ResolvedAd]) -> [ResolvedAd] {
        let pod = ads.enumerated().filter { $0.element.sequence != nil }
            .sorted { ($0.element.sequence ?? 0, $0.offset) < ($1.element.sequence ?? 0, $1.offset) }.map(\.element)
        return pod + ads.filter { $0.sequence == nil }
    }

    /// - Parameters:
    ///   - playable: nil when the ad can play in the programme, else why not (and its code).
    ///   - standAlone: whether stand-alone ads may play (``VASTResolver/Resolution/allowsStandAloneAds``).
    public static func choose(
        _ ads: [ResolvedAd],
        duration: ExactDecimal,
        standAlone allowsStandAlone: Bool = true,
        playable: (ResolvedAd) -> (reason: String, code: VASTError.Code?)? = { _ in nil }
    ) -> Choice {
        var choice = Choice()
        var left = duration
        for ad in Self.playOrder(ads) {
            if ad.creative == nil {
                choice.skipped.append(Skipped(ad: ad, reason: "no linear creative", code: .noSupportedMediaFile))
                continue
            }
            if ad.sequence == nil, !allowsStandAlone {
                choice.skipped.append(
                    Skipped(
                        ad: ad,
                        reason: "a wrapper of the pod came back empty with fallbackOnNoAd=\"false\": stand-alone ads do not replace it",
                        code: nil
                    )
                )
                continue
            }
            if let (reason, code) = playable(ad) {
                choice.skipped.append(Skipped(ad: ad, reason: reason, code: code))
                continue
            }
            guard ad.duration <= left else {
                choice.skipped.append(Skipped(ad: ad, reason: "runs \(ad.duration) s; \(left) s of the break are left", code: nil))
                continue
            }
            choice.chosen.append(ad)
            left -= ad.duration
        }
        return choice
    }
}

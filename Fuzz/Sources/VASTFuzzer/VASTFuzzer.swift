// libFuzzer target over what an ad decision server sends (scripts/fuzz.sh): the input read as a
// VAST document and as a VMAP one; what reads is resolved — every wrapper answered with the same
// bytes, so a chain's loops, depth and fan-out meet the break's budget — mapped onto programmes of
// three lengths, and a break filled from it. Any input may be refused with a VASTError; none may
// crash, hang, or pass what AdServerLimits bounds.
import AdServer
import Foundation
import HLSPlaylist

@_cdecl("LLVMFuzzerTestOneInput")
public func vastFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    if let document = try? VASTDocument(bytes) {
        check(document)
        resolve(document, answering: bytes)
    }
    if let vmap = try? VMAPDocument(bytes) {
        precondition(vmap.breaks.count <= AdServerLimits.maxBreaksPerVMAP, "more VMAP breaks than may be read")
        for adBreak in vmap.breaks {
            for total in [ExactDecimal.zero, ExactDecimal(7_200), CampaignWeek.duration] {
                if let time = adBreak.offset.time(inProgrammeOf: total), case .percent = adBreak.offset {
                    precondition(time >= .zero && time <= total, "a percentage outside its programme")
                }
            }
            if case .inline(let document)? = adBreak.source { check(document) }
        }
    }
    // Clock values as text, the shape <Duration> and timeOffset share.
    if size <= 64, let text = String(bytes: bytes, encoding: .utf8), let time = VASTTime.duration(text) {
        precondition(time >= .zero && time < ExactDecimal((AdServerLimits.maxClockHours + 1) * 3600), "a clock value out of range")
    }
    return 0
}

/// A week: the longest programme (CampaignLimits.maxProgramDuration).
enum CampaignWeek {
    static let duration = ExactDecimal(7 * 86_400)
}

/// What a read document may hold.
func check(_ document: VASTDocument) {
    precondition(document.ads.count <= AdServerLimits.maxAdsPerDocument, "more ads than may be read")
    precondition(document.errors.count <= AdServerLimits.maxListEntries)
    for ad in document.ads {
        precondition(ad.impressions.count <= AdServerLimits.maxListEntries && ad.errors.count <= AdServerLimits.maxListEntries)
        precondition(ad.tracking.values.allSatisfy { $0.count <= AdServerLimits.maxListEntries })
        if case .inline(let creatives) = ad.kind {
            for creative in creatives {
                precondition(creative.duration > .zero && creative.duration <= AdServerLimits.maxCreativeDuration, "a duration out of range")
                _ = creative.conditioningSource
            }
        }
    }
}

/// The document resolved, every wrapper's request answered with `answer`, and a 30 s break
/// filled from what it resolved to, within the budget.
func resolve(_ document: VASTDocument, answering answer: Data) {
    let budget = AdServerLimits.Budget()
    let asked = Counter()
    let resolver = VASTResolver(maxWrappers: 10, budget: budget) { _ in
        asked.increment()
        return answer
    }
    let done = DispatchSemaphore(value: 0)
    let result = Box()
    Task {
        result.set(await resolver.resolve(document, from: URL(string: "https://ads.fuzz/vast")))
        done.signal()
    }
    done.wait()
    guard let resolution = result.value else { return }
    precondition(asked.value <= AdServerLimits.maxRequestsPerBreak, "more requests than a break may make")
    precondition(resolution.failures.count <= AdServerLimits.maxFailuresPerBreak, "more failures than a break reports")
    for ad in resolution.ads {
        precondition(ad.impressions.count <= VASTResolver.maxTrackers && ad.tracking.values.allSatisfy { $0.count <= VASTResolver.maxTrackers })
    }
    let choice = VASTBreakFill.choose(resolution.ads, duration: ExactDecimal(30), standAlone: resolution.allowsStandAloneAds)
    precondition(choice.chosen.map(\.duration).reduce(.zero, +) <= ExactDecimal(30), "a break overfilled")
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { self.lock.withLock { self.count += 1 } }
    var value: Int { self.lock.withLock { self.count } }
}

final class Box: @unchecked Sendable {
    private let lock = NSLock()
    private var resolution: VASTResolver.Resolution?
    func set(_ value: VASTResolver.Resolution) { self.lock.withLock { self.resolution = value } }
    var value: VASTResolver.Resolution? { self.lock.withLock { self.resolution } }
}

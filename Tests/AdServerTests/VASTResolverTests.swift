import AdServer
import Foundation
import HLSPlaylist
import Synchronization
import Testing

/// Answers by URL from memory, recording every request.
final class MemoryAdServer: Sendable {
    let answers: [String: Data]
    private let log = Mutex<[String]>([])

    init(_ answers: [String: Data]) { self.answers = answers }

    var requests: [String] { self.log.withLock { $0 } }

    var fetch: VASTResolver.Fetch {
        { url in
            self.log.withLock { $0.append(url.absoluteString) }
            guard let data = self.answers[url.absoluteString] else { throw VASTError(.wrapper, "404 for \(url.absoluteString)") }
            return data
        }
    }
}

@Suite("VAST wrappers and pods")
struct VASTResolverTests {
    static func wrapper(_ id: String, to uri: String, attributes: String = "", sequence: Int? = nil) -> Data {
        let sequence = sequence.map { " sequence=\"\($0)\"" } ?? ""
        return Data(
            """
            <VAST version="4.3"><Ad id="\(id)"\(sequence)><Wrapper \(attributes)><AdSystem>W</AdSystem>
            <Impression><![CDATA[https://w.example/\(id)/imp]]></Impression><Error><![CDATA[https://w.example/\(id)/err?c=[ERRORCODE]]]></Error>
            <VASTAdTagURI><![CDATA[\(uri)]]></VASTAdTagURI></Wrapper></Ad></VAST>
            """.utf8
        )
    }

    @Test("a two-deep chain reaches the inline ad with every wrapper's impressions, errors and tracking, outermost first")
    func chainKeepsEveryTracker() async throws {
        let server = MemoryAdServer([
            "https://dsp.example/vast/middle": try Fixture.data("wrapper-middle.xml"),
            "https://ads.example/vast/inline": try Fixture.data("inline-4.3.xml"),
        ])
        let outer = try Fixture.vast("wrapper-outer.xml")
        let resolution = await VASTResolver(fetch: server.fetch).resolve(outer, from: URL(string: "https://exchange.example/vast"))
        #expect(resolution.failures.isEmpty, "\(resolution.failures)")
        let ad = try #require(resolution.ads.first)
        #expect(resolution.ads.count == 1)
        #expect(ad.id == "outer" && ad.sequence == 1, "the outermost ad's id and pod place")
        #expect(ad.identity == "ABCD1234000H" && ad.duration == ExactDecimal(significand: 1536, exponent: 2))
        #expect(ad.impressions.first == "https://exchange.example/imp" && ad.impressions.dropFirst().first == "https://dsp.example/imp")
        #expect(ad.impressions.count == 4)
        #expect(ad.tracking["start"] == ["https://exchange.example/start", "https://dsp.example/start", "https://track.example/start?ad=4711"])
        #expect(ad.tracking["complete"] == ["https://dsp.example/complete", "https://track.example/complete?ad=4711"])
        #expect(ad.errors.count == 3)
        #expect(ad.wrappers == ["https://dsp.example/vast/middle", "https://ads.example/vast/inline"])
        #expect(resolution.requests == ["https://dsp.example/vast/middle", "https://ads.example/vast/inline"])
        #expect(server.requests == resolution.requests)
    }

    @Test(
        "wrapper faults: too deep (302), a loop (300), a wrapper where none may follow (302), an empty answer (303), a failed fetch (300), broken XML (100)"
    )
    func wrapperFaults() async throws {
        let inline = try Fixture.data("inline-4.3.xml")
        let cases: [(name: String, answers: [String: Data], maxWrappers: Int, code: VASTError.Code)] = [
            ("too deep", ["https://a.example/1": Self.wrapper("w1", to: "https://a.example/2"), "https://a.example/2": inline], 1, .wrapperLimit),
            ("loop", ["https://a.example/1": Self.wrapper("w1", to: "https://a.example/root")], 5, .wrapper),
            (
                "no more wrappers",
                [
                    "https://a.example/1": Self.wrapper("w1", to: "https://a.example/2", attributes: "followAdditionalWrappers=\"false\""),
                    "https://a.example/2": inline,
                ],
                5, .wrapperLimit
            ),
            ("empty", ["https://a.example/1": try Fixture.data("empty.xml")], 5, .noAdsAfterWrapper),
            ("404", [:], 5, .wrapper),
            ("broken", ["https://a.example/1": Data("<VAST><Ad>".utf8)], 5, .xmlParsing),
        ]
        for item in cases {
            let server = MemoryAdServer(item.answers)
            // The root answer wraps a.example/1 (for "loop", a.example/1 wraps the root again; for
            // "no more wrappers", a.example/1 may not be answered by a wrapper and is).
            let rootAnswer =
                item.name == "no more wrappers"
                ? Self.wrapper("root", to: "https://a.example/1", attributes: "followAdditionalWrappers=\"false\"")
                : Self.wrapper("root", to: "https://a.example/1")
            let root = try VASTDocument(rootAnswer)
            let resolution = await VASTResolver(maxWrappers: item.maxWrappers, fetch: server.fetch).resolve(
                root,
                from: URL(string: "https://a.example/root")
            )
            #expect(resolution.ads.isEmpty, "\(item.name)")
            #expect(resolution.failures.map(\.error.code).contains(item.code), "\(item.name): \(resolution.failures.map(\.error))")
            // Every wrapper's error URI of the chain is there to fire.
            #expect(resolution.failures.first?.errors.first == "https://w.example/root/err?c=[ERRORCODE]", "\(item.name)")
        }
    }

    @Test("allowMultipleAds false takes the first stand-alone ad of a pod answer; true keeps the pod, in sequence")
    func multipleAds() async throws {
        let pod = try Fixture.data("pod-4.3.xml")
        for allow in [false, true] {
            let server = MemoryAdServer(["https://a.example/pod": pod])
            let root = try VASTDocument(Self.wrapper("root", to: "https://a.example/pod", attributes: "allowMultipleAds=\"\(allow)\""))
            let resolution = await VASTResolver(fetch: server.fetch).resolve(root, from: nil)
            #expect(resolution.ads.map(\.identity) == (allow ? ["POD-TWO", "POD-ONE", "cs", "POD-THREE"] : ["cs"]), "allowMultipleAds=\(allow)")
        }
    }

    @Test(
        "a pod answered to a wrapper that allows none: the failure says so (allowMultipleAds, VAST 4.3 §3.4.1) and what to change; an empty answer still says it answered no ad"
    )
    func podToSingleAdWrapper() async throws {
        // The pod fixture without its stand-alone ad: pods only.
        let text = String(decoding: try Fixture.data("pod-4.3.xml"), as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let spare = try #require(lines.firstIndex { $0.contains("<Ad id=\"spare\">") })
        let podOnly = (lines[..<spare] + lines[(spare + 3)...]).joined(separator: "\n")
        try #require(!podOnly.contains("spare") && podOnly.contains("pod-3"))
        for attributes in ["", "allowMultipleAds=\"false\""] {
            let server = MemoryAdServer([
                "https://a.example/pod": Data(podOnly.utf8), "https://a.example/empty": Data("<VAST version=\"4.3\"/>".utf8),
            ])
            let root = try VASTDocument(Self.wrapper("root", to: "https://a.example/pod", attributes: attributes))
            let resolution = await VASTResolver(fetch: server.fetch).resolve(root, from: nil)
            #expect(resolution.ads.isEmpty)
            let message = resolution.failures.map(\.error.description).joined(separator: "\n")
            #expect(resolution.failures.map(\.error.code) == [.noAdsAfterWrapper], "\(message)")
            #expect(message.contains("answered a pod of 3 ads") && message.contains("allowMultipleAds") && message.contains("§3.4.1"), "\(message)")
            #expect(message.contains("set allowMultipleAds=\"true\" on the wrapper"), "\(message)")
            let empty = await VASTResolver(fetch: server.fetch).resolve(
                try VASTDocument(Self.wrapper("root", to: "https://a.example/empty", attributes: attributes)),
                from: nil
            )
            let said = empty.failures.map(\.error.description).joined(separator: "\n")
            #expect(said.contains("answered no ad") && !said.contains("pod"), "\(said)")
        }
    }

    @Test("a pod fills in sequence order, then stand-alone ads; an ad that cannot play or runs past the break is skipped with why")
    func podFill() async throws {
        // An answer without wrappers resolves to its own ads, in the answer's order.
        let resolution = await VASTResolver(fetch: MemoryAdServer([:]).fetch).resolve(try Fixture.vast("pod-4.3.xml"), from: nil).ads
        #expect(resolution.map(\.id) == ["pod-2", "pod-1", "spare", "pod-3"])
        // Pod ads of HLS only play: three (MP4) is skipped with 403, and the spare fills its place.
        let hlsOnly = { (ad: ResolvedAd) -> (reason: String, code: VASTError.Code?)? in
            ad.creative?.mediaFiles.contains(where: \.isHLS) == true ? nil : ("no HLS media file", .noSupportedMediaFile)
        }
        let choice = VASTBreakFill.choose(resolution, duration: ExactDecimal(12), playable: hlsOnly)
        #expect(choice.chosen.map(\.id) == ["pod-1", "pod-2", "spare"])
        #expect(choice.skipped.map(\.ad.id) == ["pod-3"] && choice.skipped.first?.code == .noSupportedMediaFile)
        // A shorter break: two keeps its place only while it fits; the spare still fits after one.
        let short = VASTBreakFill.choose(resolution, duration: ExactDecimal(7), playable: hlsOnly)
        #expect(short.chosen.map(\.id) == ["pod-1", "spare"])
        #expect(short.skipped.first { $0.ad.id == "pod-2" }?.reason == "runs 6 s; 3 s of the break are left")
    }
    @Test("fallbackOnNoAd: a pod wrapper that comes back empty lets the answer's stand-alone ads take its place unless it says false")
    func fallbackOnNoAd() async throws {
        let empty = Data(#"<VAST version="4.3"/>"#.utf8)
        for fallback in [true, false] {
            // The pod: a wrapper (sequence 1) to an empty answer, then the pod and spare of the fixture.
            let pod = try String(decoding: Fixture.data("pod-4.3.xml"), as: UTF8.self)
            let wrapped = pod.replacingOccurrences(
                of: "<VAST version=\"4.3\">",
                with: """
                    <VAST version="4.3"><Ad id="empty" sequence="1"><Wrapper fallbackOnNoAd="\(fallback)"><AdSystem>W</AdSystem>
                    <VASTAdTagURI><![CDATA[https://a.example/empty]]></VASTAdTagURI></Wrapper></Ad>
                    """
            )
            let server = MemoryAdServer(["https://a.example/empty": empty])
            let resolution = await VASTResolver(fetch: server.fetch).resolve(try VASTDocument(Data(wrapped.utf8)), from: nil)
            #expect(resolution.allowsStandAloneAds == fallback)
            #expect(resolution.failures.map(\.adID) == ["empty"] && resolution.failures.first?.error.code == .noAdsAfterWrapper)
            let choice = VASTBreakFill.choose(resolution.ads, duration: ExactDecimal(30), standAlone: resolution.allowsStandAloneAds)
            #expect(choice.chosen.contains { $0.id == "spare" } == fallback, "fallbackOnNoAd=\(fallback): \(choice.chosen.map(\.id))")
            if !fallback {
                #expect(choice.skipped.first { $0.ad.id == "spare" }?.reason.contains("fallbackOnNoAd") == true)
            }
        }
    }
}

@Suite("VAST resolving within a break's budget")
struct VASTBudgetTests {
    /// A fan-out: every answer at `depth` > 0 is `width` wrappers (allowMultipleAds) to answers one
    /// level shallower, each its own URL; depth 0 is one inline ad.
    final class FanOut: Sendable {
        let width: Int
        let bytes = Mutex(0)
        let log = Mutex<[String]>([])

        init(width: Int) { self.width = width }

        var fetch: VASTResolver.Fetch {
            { url in
                self.log.withLock { $0.append(url.absoluteString) }
                let parts = url.path.split(separator: "/")
                let depth = Int(parts.last ?? "0") ?? 0
                let answer: String
                if depth == 0 {
                    answer =
                        "<VAST version=\"4.3\"><Ad><InLine><Creatives><Creative><Linear><Duration>00:00:01.920</Duration></Linear></Creative></Creatives></InLine></Ad></VAST>"
                } else {
                    answer =
                        "<VAST version=\"4.3\">"
                        + (0..<self.width).map { index in
                            "<Ad id=\"w\(index)\"><Wrapper allowMultipleAds=\"true\"><VASTAdTagURI>https://fan.example\(url.path)-\(index)/\(depth - 1)</VASTAdTagURI></Wrapper></Ad>"
                        }.joined() + "</VAST>"
                }
                self.bytes.withLock { $0 += answer.utf8.count }
                return Data(answer.utf8)
            }
        }
    }

    @Test(
        "a wrapper answer of 50 wrappers six deep makes at most the break's requests (it made 1,585), its failures say why, and what was reached plays"
    )
    func fanOutIsBounded() async throws {
        let server = FanOut(width: 50)
        let root = try VASTDocument(try await server.fetch(URL(string: "https://fan.example/r/6")!))
        server.log.withLock { $0.removeAll() }
        let budget = AdServerLimits.Budget()
        let resolution = await VASTResolver(maxWrappers: 10, budget: budget, fetch: server.fetch).resolve(
            root,
            from: URL(string: "https://fan.example/r/6")
        )
        let asked = server.log.withLock { $0 }
        #expect(asked.count <= AdServerLimits.maxRequestsPerBreak, "\(asked.count) requests")
        #expect(resolution.requests.count == asked.count)
        #expect(resolution.failures.contains { $0.error.code == .wrapperLimit && $0.error.message.contains("requests it may") })
        #expect(!budget.request() || asked.count < AdServerLimits.maxRequestsPerBreak)
    }

    @Test("a break's bytes are bounded too: answers past them are refused, whatever their number")
    func bytesAreBounded() async throws {
        let server = FanOut(width: 20)
        let root = try VASTDocument(try await server.fetch(URL(string: "https://fan.example/r/3")!))
        let budget = AdServerLimits.Budget(requests: 1_000, bytes: 8_000)
        let resolution = await VASTResolver(maxWrappers: 10, budget: budget, fetch: server.fetch).resolve(
            root,
            from: URL(string: "https://fan.example/r/3")
        )
        #expect(resolution.failures.contains { $0.error.message.contains("bytes it may read") }, "\(resolution.failures.prefix(3))")
        #expect(server.log.withLock { $0.count } < 1_000)
    }

    @Test("a cancelled resolve (the break's deadline) asks nothing more")
    func cancellationStopsAsking() async throws {
        let server = FanOut(width: 4)
        let root = try VASTDocument(try await server.fetch(URL(string: "https://fan.example/r/3")!))
        server.log.withLock { $0.removeAll() }
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await VASTResolver(maxWrappers: 10, fetch: server.fetch).resolve(root, from: URL(string: "https://fan.example/r/3"))
        }
        let resolution = await task.value
        #expect(server.log.withLock { $0.isEmpty })
        #expect(resolution.failures.allSatisfy { $0.error.code == .wrapperTimeout })
    }
}

import AdServer
import Benchmark
import Foundation

/// Parse and resolve what an ad server answers for one break (issue: ≤ 200 µs): a wrapper that
/// leads through a second wrapper to a pod of three inline ads, the answers in memory.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal],
        warmupIterations: 10,
        scalingFactor: .one,
        maxDuration: .seconds(5),
        maxIterations: 10_000
    )

    let answers = Answers.chain
    let fetch: VASTResolver.Fetch = { url in
        guard let data = answers[url.absoluteString] else { throw VASTError(.wrapper, "no answer for \(url)") }
        return data
    }
    let first = answers["https://ads.example/vast"]!

    let pod = Answers.pod
    Benchmark("Parse a 3-ad pod answer") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try VASTDocument(pod))
        }
    }

    // Per resolve, a thousand to a sample: the harness starts a task per sample and waits on a
    // semaphore for it, a thread hand-off that costs more than the resolution on this VM and is
    // not what a session start pays (its task already runs).
    Benchmark(
        "Parse and resolve a 3-ad pod behind 2 wrappers, per resolve",
        configuration: .init(scalingFactor: .kilo, maxDuration: .seconds(10), maxIterations: 100)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            let document = try VASTDocument(first)
            let resolution = await VASTResolver(maxWrappers: 5, fetch: fetch).resolve(document, from: URL(string: "https://ads.example/vast"))
            precondition(resolution.ads.count == 3)
            blackHole(resolution)
        }
    }

    Benchmark("Parse and resolve a 3-ad pod behind 2 wrappers") { benchmark in
        for _ in benchmark.scaledIterations {
            let document = try VASTDocument(first)
            let resolution = await VASTResolver(maxWrappers: 5, fetch: fetch).resolve(document, from: URL(string: "https://ads.example/vast"))
            precondition(resolution.ads.count == 3)
            blackHole(resolution)
        }
    }
}

enum Answers {
    static func wrapper(_ next: String) -> Data {
        Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <VAST version="4.3"><Ad id="w"><Wrapper allowMultipleAds="true"><AdSystem>Exchange</AdSystem>
            <Impression><![CDATA[https://exchange.example/imp?cb=[CACHEBUSTING]]]></Impression>
            <Error><![CDATA[https://exchange.example/err?c=[ERRORCODE]]]></Error>
            <VASTAdTagURI><![CDATA[\(next)]]></VASTAdTagURI>
            <Creatives><Creative><Linear><TrackingEvents>
            <Tracking event="start"><![CDATA[https://exchange.example/start]]></Tracking>
            <Tracking event="complete"><![CDATA[https://exchange.example/complete]]></Tracking>
            </TrackingEvents></Linear></Creative></Creatives></Wrapper></Ad></VAST>
            """.utf8
        )
    }

    static var pod: Data {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<VAST version=\"4.3\">"
        for index in 1...3 {
            text += """
                <Ad id="ad-\(index)" sequence="\(index)"><InLine><AdSystem>Server</AdSystem><AdTitle>Ad \(index)</AdTitle>
                <Impression><![CDATA[https://track.example/imp?ad=\(index)]]></Impression>
                <Error><![CDATA[https://track.example/err?ad=\(index)&c=[ERRORCODE]]]></Error>
                <Creatives><Creative id="c\(index)"><UniversalAdId idRegistry="ad-id.org">UAID-\(index)</UniversalAdId><Linear>
                <Duration>00:00:15.000</Duration><TrackingEvents>
                <Tracking event="start"><![CDATA[https://track.example/start?ad=\(index)]]></Tracking>
                <Tracking event="firstQuartile"><![CDATA[https://track.example/q1?ad=\(index)]]></Tracking>
                <Tracking event="midpoint"><![CDATA[https://track.example/mid?ad=\(index)]]></Tracking>
                <Tracking event="thirdQuartile"><![CDATA[https://track.example/q3?ad=\(index)]]></Tracking>
                <Tracking event="complete"><![CDATA[https://track.example/complete?ad=\(index)]]></Tracking>
                </TrackingEvents><MediaFiles>
                <MediaFile delivery="progressive" type="video/mp4" width="1920" height="1080"><![CDATA[https://cdn.example/\(index).mp4]]></MediaFile>
                <MediaFile delivery="streaming" type="application/x-mpegURL"><![CDATA[https://cdn.example/\(index)/master.m3u8]]></MediaFile>
                </MediaFiles></Linear></Creative></Creatives></InLine></Ad>
                """
        }
        return Data((text + "</VAST>").utf8)
    }

    static let chain: [String: Data] = [
        "https://ads.example/vast": Self.wrapper("https://dsp.example/vast"),
        "https://dsp.example/vast": Self.wrapper("https://ssp.example/pod"),
        "https://ssp.example/pod": Self.pod,
    ]
}

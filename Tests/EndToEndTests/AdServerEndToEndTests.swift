import AdOrigin
import AdServer
import Foundation
import HLSPlaylist
import Testing

/// VAST answers read over HTTP from `scripts/test-ad-server.py` with the origin client, wrappers
/// followed: the chain and pod shapes ad servers send, and each fault (slow, 500, malformed,
/// empty, a loop, an MP4-only creative) ending as a failure with its VAST code, in bounded time.
@Suite("Ad server answers over HTTP", .serialized)
struct AdServerEndToEndTests {
    final class Server: Sendable {
        let process: BackgroundProcess
        let base: String

        init() async throws {
            let script = Repository.root.appendingPathComponent("scripts/test-ad-server.py").path
            self.process = try BackgroundProcess("python3", ["-u", script, "--media-base", "http://127.0.0.1:1/ads"])
            guard let line = await self.process.waitForLine(containing: "Serving HTTP"), let port = line.split(separator: " ").last
            else { throw Tool.Missing(name: "scripts/test-ad-server.py") }
            self.base = "http://127.0.0.1:\(port)"
        }

        /// The paths requested so far, in order.
        func requests() async throws -> [String] {
            let client = OriginClient()
            defer { Task { try? await client.shutdown() } }
            guard case .fetched(let answer) = try await client.fetch(URL(string: self.base + "/requests")!) else { return [] }
            let entries = try JSONSerialization.jsonObject(with: Data(answer.bytes)) as? [[String: Any]] ?? []
            return entries.compactMap { $0["path"] as? String }
        }
    }

    /// A fetch through the origin client, one try, `timeout` each: its failures as VAST codes
    /// (a timeout 301, anything else 300).
    static func fetch(_ client: OriginClient, timeout: Duration = .seconds(2)) -> VASTResolver.Fetch {
        var settings = OriginSettings()
        settings.timeout = timeout
        settings.attempts = 1
        return { [settings] url in
            do {
                guard case .fetched(let answer) = try await client.fetch(url, settings: settings) else { return Data() }
                return Data(answer.bytes)
            } catch let error as OriginError {
                throw VASTError(error.reason == .timeout ? .wrapperTimeout : .wrapper, error.description)
            }
        }
    }

    /// The answer at `path` resolved: the first request through `fetch` too.
    static func resolve(_ server: Server, _ path: String, fetch: @escaping VASTResolver.Fetch) async throws -> VASTResolver.Resolution {
        let url = try #require(URL(string: server.base + path))
        let document = try VASTDocument(try await fetch(url))
        return await VASTResolver(maxWrappers: 3, fetch: fetch).resolve(document, from: url)
    }

    @Test("two wrappers to a pod and a stand-alone ad: every request made once, in order; the pod fills in sequence with every wrapper's trackers")
    func wrapperChainToPod() async throws {
        let server = try await Server()
        let client = OriginClient()
        defer { Task { try? await client.shutdown() } }
        let pod = "/vast/pod?ads=alpha,bravo&dur=4,6&standalone=spare&sdur=2"
        let path = "/vast/wrapper?depth=2&to=" + (pod.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? pod)
        let resolution = try await Self.resolve(server, path, fetch: Self.fetch(client))
        #expect(resolution.failures.isEmpty, "\(resolution.failures)")
        #expect(resolution.ads.map(\.identity) == ["UAID-alpha", "UAID-bravo", "UAID-spare"])
        #expect(resolution.ads.allSatisfy { $0.wrappers.count == 2 && $0.impressions.count == 3 })
        #expect(try await server.requests() == ["/vast/wrapper", "/vast/wrapper", "/vast/pod"])
        let choice = VASTBreakFill.choose(resolution.ads, duration: ExactDecimal(10))
        #expect(choice.chosen.map(\.identity) == ["UAID-alpha", "UAID-bravo"])
        #expect(choice.skipped.map(\.ad.identity) == ["UAID-spare"])
    }

    @Test("faults end as failures with their VAST codes, each within the fetch timeout; an MP4-only creative is skipped with 403")
    func faults() async throws {
        let server = try await Server()
        let client = OriginClient()
        defer { Task { try? await client.shutdown() } }
        let fetch = Self.fetch(client, timeout: .milliseconds(500))
        let cases: [(String, VASTError.Code)] = [
            ("/vast/slow%3Fms%3D3000%26to%3D%252Fvast%252Finline", .wrapperTimeout),
            ("/vast/error500", .wrapper),
            ("/vast/malformed", .xmlParsing),
            ("/vast/empty", .noAdsAfterWrapper),
            ("/vast/loop", .wrapper),
        ]
        for (target, code) in cases {
            let started = ContinuousClock.now
            let resolution = try await Self.resolve(server, "/vast/wrapper?depth=1&to=" + target, fetch: fetch)
            let elapsed = ContinuousClock.now - started
            #expect(resolution.ads.isEmpty, "\(target)")
            #expect(resolution.failures.map(\.error.code).contains(code), "\(target): \(resolution.failures.map(\.error))")
            #expect(elapsed < .seconds(2), "\(target) took \(elapsed)")
        }
        let mp4 = try await Self.resolve(server, "/vast/mp4?ad=film&dur=10", fetch: fetch)
        let choice = VASTBreakFill.choose(mp4.ads, duration: ExactDecimal(30)) { ad in
            ad.creative?.mediaFiles.contains(where: \.isHLS) == true ? nil : ("no HLS media file (an MP4 needs conditioning)", .noSupportedMediaFile)
        }
        #expect(choice.chosen.isEmpty && choice.skipped.first?.code == .noSupportedMediaFile)
    }

    @Test("VMAP over HTTP: each break's ad tag resolves to its ads")
    func vmap() async throws {
        let server = try await Server()
        let client = OriginClient()
        defer { Task { try? await client.shutdown() } }
        let fetch = Self.fetch(client)
        let url = try #require(
            URL(string: server.base + "/vmap?pre=/vast/inline%3Fad%3Dpre%26dur%3D6&mid=600:/vast/pod%3Fads%3Da,b&post=/vast/empty")
        )
        let vmap = try VMAPDocument(try await fetch(url))
        #expect(vmap.breaks.map(\.offset) == [.start, .time(ExactDecimal(600)), .end])
        var identities: [[String]] = []
        for adBreak in vmap.breaks {
            guard case .adTag(let tag)? = adBreak.source, let tagURL = URL(string: tag) else {
                Issue.record("break \(adBreak.id ?? "") has no ad tag")
                continue
            }
            let document = try VASTDocument(try await fetch(tagURL))
            identities.append(await VASTResolver(fetch: fetch).resolve(document, from: tagURL).ads.compactMap(\.identity))
        }
        #expect(identities == [["UAID-pre"], ["UAID-a", "UAID-b"], []])
    }
}

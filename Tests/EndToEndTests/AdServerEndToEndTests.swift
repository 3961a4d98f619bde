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

        init(mediaBase: String = "http://127.0.0.1:1/ads") async throws {
            let script = Repository.root.appendingPathComponent("scripts/test-ad-server.py").path
            self.process = try BackgroundProcess("python3", ["-u", script, "--media-base", mediaBase])
            guard let line = await self.process.waitForLine(containing: "Serving HTTP"), let port = line.split(separator: " ").last
            else { throw Tool.Missing(name: "scripts/test-ad-server.py") }
            self.base = "http://127.0.0.1:\(port)"
        }

        /// The paths requested so far, in order (with their queries: `path?query`).
        func requests(queries: Bool = false) async throws -> [String] {
            let client = OriginClient()
            defer { Task { try? await client.shutdown() } }
            guard case .fetched(let answer) = try await client.fetch(URL(string: self.base + "/requests")!) else { return [] }
            let entries = try JSONSerialization.jsonObject(with: Data(answer.bytes)) as? [[String: Any]] ?? []
            return entries.compactMap { entry in
                guard let path = entry["path"] as? String else { return nil }
                return queries ? path + "?" + (entry["query"] as? String ?? "") : path
            }
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

    /// The answer at `path` resolved, and how long the resolver took. The first request (the
    /// test's own, not the resolver's) goes through `first`: a loaded CI machine may be slow to
    /// answer it, and only the resolver's bounds are under test.
    static func resolve(
        _ server: Server,
        _ path: String,
        first: VASTResolver.Fetch? = nil,
        fetch: @escaping VASTResolver.Fetch
    ) async throws -> (VASTResolver.Resolution, Duration) {
        let url = try #require(URL(string: server.base + path))
        let document = try VASTDocument(try await (first ?? fetch)(url))
        let started = ContinuousClock.now
        let resolution = await VASTResolver(maxWrappers: 3, fetch: fetch).resolve(document, from: url)
        return (resolution, ContinuousClock.now - started)
    }

    @Test("two wrappers to a pod and a stand-alone ad: every request made once, in order; the pod fills in sequence with every wrapper's trackers")
    func wrapperChainToPod() async throws {
        let server = try await Server()
        let client = OriginClient()
        defer { Task { try? await client.shutdown() } }
        let pod = "/vast/pod?ads=alpha,bravo&dur=4,6&standalone=spare&sdur=2"
        let path = "/vast/wrapper?depth=2&to=" + (pod.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? pod)
        let (resolution, _) = try await Self.resolve(server, path, fetch: Self.fetch(client))
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
        let fetch = Self.fetch(client, timeout: .seconds(1))
        let first = Self.fetch(client, timeout: .seconds(10))
        let cases: [(String, VASTError.Code)] = [
            ("/vast/slow%3Fms%3D5000%26to%3D%252Fvast%252Finline", .wrapperTimeout),
            ("/vast/error500", .wrapper),
            ("/vast/malformed", .xmlParsing),
            ("/vast/empty", .noAdsAfterWrapper),
            ("/vast/loop", .wrapper),
        ]
        for (target, code) in cases {
            let (resolution, elapsed) = try await Self.resolve(server, "/vast/wrapper?depth=1&to=" + target, first: first, fetch: fetch)
            #expect(resolution.ads.isEmpty, "\(target)")
            #expect(resolution.failures.map(\.error.code).contains(code), "\(target): \(resolution.failures.map(\.error))")
            #expect(elapsed < .seconds(3), "\(target) took \(elapsed)")
        }
        let (mp4, _) = try await Self.resolve(server, "/vast/mp4?ad=film&dur=10", first: first, fetch: fetch)
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

extension RealClients {
    /// `adstitch stitch` on a campaign with `ad_server:` (the evening-news demo on an origin, the
    /// test ad server answering a pod of two of its ads as HLS creatives): each break asks once, its
    /// creatives play first in pod order, the fallback pools fill what is left, and a failing ad
    /// server leaves the breaks to the pools — the session stitched either way.
    @Suite("Ad server breaks through adstitch stitch", .serialized)
    struct AdServerStitchTests {
        /// Stitches session `s-ad` of the demo with `ad_server: { trusted_hosts: [127.0.0.1], vast: <ad server><path> … }`: the
        /// command's output and the boundary manifest's ad ids per break.
        /// With `decode`, GStreamer decodes the stitched first variant (its programme and creatives on
        /// the origin) while the servers run: every frame and second of audio of the session.
        static func stitch(
            _ path: String,
            request: String = "vast",
            decode: Bool = false
        ) async throws -> (output: String, ads: [String: [String]], requests: [String]) {
            let origin = try await StaticServer(root: RemoteCampaignTests.demo)
            let server = try await AdServerEndToEndTests.Server(mediaBase: origin.base.absoluteString + "media/ads")
            let file = try RemoteCampaignTests.campaign(base: origin.base.absoluteString) {
                $0 + "\nad_server: { trusted_hosts: [127.0.0.1], \(request): \"\(server.base)\(path)\", timeout: 2, fallback: [house] }\n"
            }
            let out = file.deletingLastPathComponent().appendingPathComponent("out")
            defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
            let result = try await CLITests().adstitch(["stitch", file.path, "--out", out.path, "--session", "s-ad"])
            #expect(result.status == 0, "\(result.output)")
            let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("boundaries.json"))) as? [String: Any]
            if decode, let duration = (manifest?["duration"] as? NSNumber).flatMap({ ExactDecimal("\($0)") }) {
                let decoded = try await Decoded(out.appendingPathComponent("v0.m3u8"), scratch: out)
                #expect(decoded.videoFrames == RealClientTests.frames(duration, fps: 25), "\(decoded.videoFrames) frames for \(duration) s")
                // As for the demo (RealClientTests): each piece's audio may run up to 50 ms past its video (AAC frames).
                let pieces = ((manifest?["boundaries"] as? [Any])?.count ?? 1) - 1
                #expect(
                    decoded.audioSeconds >= duration.doubleValue - 0.001 && decoded.audioSeconds <= duration.doubleValue + Double(pieces) * 0.05,
                    "\(decoded.audioSeconds) s of audio for \(duration) s in \(pieces) pieces"
                )
            }
            var ads: [String: [String]] = [:]
            for item in manifest?["breaks"] as? [[String: Any]] ?? [] {
                guard let id = item["id"] as? String else { continue }
                ads[id] = (item["ads"] as? [[String: Any]] ?? []).filter { $0["slate"] as? Bool != true }.compactMap { $0["id"] as? String }
            }
            return (result.output, ads, try await server.requests(queries: true))
        }

        @Test(
            "each break asks once with its session and place; the pod plays first, in order, each whole; the fallback pool fills the rest; GStreamer decodes it all"
        )
        func podsPlayFirst() async throws {
            let (output, ads, requests) = try await Self.stitch(
                "/vast/pod?ads=bravo,delta&dur=3.84,1.92&sid={session}&pos={break.position}",
                decode: true
            )
            #expect(ads["preroll"] == ["UAID-bravo", "UAID-delta"], "\(ads)\n\(output)")
            #expect(Array(ads["mid-1"]?.prefix(2) ?? []) == ["UAID-bravo", "UAID-delta"])
            #expect(ads["mid-1"]?.dropFirst(2).allSatisfy { ["delta", "bravo"].contains($0) } == true, "the house pool fills the rest")
            // 4 s: the 3.84 s creative plays, the 1.92 s one no longer fits.
            #expect(ads["postroll"] == ["UAID-bravo"])
            #expect(output.contains("ad server: break postroll:") && output.contains("skipped UAID-delta: runs 1.92 s; 0.16 s of the break are left"))
            #expect(requests.count == 3, "\(requests)")
            #expect(Set(requests.compactMap { $0.components(separatedBy: "pos=").last }) == ["pre", "mid", "post"])
            #expect(requests.allSatisfy { $0.contains("sid=s-ad") })
        }

        @Test("VMAP: one request for the session; its pre-roll, mid-roll (by time) and post-roll fill the campaign's breaks at those places")
        func vmapBreaks() async throws {
            let pre = "/vast/pod?ads=bravo,delta&dur=3.84,1.92".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let mid = "/vast/inline?ad=charlie&dur=7.68".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            // act-1 runs 7.68 s: a mid-roll at 7 s is the break after it (within 2 s).
            let (output, ads, requests) = try await Self.stitch("/vmap?sid={session}&pre=\(pre)&mid=7:\(mid)&post=/vast/empty", request: "vmap")
            #expect(ads["preroll"] == ["UAID-bravo", "UAID-delta"], "\(ads)\n\(output)")
            #expect(ads["mid-1"]?.first == "UAID-charlie")
            #expect(ads["postroll"]?.allSatisfy { ["delta", "bravo"].contains($0) } == true, "an empty answer: the fallback pool")
            #expect(
                requests.map { $0.split(separator: "?").first.map(String.init) ?? "" }.sorted() == [
                    "/vast/empty", "/vast/inline", "/vast/pod", "/vmap",
                ]
            )
            #expect(requests.first?.hasPrefix("/vmap?sid=s-ad") == true)
        }

        @Test("adstitch preview --format json: the plan with the ad server's creatives, and each break's request and answer under adServer")
        func previewReportsTheAnswers() async throws {
            let origin = try await StaticServer(root: RemoteCampaignTests.demo)
            let server = try await AdServerEndToEndTests.Server(mediaBase: origin.base.absoluteString + "media/ads")
            let file = try RemoteCampaignTests.campaign(base: origin.base.absoluteString) {
                $0
                    + "\nad_server: { trusted_hosts: [127.0.0.1], vast: \"\(server.base)/vast/pod?ads=bravo,film&dur=3.84,1.92\", fallback: [house] }\n"
            }
            defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
            let result = try await Tool.run(CLITests.binary, ["preview", file.path, "--format", "json", "--session", "s-ad"])
            #expect(result.status == 0, "\(result.output)")
            let json = String(result.output.drop { $0 != "{" })
            let report = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            let answers = try #require(report["adServer"] as? [[String: Any]])
            #expect(answers.map { $0["break"] as? String } == ["preroll", "mid-1", "postroll"])
            #expect(answers.allSatisfy { ($0["played"] as? [String])?.first == "UAID-bravo" })
            // "film" has no playlist on the origin: skipped with VAST 403 and the origin's answer.
            let skipped = try #require((answers.first?["skipped"] as? [[String: Any]])?.first)
            #expect(skipped["id"] as? String == "UAID-film" && skipped["vastError"] as? Int == 403, "\(skipped)")
            #expect((skipped["reason"] as? String)?.contains("404") == true)
        }

        @Test(
            "adstitch preview: an answered ad the fill does not play is said so in the ad server's line (not 'plays'), and a <Duration> more than a segment off its media is a warning naming both"
        )
        func previewSettlesTheAnswer() async throws {
            let origin = try await StaticServer(root: RemoteCampaignTests.demo)
            let server = try await AdServerEndToEndTests.Server(mediaBase: origin.base.absoluteString + "media/ads")
            // charlie's media runs 7.68 s; its answer says 1.92 s: the answer fits it, the fill cannot.
            let file = try RemoteCampaignTests.campaign(base: origin.base.absoluteString) {
                $0
                    + "\nad_server: { trusted_hosts: [127.0.0.1], vast: \"\(server.base)/vast/pod?ads=bravo,charlie&dur=3.84,1.92\", fallback: [house] }\n"
            }
            defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
            let result = try await Tool.run(CLITests.binary, ["preview", file.path, "--session", "s-settled"])
            #expect(result.status == 0, "\(result.output)")
            let lines = result.output.split(separator: "\n").map(String.init)
            let preroll = try #require(lines.first { $0.contains("ad server: break preroll") }, "\(result.output)")
            #expect(preroll.contains("plays: UAID-bravo") && !preroll.contains("plays: UAID-bravo, UAID-charlie"), "\(preroll)")
            #expect(preroll.contains("skipped UAID-charlie: answered, but the fill did not play it: "), "\(preroll)")
            #expect(preroll.contains("warning: UAID-charlie: its <Duration> says 1.92 s, its media runs 7.68 s"), "\(preroll)")
            let json = try await Tool.run(CLITests.binary, ["preview", file.path, "--session", "s-settled", "--format", "json"])
            let report = try #require(try JSONSerialization.jsonObject(with: Data(String(json.output.drop { $0 != "{" }).utf8)) as? [String: Any])
            let answer = try #require((report["adServer"] as? [[String: Any]])?.first)
            #expect(answer["played"] as? [String] == ["UAID-bravo"], "\(answer)")
            #expect((answer["warnings"] as? [String])?.first?.contains("7.68 s") == true, "\(answer)")
        }

        @Test("an ad server that fails (500) leaves every break to its fallback pool; the session is stitched")
        func failingServerFallsBack() async throws {
            let (output, ads, requests) = try await Self.stitch("/vast/error500?sid={session}")
            #expect(requests.count == 3)
            #expect(output.contains("→ failed") && output.contains("the break's fallback pools fill it"), "\(output)")
            #expect(ads.values.allSatisfy { $0.allSatisfy { ["delta", "bravo"].contains($0) } } && ads["preroll"]?.isEmpty == false, "\(ads)")
        }

        @Test(
            "named ad servers chosen by rules: the last matching rule's server is asked (its key masked in reports), its fallback fills; none asks nothing; an unknown name is refused at its line"
        )
        func rulesChooseTheServer() async throws {
            let origin = try await StaticServer(root: RemoteCampaignTests.demo)
            let server = try await AdServerEndToEndTests.Server(mediaBase: origin.base.absoluteString + "media/ads")
            let file = try RemoteCampaignTests.campaign(base: origin.base.absoluteString) { yaml in
                let rules = """
                    rules:
                      - name: french-market
                        when: { attributes: { market: '^fr$' } }
                        then: { ad_server: fw }
                      - name: no-ad-server
                        when: { attributes: { market: '^none$' } }
                        then: { ad_server: none }
                    """
                return yaml.replacingOccurrences(of: "rules:\n", with: rules + "\n")
                    + """

                    ad_server: { trusted_hosts: [127.0.0.1], vast: "\(server.base)/vast/pod?ads=bravo,delta&dur=3.84,1.92&srv=default", fallback: [house] }
                    ad_servers:
                      fw: { trusted_hosts: [127.0.0.1], vast: "\(server.base)/vast/inline?ad=charlie&dur=7.68&srv=fw&api_key=s3cret", fallback: [prime] }

                    """
            }
            let folder = file.deletingLastPathComponent()
            defer { try? FileManager.default.removeItem(at: folder) }
            func session(_ market: String) async throws -> (ads: [String: [String]], output: String) {
                let out = folder.appendingPathComponent("out-\(market)")
                let result = try await CLITests().adstitch([
                    "stitch", file.path, "--out", out.path, "--session", "s-\(market)", "--set", "market=\(market)",
                ])
                #expect(result.status == 0, "\(result.output)")
                let manifest = try String(contentsOf: out.appendingPathComponent("boundaries.json"), encoding: .utf8)
                return (RealClients.AdServerServeTests.ads(manifest), result.output)
            }
            let french = try await session("fr")
            #expect(french.ads["mid-1"]?.first == "UAID-charlie", "\(french.ads)\n\(french.output)")
            // The request is reported with its credentials masked.
            #expect(french.output.contains("srv=fw&api_key=***") && !french.output.contains("s3cret"), "\(french.output)")
            // The fw server's fallback (prime) fills what charlie leaves of the 12 s mid-roll.
            #expect(french.ads["mid-1"]?.dropFirst().allSatisfy { ["alpha", "bravo", "charlie"].contains($0) } == true, "\(french.ads)")
            let other = try await session("de")
            #expect(other.ads["preroll"] == ["UAID-bravo", "UAID-delta"], "\(other.ads)")
            let none = try await session("none")
            #expect(none.ads.values.flatMap { $0 }.allSatisfy { !$0.hasPrefix("UAID-") }, "\(none.ads)")
            let requests = try await server.requests(queries: true)
            #expect(requests.filter { $0.contains("srv=fw") }.count == 3, "\(requests)")
            #expect(requests.filter { $0.contains("srv=default") }.count == 3, "the none session asks nothing: \(requests)")

            // A rule naming a server that is not there: the line and the names there are.
            let yaml = try String(contentsOf: file, encoding: .utf8).replacingOccurrences(
                of: "then: { ad_server: fw }",
                with: "then: { ad_server: gam }"
            )
            try Data(yaml.utf8).write(to: file)
            let refused = try await CLITests().adstitch(["validate", file.path])
            #expect(refused.status == 1)
            let line = yaml.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("ad_server: gam") }.map { $0 + 1 } ?? 0
            #expect(refused.output.contains("\(file.path):\(line):"), "\(refused.output)")
            #expect(refused.output.contains("names ad server \"gam\", which is not in ad_servers (fw)"), "\(refused.output)")
        }
    }
}

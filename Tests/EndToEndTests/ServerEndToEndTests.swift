import Foundation
import HLSPlaylist
import Testing

extension RealClients {
/// `adstitch serve` over real sockets, played by real clients.
@Suite("Server, end to end", .serialized)
struct ServerEndToEndTests {
    /// `adstitch serve` on a free loopback port, for the length of a test.
    final class Server: Sendable {
        let process: BackgroundProcess
        let port: Int

        init() throws {
            self.port = Int.random(in: 40_000..<50_000)
            self.process = try BackgroundProcess(
                CLITests.binary,
                ["serve", "--campaigns", Repository.root.appendingPathComponent("Campaigns").path, "--port", "\(self.port)", "--secret", "e2e"])
            guard self.process.waitForLine(containing: "Server started", timeout: 30) != nil else {
                throw Tool.Missing(name: "adstitch serve on port \(self.port)")
            }
        }

        func get(_ path: String) throws -> String {
            String(decoding: try LoopbackHTTP.request("GET", port: self.port, path: path, body: Data()), as: UTF8.self)
        }
    }

    @Test("GStreamer decodes every frame of a served fMP4 session, fetched over HTTP from the server")
    func gstreamerDecodesAServedSession() throws {
        let server = try Server()
        let master = try server.get("/v1/campaigns/feature-fmp4/master.m3u8?session=served-1&locale=es")
        let variant = try #require(master.split(separator: "\n").first { $0.hasPrefix("sessions/") && $0.hasSuffix("v0.m3u8") })
        let base = "http://127.0.0.1:\(server.port)/v1/campaigns/feature-fmp4/"
        let manifestPath = "/v1/campaigns/feature-fmp4/" + variant.replacingOccurrences(of: "v0.m3u8", with: "boundaries.json")
        let manifest = try JSONSerialization.jsonObject(with: Data(try server.get(manifestPath).utf8)) as? [String: Any]
        let duration = try #require(ExactDecimal("\(manifest?["duration"] ?? "")"))
        let decoded = try Decoded(try #require(URL(string: base + variant)), scratch: FileManager.default.temporaryDirectory, audio: false)
        #expect(decoded.videoFrames == (duration * 25).roundedToInteger)
    }

    @Test("headless Chromium plays a session of the served TS demo to the end from /play")
    func chromiumPlaysAServedSession() async throws {
        let server = try Server()
        let browser = try await WebDriver()
        do {
            let playback = try await browser.play(URL(string: "http://127.0.0.1:\(server.port)/play/evening-news")!)
            #expect(playback.ended, "did not play to the end: \(playback.description)")
            #expect(playback.error == nil, "media error: \(playback.description)")
            #expect(try await browser.severeLogs().isEmpty)
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }
}
}

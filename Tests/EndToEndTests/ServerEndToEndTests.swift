import Foundation
import HLSPlaylist
import Testing

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
            try await browser.open(URL(string: "http://127.0.0.1:\(server.port)/play/evening-news")!)
            _ = try await browser.execute("const v = document.getElementById('video'); v.playbackRate = 4; return true")
            var state: [Any] = []
            let deadline = Date().addingTimeInterval(90)
            while Date() < deadline {
                try await Task.sleep(for: .seconds(1))
                state = try await browser.execute(
                    "const v = document.getElementById('video'); v.playbackRate = 4; return [v.ended, v.currentTime, v.error ? v.error.message : null]"
                ) as? [Any] ?? []
                if state.first as? Bool == true || !(state.count > 2 && state[2] is NSNull) { break }
            }
            #expect(state.first as? Bool == true, "did not play to the end: \(state)")
            #expect(state.count > 2 && state[2] is NSNull, "media error: \(state)")
            #expect(try await browser.severeLogs().isEmpty)
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }
}

import AdDecision
import AdStitching
import Foundation
import HLSPlaylist
import Testing

/// The suites that run real clients (GStreamer, Chromium) — one at a time, so parallel tests
/// do not starve them of the machine's two cores.
@Suite("Real clients, one at a time", .serialized)
enum RealClients {}

extension RealClients {
    /// The stitched demo sessions, played by real clients over HTTP (docs/real-clients.md).
    @Suite("Real clients", .serialized)
    struct RealClientTests {
        static let context = ViewerContext(
            session: "e2e-1",
            at: Date(timeIntervalSince1970: 1_795_800_000),
            attributes: ["locale": "en-GB", "device": "desktop"]
        )

        /// GStreamer's hlsdemux decodes every frame of every rendition: exactly duration × 25 video
        /// frames, and audio at least as long as the video (AAC priming adds a frame per piece).
        @Test("GStreamer decodes every frame of every rendition of the TS demos", arguments: ["evening-news", "single-asset"])
        func gstreamerDecodesTheTSDemo(_ campaign: String) async throws {
            let session = try await ServedSessionFolder(campaign: campaign, context: Self.context)
            let expectedFrames = Self.frames(session.manifest.duration, fps: 25)
            for rendition in session.renditions {
                let decoded = try await Decoded(session.url(rendition), scratch: session.root)
                #expect(decoded.videoFrames == expectedFrames, "\(rendition.id): \(decoded.videoFrames) frames, expected \(expectedFrames)")
                let audio = decoded.audioSeconds
                let video = session.manifest.duration.doubleValue
                #expect(
                    audio >= video - 0.001 && audio <= video + Double(session.plan.pieces.count) * 0.05,
                    "\(rendition.id): \(audio) s of audio for \(video) s"
                )
            }
        }

        /// The fMP4 demo: maps after every discontinuity, byte ranges, demuxed English and Spanish
        /// audio (bravo has English only: the Spanish rendition plays its DEFAULT), subtitles and
        /// I-frames filled where ads lack them.
        @Test("GStreamer decodes every frame of the fMP4 demo's video and audio renditions")
        func gstreamerDecodesTheFMP4Demo() async throws {
            let session = try await ServedSessionFolder(campaign: "feature-fmp4", context: Self.context)
            let duration = session.manifest.duration
            var checked = 0
            for rendition in session.renditions {
                switch rendition.kind {
                case .video:
                    let decoded = try await Decoded(session.url(rendition), scratch: session.root, audio: false)
                    #expect(decoded.videoFrames == Self.frames(duration, fps: 25), "\(rendition.id): \(decoded.videoFrames) frames for \(duration) s")
                case .audio:
                    let decoded = try await Decoded(session.url(rendition), scratch: session.root, video: false)
                    #expect(
                        abs(decoded.audioSeconds - duration.doubleValue) < 0.05,
                        "\(rendition.id): \(decoded.audioSeconds) s of audio for \(duration) s"
                    )
                case .subtitles, .iFrame:
                    continue
                }
                checked += 1
            }
            #expect(checked == 4)  // two video variants, English and Spanish audio
        }

        @Test("ffprobe reports the boundary manifest's duration for the stitched master", arguments: ["evening-news", "single-asset"])
        func ffprobeAgreesWithTheManifest(_ campaign: String) async throws {
            let session = try await ServedSessionFolder(campaign: campaign, context: Self.context)
            let result = try await Tool.run(
                "ffprobe",
                ["-v", "error", "-show_entries", "format=duration", "-of", "default=nw=1:nk=1", session.masterURL.absoluteString]
            )
            #expect(result.status == 0, "\(result.output)")
            let reported = ExactDecimal(result.output.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(reported == session.manifest.duration, "ffprobe: \(result.output), manifest: \(session.manifest.duration)")
        }

        /// Chromium plays HLS natively; it must reach `ended` with no media error and no console error.
        @Test("headless Chromium plays the TS demo session to the end", arguments: ["evening-news", "single-asset"])
        func chromiumPlaysTheTSDemo(_ campaign: String) async throws {
            let session = try await ServedSessionFolder(campaign: campaign, context: Self.context)
            let page = try session.writePlayerPage()
            let browser = try await WebDriver()
            do {
                try await self.playToTheEnd(page, in: browser, session: session)
            } catch {
                await browser.quit()
                throw error
            }
            await browser.quit()
        }

        /// hls.js (MSE) crosses discontinuities native Chromium stalls at (fMP4): every demo's
        /// stitched session plays to the end, with no fatal hls.js error.
        @Test(
            "hls.js in headless Chromium plays the stitched session of every demo to the end",
            arguments: ["evening-news", "feature-fmp4", "single-asset"]
        )
        func hlsJsPlaysTheDemos(_ campaign: String) async throws {
            let session = try await ServedSessionFolder(campaign: campaign, context: Self.context)
            let page = try session.writeHlsJsPage()
            let browser = try await WebDriver()
            do {
                try await self.playToTheEnd(page, in: browser, session: session)
                let error = try await browser.execute("return window.hlsError")
                #expect(error is NSNull, "hls.js: \(error)")
                let version = try await browser.execute("return Hls.version")
                #expect(version as? String == HlsJs.version)
            } catch {
                await browser.quit()
                throw error
            }
            await browser.quit()
        }

        private func playToTheEnd(_ page: URL, in browser: WebDriver, session: ServedSessionFolder) async throws {
            let playback = try await browser.play(page)
            #expect(playback.ended, "did not play to the end: \(playback.description)")
            #expect(playback.error == nil, "media error: \(playback.description)")
            if let duration = playback.duration {
                #expect(
                    abs(duration - session.manifest.duration.doubleValue) < 0.5,
                    "the player's duration \(duration) vs the manifest's \(session.manifest.duration)"
                )
            }
            #expect(try await browser.severeLogs().isEmpty)
        }

        static func frames(_ duration: ExactDecimal, fps: Int) -> Int {
            (duration * fps).roundedToInteger
        }
    }
}

/// Decodes a playlist with GStreamer into fixed-size grey frames and mono 48 kHz samples, so the
/// byte counts give the number of frames and seconds of audio decoded.
struct Decoded {
    var videoFrames: Int
    var audioSeconds: Double

    /// `compress`: the playlist's request asks for gzip (souphttpsrc `compress=true`, as libsoup's
    /// content decoder does in players built on it): a gzip body must then decode to exactly its
    /// Content-Length's worth of sense, or libsoup asks for "the rest" with a Range.
    /// `connectionSpeed` (kbit/s): a multivariant playlist's variant is chosen by it, pinned, not
    /// by what the loopback measures.
    init(
        _ url: URL,
        scratch: URL,
        video wantsVideo: Bool = true,
        audio wantsAudio: Bool = true,
        compress: Bool = false,
        connectionSpeed: Int? = nil
    ) async throws {
        let video = scratch.appendingPathComponent("decoded-\(UUID().uuidString.prefix(6)).gray")
        let audio = scratch.appendingPathComponent("decoded-\(UUID().uuidString.prefix(6)).pcm")
        // hlsdemux and decodebin named, not uridecodebin: for an adaptive stream uridecodebin turns
        // on buffering, gst-launch then pauses the pipeline whenever the level drops, and a paused
        // sink can hold a decoder's allocation query (after a resolution change at a splice) behind
        // a queue for good (docs/real-clients.md, "Live sessions"). Without buffering nothing pauses,
        // and decodebin's multiqueue gives each stream its own thread, so no queue is needed.
        let source =
            url.isFileURL
            ? ["filesrc", "location=\(url.path)"] : ["souphttpsrc", "location=\(url.absoluteString)"] + (compress ? ["compress=true"] : [])
        var pipeline =
            ["-q"] + source + ["!", "hlsdemux"] + (connectionSpeed.map { ["connection-speed=\($0)"] } ?? []) + ["!", "decodebin", "name=d"]
        if wantsVideo {
            pipeline += [
                "d.", "!", "video/x-raw", "!", "videoconvert", "!", "videoscale", "!", "video/x-raw,format=GRAY8,width=64,height=36", "!",
                "filesink", "location=\(video.path)",
            ]
        }
        if wantsAudio {
            pipeline += [
                "d.", "!", "audio/x-raw", "!", "audioconvert", "!", "audioresample", "!", "audio/x-raw,format=S16LE,channels=1,rate=48000", "!",
                "filesink", "location=\(audio.path)",
            ]
        }
        let result = try await Tool.run("gst-launch-1.0", pipeline, timeout: 60)
        guard result.status == 0 else { throw Tool.Missing(name: "a successful GStreamer decode of \(url): \(result.output)") }
        let size = { (file: URL) in ((try? FileManager.default.attributesOfItem(atPath: file.path)[.size]) as? Int) ?? 0 }
        self.videoFrames = size(video) / (64 * 36)
        self.audioSeconds = Double(size(audio)) / 96_000
        try? FileManager.default.removeItem(at: video)
        try? FileManager.default.removeItem(at: audio)
    }
}

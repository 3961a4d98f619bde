import AdStitchServer
import Foundation
import HLSPlaylist
import Hummingbird
import HummingbirdTesting
import Testing

/// Many sessions at once stay consistent: each session's playlists agree with its boundary
/// manifest, and asking again gives the same bytes.
@Suite("Concurrent sessions")
struct ConcurrencyTests {
    @Test("64 sessions in parallel, each consistent with itself and with its manifest")
    func manySessions() async throws {
        let route = RouteTests()
        try await route.app().test(.router) { client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<64 {
                    group.addTask {
                        let locale = ["es-ES", "en-GB", "fr-FR", "de-DE"][index % 4]
                        let (_, prefix) = try await route.startSession(client, query: "session=c-\(index)&locale=\(locale)")
                        let first = try await client.execute(uri: prefix + "v1.m3u8", method: .get) { String(buffer: $0.body) }
                        let again = try await client.execute(uri: prefix + "v1.m3u8", method: .get) { String(buffer: $0.body) }
                        #expect(first == again)
                        let playlist = try PlaylistParser().parseMediaPlaylist(first)
                        let manifest = try await client.execute(uri: prefix + "boundaries.json", method: .get) { response in
                            try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
                        }
                        #expect(manifest?["session"] as? String == "c-\(index)")
                        #expect(ExactDecimal("\(manifest?["duration"] ?? "")") == playlist.duration)
                        // Every boundary is where a piece starts: after a discontinuity, or 0.
                        let starts = Set([ExactDecimal.zero] + playlist.segments.filter(\.isDiscontinuity).map(\.startTime))
                        for boundary in manifest?["boundaries"] as? [Any] ?? [] {
                            #expect(starts.contains(try #require(ExactDecimal("\(boundary)"))))
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }
}

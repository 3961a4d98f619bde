import AdCampaign
import AdSessions
import AdStitchServer
import Crypto
import Foundation
import HLSPlaylist
import Synchronization
import Testing

extension RealClients {
    /// A catalogue campaign (`program: { catalogue: URL }`) served over a test origin holding
    /// several titles of different shapes: one with ad markers, one without (the schedule places
    /// its breaks), and a copy of that one under another path (the same bytes: a different title).
    @Suite("Catalogues, served", .serialized)
    struct CatalogueServeTests {
        typealias Server = HardeningEndToEndTests.Server

        /// The single-asset demo's programme as titles below `vod/` of a fresh origin folder:
        /// `marked` as packaged (CUE and DATERANGE markers), `plain`, `plain-2` and `a&b+c` (a
        /// path with sub-delimiters) with the markers taken out. Playlists are copies (tests edit them); segments are links.
        static func originFolder() throws -> URL {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("catalogue-origin-\(UUID().uuidString.prefix(8))")
            let source = Repository.root.appendingPathComponent("Campaigns/single-asset/media/program")
            for (title, markers) in [("marked", true), ("plain", false), ("plain-2", false), ("a&b+c", false)] {
                let folder = root.appendingPathComponent("vod/\(title)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try FileManager.default.copyItem(at: source.appendingPathComponent("master.m3u8"), to: folder.appendingPathComponent("master.m3u8"))
                for variant in ["240p", "360p"] {
                    let target = folder.appendingPathComponent(variant)
                    try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
                    for file in try FileManager.default.contentsOfDirectory(atPath: source.appendingPathComponent(variant).path) {
                        let from = source.appendingPathComponent("\(variant)/\(file)")
                        if file.hasSuffix(".m3u8") {
                            var text = try String(contentsOf: from, encoding: .utf8)
                            if !markers {
                                text = text.split(separator: "\n", omittingEmptySubsequences: false)
                                    .filter { !$0.hasPrefix("#EXT-X-CUE") && !$0.hasPrefix("#EXT-X-DATERANGE") }
                                    .joined(separator: "\n")
                            }
                            try Data(text.utf8).write(to: target.appendingPathComponent(file))
                        } else {
                            try FileManager.default.createSymbolicLink(at: target.appendingPathComponent(file), withDestinationURL: from)
                        }
                    }
                }
            }
            // Titles at other depths below the prefix, on `plain`'s media playlists: at its top,
            // three folders down, and in folders with a space and a letter beyond ASCII (named
            // percent-encoded).
            let plain = try String(contentsOf: root.appendingPathComponent("vod/plain/master.m3u8"), encoding: .utf8)
            for (path, up) in [("top.m3u8", ""), ("show/season-1/ep_01/master.m3u8", "../../../"), ("Le Bureau/Épisode 1/master.m3u8", "../../")] {
                let file = root.appendingPathComponent("vod/" + path)
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                let text = plain.replacingOccurrences(of: "\n240p/", with: "\n\(up)plain/240p/").replacingOccurrences(
                    of: "\n360p/",
                    with: "\n\(up)plain/360p/"
                )
                try Data(text.utf8).write(to: file)
            }
            return root
        }

        /// A campaigns folder with the catalogue `library` over `origin`'s `prefix`, the demo's ads
        /// and slate local.
        static func campaigns(origin: StaticServer, cache: String = "{ titles: 10, ttl: 300 }", prefix: String = "vod/") throws -> URL {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalogue-\(UUID().uuidString.prefix(8))")
            let media = folder.appendingPathComponent("library/media")
            try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
            for part in ["ads", "slate"] {
                try FileManager.default.copyItem(
                    at: Repository.root.appendingPathComponent("Campaigns/single-asset/media/\(part)"),
                    to: media.appendingPathComponent(part)
                )
            }
            let yaml = """
                version: 1
                id: library
                program: { catalogue: "\(origin.base.absoluteString)\(prefix)", breaks: markers }
                marker_breaks: { duration: 3.84, pools: [prime] }
                schedule: { preroll: 3.84, every: 12, mid_duration: 3.84, min_tail: 5, postroll: 3.84, pools: [prime] }
                cache: \(cache)
                slate: { playlist: media/slate/master.m3u8 }
                pools:
                  prime:
                    - { id: alpha, playlist: media/ads/alpha/master.m3u8 }
                    - { id: bravo, playlist: media/ads/bravo/master.m3u8 }

                """
            try Data(yaml.utf8).write(to: folder.appendingPathComponent("library/campaign.yaml"))
            return folder
        }

        /// A test origin over ``originFolder()``, the catalogue over it and a server serving it;
        /// all removed and stopped when it goes.
        final class Setup {
            let root: URL
            let origin: StaticServer
            let folder: URL
            let server: Server

            init(cache: String = "{ titles: 10, ttl: 300 }") async throws {
                self.root = try CatalogueServeTests.originFolder()
                self.origin = try await StaticServer(root: self.root)
                self.folder = try CatalogueServeTests.campaigns(origin: self.origin, cache: cache)
                self.server = try await Server(campaigns: self.folder)
            }

            deinit {
                kill(self.server.process.pid, SIGKILL)
                try? FileManager.default.removeItem(at: self.folder)
                try? FileManager.default.removeItem(at: self.root)
            }
        }

        /// A session of `title`: its master's status, its session path prefix and token.
        struct Session {
            var prefix: String
            var token: SessionToken
            var playlists: [String]
        }

        /// The master's URIs are resolved against its own URL (RFC 3986 §5.2), as a player does:
        /// each must land on the session file route.
        static func start(_ server: Server, _ title: String, query: String = "") throws -> Session {
            let path = "/v1/campaigns/library/assets/\(title)?\(query)"
            let master = try server.get(path)
            try #require(master.status == 200, "\(title): \(master.body)")
            let base = try #require(URL(string: "http://127.0.0.1:\(server.port)\(path)"))
            // Variant lines, and URI attributes (renditions, I-frame streams, the session data's
            // boundary manifest): every one must resolve to the session's files.
            let uris = master.body.split(separator: "\n").flatMap { line -> [Substring] in
                guard line.hasPrefix("#") else { return line.isEmpty ? [] : [line] }
                return line.split(separator: "URI=\"").dropFirst().compactMap { $0.split(separator: "\"").first }
            }
            let playlists = try uris.map { uri in
                let resolved = try #require(URL(string: String(uri), relativeTo: base)?.absoluteURL.path)
                try #require(resolved.hasPrefix("/v1/campaigns/library/sessions/"), "\(uri) of \(path) resolves to \(resolved)")
                return resolved
            }
            .filter { $0.hasSuffix(".m3u8") }
            let first = try #require(playlists.first)
            let parts = first.split(separator: "/")
            let tokenText = String(parts[parts.count - 2])
            let token = try #require(SessionToken(decoding: tokenText, secret: SymmetricKey(data: Data("hardening".utf8))))
            return Session(prefix: parts.dropLast().joined(separator: "/"), token: token, playlists: playlists)
        }

        /// The boundary manifest's breaks: id and start, in stream time.
        static func breaks(_ server: Server, _ session: Session) throws -> [(id: String, start: String)] {
            let manifest = try server.get("/" + session.prefix + "/boundaries.json")
            #expect(manifest.status == 200)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(manifest.body.utf8)) as? [String: Any])
            let breaks = try #require(json["breaks"] as? [[String: Any]])
            return breaks.map { ($0["id"] as? String ?? "", ($0["start"] as? NSNumber)?.stringValue ?? "") }
        }

        /// What is wrong with a media playlist: it does not parse, or the linter finds errors.
        static func errors(_ text: String) -> [String] {
            do {
                let playlist = try PlaylistParser().parseMediaPlaylist(text, url: URL(string: "http://adstitch.test/v0.m3u8")!)
                return PlaylistLinter().lint(playlist).filter { $0.severity == .error }.map { "\($0)" }
            } catch {
                return ["does not parse: \(error)"]
            }
        }

        @Test("titles with markers and without play with their breaks; one fetch for concurrent first viewers; bad paths refused")
        func titlesPlay() async throws {
            let setup = try await Setup()
            let (origin, folder, server) = (setup.origin, setup.folder, setup.server)
            defer { withExtendedLifetime(setup) {} }  // its deinit stops the servers

            // Eight viewers start an unseen title at once: the origin sees one fetch of it.
            let statuses = Mutex([Int]())
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                let status = (try? server.get("/v1/campaigns/library/assets/marked/master.m3u8?session=first-\(index)").status) ?? 0
                statuses.withLock { $0.append(status) }
            }
            #expect(statuses.withLock { $0 } == Array(repeating: 200, count: 8))
            let hits = try origin.hits()
            #expect(hits["/vod/marked/master.m3u8"] == 1, "\(hits)")
            #expect(hits["/vod/marked/240p/index.m3u8"] == 1, "\(hits)")

            // Markers: the CUE pair (3.84 s replaced at 5.76 s) and the DATERANGE splice (at 15.36 s).
            let marked = try Self.start(server, "marked/master.m3u8", query: "session=m")
            #expect(marked.token.title == "marked/master.m3u8")
            let markedBreaks = try Self.breaks(server, marked)
            #expect(markedBreaks.count == 2, "\(markedBreaks)")
            #expect(markedBreaks.first?.start == "5.76", "\(markedBreaks)")

            // No markers: the schedule's pre-roll, mid-rolls every 12 s (at the boundary at or
            // before: 11.52 s and 23.04 s of programme) while 5 s remain, and the post-roll.
            let plain = try Self.start(server, "plain/master.m3u8", query: "session=p")
            let plainBreaks = try Self.breaks(server, plain)
            #expect(plainBreaks.map(\.id) == ["preroll", "mid-1", "mid-2", "postroll"], "\(plainBreaks)")
            #expect(plainBreaks.first?.start == "0", "\(plainBreaks)")
            for session in [marked, plain] {
                #expect(session.playlists.count == 2)
                for path in session.playlists {
                    let playlist = try server.get(path)
                    #expect(playlist.status == 200)
                    #expect(Self.errors(playlist.body).isEmpty, "\(path): \(Self.errors(playlist.body))")
                    #expect(playlist.body.contains("#EXT-X-DISCONTINUITY") && playlist.body.hasSuffix("#EXT-X-ENDLIST\n"))
                    // Programme segments from the origin, ads from the media route.
                    let uris = playlist.body.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(BeaconTests.target)
                    #expect(uris.contains { $0.hasPrefix(origin.base.absoluteString + "vod/") })
                    #expect(uris.contains { $0.hasPrefix("/v1/campaigns/library/media/media/ads/") }, "\(uris)")
                }
            }
            // An ad's segment through the media route (the catalogue's local media).
            let adSegment = try #require(
                try server.get(plain.playlists[0]).body.split(separator: "\n").map(BeaconTests.target).first {
                    $0.hasPrefix("/v1/campaigns/library/media/")
                }
            )
            #expect(try LoopbackHTTP.exchange("GET", port: server.port, path: adSegment).status == 200)

            // The same bytes under another path are another title (the path is in the revision).
            let copy = try Self.start(server, "plain-2/master.m3u8", query: "session=p")
            #expect(copy.token.revision != plain.token.revision)

            // Paths that could leave the prefix, or name no playlist, are refused; a missing title is a 404 naming it.
            for bad in [
                "../plain/master.m3u8", "%2e%2e/plain/master.m3u8", "plain//master.m3u8", "plain/./master.m3u8", "plain/master.txt",
                "plain%2fmaster.m3u8",
            ] {
                let answer = try server.get("/v1/campaigns/library/assets/\(bad)")
                #expect(answer.status == 400 || answer.status == 404, "\(bad): \(answer.status) \(answer.body)")
                #expect(!answer.body.contains("#EXTM3U"), "\(bad)")
            }
            let missing = try server.get("/v1/campaigns/library/assets/nothing/master.m3u8")
            #expect(missing.status == 404 && missing.body.contains("no title nothing\\/master.m3u8"), "\(missing)")
            #expect(try server.get("/v1/campaigns/library/master.m3u8").body.contains("is a catalogue"))
            #expect(try server.get("/v1/campaigns/nowhere/assets/plain/master.m3u8").status == 404)

            // GET /v1/campaigns shows what the catalogue holds and what was started; /play plays a title.
            let list = try #require(
                try JSONSerialization.jsonObject(with: Data(server.get("/v1/campaigns").body.utf8)) as? [String: [[String: Any]]]
            )
            let entry = try #require(list["campaigns"]?.first { $0["id"] as? String == "library" }?["catalogue"] as? [String: Any])
            #expect((entry["titlesHeld"] as? Int) == 3 && (entry["bytesHeld"] as? Int ?? 0) > 0, "\(entry)")
            #expect((entry["recent"] as? [String])?.prefix(2) == ["plain-2/master.m3u8", "plain/master.m3u8"], "\(entry)")
            let page = try server.get("/play/library?title=plain/master.m3u8")
            #expect(page.status == 200 && page.body.contains("data-master=\"/v1/campaigns/library/assets/plain/master.m3u8\""), "\(page.body)")
            let index = try server.get("/play/library")
            #expect(index.status == 200 && index.body.contains("href=\"/play/library?title=marked/master.m3u8\""), "\(index.body)")
            #expect(try server.get("/play/library?title=../marked/master.m3u8").status == 404)
            // A title whose path holds '&' and '+' (fine in a path, not in a query value) is linked
            // percent-encoded, and the link plays it.
            #expect(try server.get("/v1/campaigns/library/assets/a&b+c/master.m3u8").status == 200)
            #expect(try server.get("/play/library").body.contains("href=\"/play/library?title=a%26b%2Bc/master.m3u8\""))
            let linked = try server.get("/play/library?title=a%26b%2Bc/master.m3u8")
            #expect(
                linked.status == 200 && linked.body.contains("data-master=\"/v1/campaigns/library/assets/a&amp;b+c/master.m3u8\""),
                "\(linked.body)"
            )
            // A percent-encoded title (a space, a letter beyond ASCII) is linked with its '%' encoded
            // in the query, and the link plays it as written.
            let spaced = "Le%20Bureau/%C3%89pisode%201/master.m3u8"
            #expect(try server.get("/v1/campaigns/library/assets/\(spaced)").status == 200)
            let spacedQuery = "Le%2520Bureau/%25C3%2589pisode%25201/master.m3u8"
            #expect(try server.get("/play/library").body.contains("href=\"/play/library?title=\(spacedQuery)\""))
            let spacedPage = try server.get("/play/library?title=\(spacedQuery)")
            #expect(
                spacedPage.status == 200 && spacedPage.body.contains("data-master=\"/v1/campaigns/library/assets/\(spaced)\""),
                "\(spacedPage.body)"
            )

            // A second replica answers the first one's sessions with the same bytes, loading the title itself.
            let replica = try await Server(campaigns: folder)
            defer { kill(replica.process.pid, SIGKILL) }
            for path in marked.playlists + plain.playlists + ["/" + plain.prefix + "/boundaries.json"] {
                let (first, second) = (try server.get(path), try replica.get(path))
                #expect(second.status == 200 && first.body == second.body, "\(path)")
            }
            #expect(server.healthy() && replica.healthy())
        }

        @Test(
            "a title's master leads players to its session's files from any depth below the prefix (its top, three folders down, sub-delimiters, percent-encoded), stitched or interstitial"
        )
        func sessionURIsResolve() async throws {
            let setup = try await Setup()
            defer { withExtendedLifetime(setup) {} }  // its deinit stops the servers
            for title in [
                "top.m3u8", "plain/master.m3u8", "show/season-1/ep_01/master.m3u8", "a&b+c/master.m3u8", "Le%20Bureau/%C3%89pisode%201/master.m3u8",
            ] {
                for insertion in ["stitched", "interstitials"] {
                    // `start` resolves the master's URIs against its URL and requires the session route.
                    let session = try Self.start(setup.server, title, query: "session=depth&insertion=\(insertion)")
                    #expect(session.playlists.count == 2, "\(title): \(session.playlists)")
                    for path in session.playlists + ["/" + session.prefix + "/boundaries.json"] {
                        let answer = try setup.server.get(path)
                        #expect(answer.status == 200, "\(title), \(insertion): \(path): \(answer.status) \(answer.body.prefix(200))")
                    }
                }
            }
        }

        @Test(
            "the preview lists the titles started recently and previews any title path: page, compare, report and a player's session, on either replica"
        )
        func previewTitles() async throws {
            let setup = try await Setup()
            let (folder, server) = (setup.folder, setup.server)
            defer { withExtendedLifetime(setup) {} }  // its deinit stops the servers
            let plain = try Self.start(server, "plain/master.m3u8", query: "session=viewer-7")
            _ = try Self.start(server, "a&b+c/master.m3u8", query: "session=viewer-8")

            // The catalogue's page: a title field, and the titles started, newest first, linked.
            #expect(try server.get("/preview").body.contains("href=\"/preview/library\""))
            let index = try server.get("/preview/library?session=viewer-7")
            #expect(index.status == 200 && index.body.contains("name=\"title\" required"), "\(index.body)")
            let first = try #require(index.body.range(of: "?title=a%26b%2Bc/master.m3u8&amp;session=viewer-7"), "\(index.body)")
            let second = try #require(index.body.range(of: "?title=plain/master.m3u8&amp;session=viewer-7"), "\(index.body)")
            #expect(first.lowerBound < second.lowerBound)

            // A title's page: its path, its breaks, the title carried by the form and the links.
            let query = "title=plain/master.m3u8&session=viewer-7"
            let page = try server.get("/preview/library?\(query)")
            #expect(page.status == 200, "\(page.body)")
            #expect(
                page.body.contains("<code>plain/master.m3u8</code>")
                    && page.body.contains("type=\"hidden\" name=\"title\" value=\"plain/master.m3u8\"")
            )
            #expect(page.body.contains("/preview/library/master.m3u8?title=plain/master.m3u8&amp;session=viewer-7"), "\(page.body)")
            #expect(try server.get("/preview/library/compare?\(query)&count=3").status == 200)

            // The report plans what the viewer's session plays: the same breaks at the same times.
            let report = try server.get("/preview/library/report.json?\(query)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(report.body.utf8)) as? [String: Any], "\(report.body)")
            let planned = try #require(json["breaks"] as? [[String: Any]]).map {
                (id: $0["id"] as? String ?? "", start: ($0["start"] as? NSNumber)?.stringValue ?? "")
            }
            let played = try Self.breaks(server, plain)
            #expect(planned.map(\.id) == ["preroll", "mid-1", "mid-2", "postroll"] && planned.map(\.id) == played.map(\.id), "\(planned) \(played)")
            #expect(planned.map(\.start) == played.map(\.start), "\(planned) \(played)")

            // The player's master: a preview token carrying the title, its playlists under
            // /preview/ only, answered by a replica that never loaded the title too.
            let master = try server.get("/preview/library/master.m3u8?\(query)")
            #expect(master.status == 200, "\(master.body)")
            let playlists = master.body.split(separator: "\n").filter { $0.hasPrefix("/preview/library/sessions/") }.map(String.init)
            #expect(playlists.count == 2, "\(master.body)")
            let replica = try await Server(campaigns: folder)
            defer { kill(replica.process.pid, SIGKILL) }
            for path in playlists {
                let (answer, again) = (try server.get(path), try replica.get(path))
                #expect(
                    answer.status == 200 && Self.errors(answer.body).isEmpty && answer.body.contains("#EXT-X-DISCONTINUITY"),
                    "\(path): \(answer.body)"
                )
                #expect(again.status == 200 && again.body == answer.body, "\(path)")
                #expect(try server.get(path.replacingOccurrences(of: "/preview/library/", with: "/v1/campaigns/library/")).status == 403)
            }

            // Without a title, the routes that need one say so; bad and missing paths as a start's.
            for route in ["report.json", "master.m3u8", "compare"] {
                let answer = try server.get("/preview/library/\(route)?session=s")
                #expect(answer.status == 400 && answer.body.contains("add title=PATH"), "\(route): \(answer.body)")
            }
            #expect(try server.get("/preview/library?title=../plain/master.m3u8").status == 400)
            #expect(try server.get("/preview/library/report.json?title=plain/master.txt").status == 400)
            let missing = try server.get("/preview/library?title=nothing/master.m3u8")
            #expect(missing.status == 404 && missing.body.contains("no title nothing\\/master.m3u8"), "\(missing.body)")
            #expect(server.healthy() && replica.healthy())
        }

        @Test(
            "a replica that has not loaded a session's title loads it at the door: pipelined requests around that answer keep their order"
        )
        func titleLoadedInTurn() async throws {
            let setup = try await Setup()
            defer { withExtendedLifetime(setup) {} }  // its deinit stops the servers
            let session = try Self.start(setup.server, "plain/master.m3u8", query: "session=pipelined")
            let playlist = try #require(session.playlists.first)
            let expected = try setup.server.get(playlist).body
            let manifest = try setup.server.get("/" + session.prefix + "/boundaries.json").body
            // A replica that never saw the title: its first session file waits for the title's
            // load (a task at the door), between requests the router answers.
            let replica = try await Server(campaigns: setup.folder)
            defer { kill(replica.process.pid, SIGKILL) }
            let host = "Host: 127.0.0.1\r\n"
            let heads = [
                "GET /healthz HTTP/1.1\r\n\(host)\r\n",
                "GET \(playlist) HTTP/1.1\r\n\(host)\r\n",
                "GET /v1/campaigns HTTP/1.1\r\n\(host)\r\n",
                "GET /\(session.prefix)/boundaries.json HTTP/1.1\r\n\(host)\r\n",
                "GET \(playlist) HTTP/1.1\r\n\(host)Connection: close\r\n",
            ]
            let answers = FrontDoorEndToEndTests.responses(try FrontDoorEndToEndTests.raw(heads.joined(), port: replica.port))
            try #require(answers.count == heads.count, "\(answers.map(\.head))")
            let bodies = answers.map { String(decoding: $0.body, as: UTF8.self) }
            #expect(answers.allSatisfy { $0.head.hasPrefix("HTTP/1.1 200") }, "\(answers.map(\.head))")
            #expect(bodies[0] == "ok\n")
            #expect(bodies[1] == expected, "the replica's playlist, once the title loaded, is the first replica's")
            #expect(bodies[2].contains("\"library\""))
            #expect(bodies[3] == manifest)
            #expect(bodies[4] == expected)
            // The replica loaded the title then (it started no session of it).
            let held = try replica.get("/metrics").body.split(separator: "\n").filter { $0.hasPrefix("adstitch_catalogue_titles_held") }
            #expect(held.compactMap { $0.split(separator: " ").last.flatMap { Double($0) } } == [1], "\(held)")
        }

        @Test("the cache holds at most its titles; an evicted title reloads on demand, with the same revision, for old and new sessions")
        func cacheBound() async throws {
            let setup = try await Setup(cache: "{ titles: 2, ttl: 300 }")
            let (origin, server) = (setup.origin, setup.server)
            defer { withExtendedLifetime(setup) {} }  // its deinit stops the servers

            let first = try Self.start(server, "marked/master.m3u8", query: "session=old")
            let firstPlaylist = try server.get(first.playlists[0])
            _ = try Self.start(server, "plain/master.m3u8")
            _ = try Self.start(server, "plain-2/master.m3u8")
            let metrics = try server.get("/metrics").body
            #expect(
                metrics.contains("adstitch_catalogue_titles_held{campaign=\"library\"} 2"),
                "\(metrics.split(separator: "\n").filter { $0.contains("catalogue") })"
            )
            #expect(try origin.hits()["/vod/marked/master.m3u8"] == 1)
            // The old session's other rendition (not answered before): the title loads again.
            let other = try server.get(first.playlists[1])
            #expect(other.status == 200 && Self.errors(other.body).isEmpty)
            #expect(try origin.hits()["/vod/marked/master.m3u8"] == 2, "reloaded for the old session")
            #expect(try server.get(first.playlists[0]).body == firstPlaylist.body)
            let again = try Self.start(server, "marked/master.m3u8", query: "session=new")
            #expect(again.token.revision == first.token.revision)
        }

        @Test(
            "after the ttl a changed title gets a new revision, a removed one 404 for new sessions, a dead origin stale answers; sessions keep theirs"
        )
        func revalidation() async throws {
            let setup = try await Setup(cache: "{ titles: 10, ttl: 1 }")
            let (root, origin, server) = (setup.root, setup.origin, setup.server)
            defer { withExtendedLifetime(setup) {} }  // its deinit stops the servers

            let before = try Self.start(server, "plain/master.m3u8", query: "session=before")
            let beforeBreaks = try Self.breaks(server, before)
            // The title loses its last segment at the origin.
            for variant in ["240p", "360p"] {
                let file = root.appendingPathComponent("vod/plain/\(variant)/index.m3u8")
                let text = try String(contentsOf: file, encoding: .utf8)
                try Data(text.replacingOccurrences(of: "#EXTINF:1.920000,\nseg_015.ts\n", with: "").utf8).write(to: file)
            }
            try await Task.sleep(for: .milliseconds(1_200))
            var changed: Session?
            for _ in 0..<20 where changed == nil {
                let session = try Self.start(server, "plain/master.m3u8", query: "session=after")
                if session.token.revision != before.token.revision { changed = session }
                try await Task.sleep(for: .milliseconds(250))
            }
            let after = try #require(changed, "a new revision after the ttl")
            let afterBreaks = try Self.breaks(server, after)
            #expect(afterBreaks.last?.start != beforeBreaks.last?.start, "the post-roll moved with the shorter title")
            // The session started before keeps its ads and its programme.
            #expect(try Self.breaks(server, before).map(\.start) == beforeBreaks.map(\.start))
            #expect(try server.get(before.playlists[1]).body.contains("seg_015.ts"))

            // The title disappears: new sessions get 404 once the origin says so; running ones play.
            try FileManager.default.removeItem(at: root.appendingPathComponent("vod/plain/master.m3u8"))
            try await Task.sleep(for: .milliseconds(1_200))
            var gone = false
            for _ in 0..<20 where !gone {
                gone = try server.get("/v1/campaigns/library/assets/plain/master.m3u8").status == 404
                try await Task.sleep(for: .milliseconds(250))
            }
            #expect(gone)
            #expect(try server.get(after.playlists[0]).status == 200)

            // The origin stops: a held title keeps serving new sessions (stale on error).
            _ = try Self.start(server, "marked/master.m3u8")
            kill(origin.process.pid, SIGKILL)
            try await Task.sleep(for: .milliseconds(1_200))
            for _ in 0..<6 {
                #expect(try server.get("/v1/campaigns/library/assets/marked/master.m3u8?session=stale").status == 200)
                try await Task.sleep(for: .milliseconds(300))
            }
            // An unseen title cannot load: 502, saying why.
            let down = try server.get("/v1/campaigns/library/assets/plain-2/master.m3u8")
            #expect(down.status == 502, "\(down)")
            #expect(server.healthy())
        }

        @Test("the CLI checks and stitches a catalogue title given with --title, and says a catalogue needs one")
        func commandLine() async throws {
            let setup = try await Setup()
            defer { withExtendedLifetime(setup) {} }
            let file = setup.folder.appendingPathComponent("library/campaign.yaml").path
            let cli = CLITests()
            let template = try await cli.adstitch("validate", file)
            #expect(template.status == 0 && template.output.contains("catalogue library is valid"), "\(template.output)")
            let title = try await cli.adstitch("validate", file, "--title", "plain/master.m3u8")
            #expect(title.status == 0 && title.output.contains("4 breaks"), "\(title.output)")
            let out = FileManager.default.temporaryDirectory.appendingPathComponent("catalogue-cli-\(UUID().uuidString.prefix(6))")
            defer { try? FileManager.default.removeItem(at: out) }
            let stitched = try await cli.adstitch("stitch", file, "--title", "marked/master.m3u8", "--out", out.path)
            #expect(stitched.status == 0 && FileManager.default.fileExists(atPath: out.appendingPathComponent("v0.m3u8").path), "\(stitched.output)")
            let untitled = try await cli.adstitch("stitch", file, "--out", out.path)
            #expect(untitled.status == 1 && untitled.output.contains("is a catalogue: give --title PATH"), "\(untitled.output)")
            let escape = try await cli.adstitch("validate", file, "--title", "../marked/master.m3u8")
            #expect(escape.status == 1 && escape.output.contains("is not a title path below the catalogue"), "\(escape.output)")
            let missing = try await cli.adstitch("validate", file, "--title", "gone/master.m3u8")
            #expect(missing.status == 1 && missing.output.contains("gone/master.m3u8 answered HTTP 404"), "\(missing.output)")
        }

        @Test(
            "from a title's start URL, GStreamer decodes every frame of a catalogue session, hls.js and Chromium's /play page play it to the end; an interstitial session lists its ads"
        )
        func realClients() async throws {
            let setup = try await Setup()
            let server = setup.server
            defer { withExtendedLifetime(setup) {} }  // its deinit stops the servers

            let session = try Self.start(server, "plain/master.m3u8", query: "session=gst")
            let manifest = try server.get("/" + session.prefix + "/boundaries.json")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(manifest.body.utf8)) as? [String: Any])
            let duration = try #require((json["duration"] as? NSNumber).flatMap { ExactDecimal($0.stringValue) })
            // Each client is given the title's start URL, as a viewer's would be, and finds the
            // session's files from the master's own URIs.
            let start = try #require(URL(string: "http://127.0.0.1:\(server.port)/v1/campaigns/library/assets/plain/master.m3u8"))
            let decoded = try await Decoded(
                URL(string: start.absoluteString + "?session=gst")!,
                scratch: FileManager.default.temporaryDirectory,
                connectionSpeed: 300
            )
            #expect(decoded.videoFrames == RealClientTests.frames(duration, fps: 25), "\(decoded.videoFrames) frames for \(duration) s")

            // hls.js (MSE, transmuxing TS) plays the stitched session to its end.
            let log = try await InterstitialEndToEndTests.playWithHlsJs(source: .url(URL(string: start.absoluteString + "?session=hlsjs")!))
            let ended = log.last { $0.hasPrefix("video-ended:") }.flatMap { Double($0.dropFirst("video-ended:".count)) }
            #expect(ended.map { abs($0 - duration.doubleValue) < 0.5 } == true, "ended at \(String(describing: ended)) of \(duration) s; \(log)")

            // Chromium plays the catalogue's own /play page natively (TS), to the end.
            let browser = try await WebDriver()
            do {
                let playback = try await browser.play(URL(string: "http://127.0.0.1:\(server.port)/play/library?title=plain/master.m3u8")!)
                #expect(playback.ended && playback.error == nil, "/play/library: \(playback.description)")
                #expect(playback.duration.map { abs($0 - duration.doubleValue) < 0.5 } == true, "\(playback.description) of \(duration) s")
                #expect(try await browser.severeLogs().isEmpty)
            } catch {
                await browser.quit()
                throw error
            }
            await browser.quit()

            let interstitial = try Self.start(server, "marked/master.m3u8", query: "session=hls&insertion=interstitials")
            #expect(interstitial.token.insertion == .interstitials)
            let primary = try server.get(interstitial.playlists[0]).body
            #expect(primary.contains("CLASS=\"com.apple.hls.interstitial\""), "\(primary.prefix(600))")
            let listURI = try #require(
                primary.split(separator: ",").first { $0.hasPrefix("X-ASSET-LIST=") }?.split(separator: "\"").dropFirst().first
            )
            let list = try server.get("/" + interstitial.prefix + "/" + listURI)
            #expect(list.status == 200 && list.body.contains("ASSETS"), "\(listURI): \(list)")
        }

        @Test(
            "a title's media playlists are asked of a slow origin together once its master is read: six variants (one URI through a variable) load in about two round trips, each playlist fetched once"
        )
        func mediaPlaylistsTogether() async throws {
            let root = try Self.originFolder()
            defer { try? FileManager.default.removeItem(at: root) }
            // The `plain` title's two playlists, each named three ways by a ladder of six.
            var master = "#EXTM3U\n#EXT-X-VERSION:8\n#EXT-X-INDEPENDENT-SEGMENTS\n#EXT-X-DEFINE:NAME=\"q\",VALUE=\"v=6\"\n"
            for (index, uri) in [
                "240p/index.m3u8?v=1", "240p/index.m3u8?v=2", "240p/index.m3u8?v=3", "360p/index.m3u8?v=4", "360p/index.m3u8?v=5",
                "360p/index.m3u8?{$q}",
            ].enumerated() {
                let (width, height) = uri.hasPrefix("240p") ? (426, 240) : (640, 360)
                master +=
                    "#EXT-X-STREAM-INF:BANDWIDTH=\(250_000 + 50_000 * index),CODECS=\"avc1.42c01e,mp4a.40.2\",RESOLUTION=\(width)x\(height)\n\(uri)\n"
            }
            try Data(master.utf8).write(to: root.appendingPathComponent("vod/plain/master.m3u8"))
            let origin = try await StaticServer(root: root)
            // Every answer of the title's prefix waits 300 ms at the origin.
            let folder = try Self.campaigns(origin: origin, prefix: "_/slow/300/vod/")
            defer { try? FileManager.default.removeItem(at: folder) }
            let server = try await Server(campaigns: folder)
            defer { kill(server.process.pid, SIGKILL) }

            let began = ContinuousClock.now
            let session = try Self.start(server, "plain/master.m3u8", query: "session=wide")
            let took = ContinuousClock.now - began
            #expect(session.playlists.count == 6, "\(session.playlists)")
            // One after another, the master and six media playlists would take 7 × 300 ms.
            #expect(took < .milliseconds(1500), "the cold start took \(took)")
            let hits = try origin.hits()
            #expect(hits["/_/slow/300/vod/plain/master.m3u8"] == 1, "\(hits)")
            #expect(hits["/_/slow/300/vod/plain/240p/index.m3u8"] == 3 && hits["/_/slow/300/vod/plain/360p/index.m3u8"] == 3, "each once: \(hits)")
            // The load's parts: the master, then the six media playlists together, so at least two
            // 300 ms waits on the origin; parsing and layout beside them, each counted once.
            let metrics = try server.get("/metrics").body
            func sample(_ name: String, _ phase: String) -> Double? {
                metrics.split(separator: "\n").first { $0.hasPrefix("adstitch_catalogue_load_duration_seconds_\(name){phase=\"\(phase)\"}") }
                    .flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }
            }
            for phase in ["origin", "load", "layout"] {
                #expect(sample("count", phase) == 1, "\(phase): \(metrics)")
            }
            let waited = try #require(sample("sum", "origin"))
            #expect(waited >= 0.6, "waited \(waited) s on the origin")
            #expect(try #require(sample("sum", "load")) > 0 && (try #require(sample("sum", "layout"))) > 0)
            print("catalogue cold start over a 300 ms origin, 6 variants: \(took), of which \(waited) s waiting on the origin")
        }
    }
}

import Foundation
import Testing

extension RealClients {
    /// The campaign preview tool over real sockets: the CLI and the page agree, and headless
    /// Chromium plays the plan with the highlight following and restricted breaks enforced.
    @Suite("Preview tool, end to end", .serialized)
    struct PreviewEndToEndTests {
        static let at = "2026-11-27T19:30:00Z"

        static func json(_ text: String) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        }

        static func seconds(_ value: Any?) -> Double { Double("\(value ?? "")") ?? .nan }

        @Test(
            "adstitch preview (CLI) and the preview page show the same plan for the same context",
            arguments: [
                ("evening-news", ["locale": "es-ES", "device": "tv"]),
                ("evening-news", ["locale": "en-GB", "seen": "alpha"]),
                ("feature-fmp4", ["locale": "es", "bandwidth": "900000"]),
            ]
        )
        func cliAndPageAgree(campaign: String, attributes: [String: String]) async throws {
            let server = try await ServerEndToEndTests.Server()
            var arguments = ["preview", Repository.campaign(campaign).path, "--format", "json", "--session", "same-1", "--at", Self.at]
            var query = "session=same-1&at=\(Self.at)"
            for key in attributes.keys.sorted() {
                arguments += ["--set", "\(key)=\(attributes[key] ?? "")"]
                query += "&\(key)=\(attributes[key] ?? "")"
            }
            let cli = try await Tool.run(CLITests.binary, arguments)
            #expect(cli.status == 0)
            let page = try server.get("/preview/\(campaign)?\(query)")
            let open = "<script type=\"application/json\" id=\"plan-report\">"
            let start = try #require(page.range(of: open)).upperBound
            let end = try #require(page.range(of: "</script>", range: start..<page.endIndex)).lowerBound
            let embedded = page[start..<end].replacingOccurrences(of: "\\u003c", with: "<")
            #expect(embedded + "\n" == cli.output || embedded == cli.output, "the page's plan differs from the CLI's")
            #expect(try Self.json(cli.output)["session"] as? String == "same-1")
        }

        @Test("the media report: what validate --media finds, as JSON and as a page, made once per revision and linked from the campaign page")
        func mediaReport() async throws {
            let server = try await ServerEndToEndTests.Server()
            let report = try Self.json(try server.get("/preview/evening-news/media.json"))
            // The same figures as the CLI's on this campaign (docs/campaign-format.md): 24 segments, 14 renditions, no finding.
            #expect(report["probed"] as? Int == 24 && (report["findings"] as? [Any])?.isEmpty == true, "\(report)")
            let renditions = try #require(report["renditions"] as? [[String: Any]])
            #expect(renditions.count == 14)
            #expect(renditions.contains { ($0["probedCodecs"] as? [String])?.contains("aac LC") == true })
            let started = ContinuousClock.now
            let page = try server.get("/preview/evening-news/media")
            #expect(ContinuousClock.now - started < .seconds(2), "the second request reads the kept report")
            #expect(
                page.contains("24 segments probed in 14 renditions: 0 errors, 0 warnings") && page.contains("No finding."),
                "\(page.prefix(2000))"
            )
            #expect(try server.get("/preview/evening-news?session=m-1").contains("href=\"/preview/evening-news/media\""))
        }

        @Test("Chromium: the page shows every break and ad, the highlight follows playback, restricted breaks snap back, no console errors")
        func browserFollowsTheManifest() async throws {
            let server = try await ServerEndToEndTests.Server()
            let query = "session=browser-1&at=\(Self.at)&locale=en-GB"
            let report = try Self.json(try server.get("/preview/evening-news/report.json?\(query)"))
            let timeline = try #require(report["timeline"] as? [[String: Any]])
            let breaks = try #require(report["breaks"] as? [[String: Any]])
            let restricted = try #require(breaks.first { !(($0["restrict"] as? [String]) ?? []).isEmpty })
            let (breakStart, breakEnd) = (Self.seconds(restricted["start"]), Self.seconds(restricted["end"]))
            let browser = try await WebDriver()
            do {
                try await browser.open(try #require(URL(string: "http://127.0.0.1:\(server.port)/preview/evening-news?\(query)")))

                // Every piece of the plan is drawn, in order, with its exact times, and visible.
                let drawn =
                    try await browser.execute(
                        """
                        return Array.from(document.querySelectorAll('#timeline .piece')).map(function (n) {
                          return [n.dataset.kind, n.dataset.id, n.dataset.start, n.dataset.end, n.getBoundingClientRect().width > 0];
                        });
                        """
                    ) as? [[Any]] ?? []
                let expected = timeline.map { ["\($0["kind"] ?? "")", "\($0["id"] ?? "")", "\($0["start"] ?? "")", "\($0["end"] ?? "")"] }
                #expect(drawn.map { $0.prefix(4).map { "\($0)" } } == expected)
                #expect(drawn.allSatisfy { $0.last as? Bool == true }, "a piece of the timeline is not visible")
                let reasons =
                    try await browser.execute(
                        "return Array.from(document.querySelectorAll('.break-reasons')).map(function (n) { return n.dataset.break; })"
                    ) as? [String]
                #expect(reasons == breaks.map { "\($0["id"] ?? "")" })

                // Play at 2×; a listener added after the page's records, at every timeupdate, which
                // piece is highlighted and whether it holds the current time.
                _ = try await browser.execute(
                    """
                    const v = document.getElementById('video');
                    window.seenPieces = []; window.badHighlights = []; window.seenBreaks = [];
                    v.addEventListener('timeupdate', function () {
                      if (v.seeking) return;
                      const c = document.querySelector('#timeline .piece.current');
                      const start = c ? c.dataset.start : null;
                      if (window.seenPieces[window.seenPieces.length - 1] !== start) window.seenPieces.push(start);
                      // currentTime moves on between two listeners of one event: 0.1 s of slack.
                      if (!c || v.currentTime < Number(c.dataset.start) - 0.1 || v.currentTime >= Number(c.dataset.end) + 0.1) window.badHighlights.push(v.currentTime);
                      const row = document.querySelector('.break-reasons tr.current');
                      if (c && c.dataset.kind === 'ad' && (!row || row.dataset.ad !== c.dataset.id)) window.badHighlights.push('reason row at ' + v.currentTime);
                      const b = document.querySelector('.break-reasons.current');
                      const id = b ? b.dataset.break : null;
                      if (window.seenBreaks[window.seenBreaks.length - 1] !== id) window.seenBreaks.push(id);
                    });
                    v.playbackRate = 2; v.play(); return true;
                    """
                )
                var state: [Any] = []
                let deadline = Date().addingTimeInterval(60)
                while Date() < deadline {
                    try await Task.sleep(for: .milliseconds(500))
                    state =
                        try await browser.execute(
                            "const v = document.getElementById('video'); v.playbackRate = 2; return [v.currentTime, v.error ? v.error.message : null, v.ended];"
                        ) as? [Any] ?? []
                    if (state.first as? Double ?? 0) > breakEnd + 1 || !(state.count > 1 && state[1] is NSNull) || state.last as? Bool == true {
                        break
                    }
                }
                #expect((state.first as? Double ?? 0) > breakEnd + 1, "playback stopped at \(state)")
                // Paused, so what was recorded and where it stopped agree.
                let reached =
                    try await browser.execute("const v = document.getElementById('video'); v.pause(); return v.currentTime;") as? Double ?? 0
                try await Task.sleep(for: .milliseconds(300))
                let seen = try await browser.execute("return [window.seenPieces, window.badHighlights, window.seenBreaks];") as? [[Any]] ?? []
                let passed = timeline.filter { Self.seconds($0["start"]) < reached }.map { "\($0["start"] ?? "")" }
                #expect(seen.first?.map { "\($0)" } == passed, "the highlight did not follow the pieces in order")
                #expect(seen.count > 1 && seen[1].isEmpty, "highlighted pieces that were not playing at \(seen.count > 1 ? seen[1] : [])")
                let breaksPassed = breaks.filter { Self.seconds($0["start"]) < reached }.map { "\($0["id"] ?? "")" }
                #expect(seen.last?.compactMap { $0 as? String } == breaksPassed, "the break list did not follow playback")

                // Snap-back: a fresh page; an unrestricted seek (over the pre-roll) is allowed, a
                // seek over the restricted break lands at its start.
                try await browser.open(try #require(URL(string: "http://127.0.0.1:\(server.port)/preview/evening-news?\(query)")))
                _ = try await browser.execute("document.getElementById('video').play(); return true;")
                let islandStart = Self.seconds(timeline.first { "\($0["kind"] ?? "")" == "island" }?["start"])
                let allowed = try await self.seek(browser, to: islandStart + 1, after: 0.3)
                #expect(abs(allowed.time - (islandStart + 1)) < 1, "an unrestricted seek was moved: \(allowed)")
                #expect(allowed.notice.isEmpty)
                let snapped = try await self.seek(browser, to: breakEnd + 2, after: islandStart + 1.2)
                #expect(
                    snapped.time >= breakStart - 0.1 && snapped.time < breakStart + 2,
                    "a seek over restricted break \(restricted["id"] ?? "") landed at \(snapped.time), not \(breakStart)"
                )
                #expect(snapped.notice.contains("cannot be skipped"), "no notice: \(snapped)")
                try await Task.sleep(for: .seconds(1))
                try FileManager.default.createDirectory(at: Self.artefacts, withIntermediateDirectories: true)
                try await browser.screenshot(to: Self.artefacts.appendingPathComponent("preview-evening-news.png"))
                #expect(try await browser.severeLogs().isEmpty)
            } catch {
                await browser.quit()
                throw error
            }
            await browser.quit()
        }

        /// Where screenshots go (kept after the run to be looked at).
        static let artefacts = Repository.root.appendingPathComponent(".build/test-artefacts")

        /// Waits until the video has played past `after`, seeks to `time`, and returns where it
        /// settled and the page's notice.
        private func seek(_ browser: WebDriver, to time: Double, after: Double) async throws -> (time: Double, notice: String) {
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                let now = try await browser.execute("return document.getElementById('video').currentTime;") as? Double ?? 0
                if now > after { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            _ = try await browser.execute("document.getElementById('video').currentTime = \(time); return true;")
            var result: [Any] = []
            for _ in 0..<40 {
                try await Task.sleep(for: .milliseconds(250))
                result =
                    try await browser.execute(
                        "const v = document.getElementById('video'); return [v.seeking, v.currentTime, document.getElementById('notice').textContent];"
                    ) as? [Any] ?? []
                if result.first as? Bool == false { break }
            }
            return (result.count > 1 ? result[1] as? Double ?? -1 : -1, result.count > 2 ? "\(result[2])" : "")
        }
    }
}

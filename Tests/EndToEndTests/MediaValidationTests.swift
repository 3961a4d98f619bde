import Foundation
import Testing

/// `adstitch validate --media` on media made to fail each check (ffmpeg's lavfi sources): an ad
/// cut at non-keyframes (`-hls_flags split_by_time`), an ad whose audio starts half a second
/// late, an ad whose segments lost their PAT and PMT, an ad whose BANDWIDTH lies, an ad whose
/// CODECS names the wrong profile and audio codec — beside a programme that passes every check, in
/// MPEG-TS and in fMP4.
@Suite("validate --media", .serialized)
struct MediaValidationTests {
    /// One finding of the JSON report.
    struct Finding: Decodable {
        var severity: String
        var check: String
        var asset: String
        var file: String
        var message: String
    }

    struct Rendition: Decodable {
        var asset: String
        var probedCodecs: [String]
        var measuredPeak: Int?
        var declaredBandwidth: Int?
    }

    struct Report: Decodable {
        var findings: [Finding]
        var renditions: [Rendition]
        var probed: Int
    }

    struct Document: Decodable {
        struct File: Decodable { var media: Report? }
        var files: [File]
    }

    /// Encodes `seconds` of 320x180 H.264 Baseline 3.0 at 25 fps with AAC into `folder/v/` as an
    /// HLS playlist of `segment`-second segments; `extra` adds ffmpeg arguments.
    static func encode(
        _ folder: URL,
        seconds: Int,
        segment: Int,
        gop: Int = 50,
        audioOffset: String? = nil,
        fragmented: Bool = false,
        extra: [String] = []
    )
        async throws
    {
        let output = folder.appendingPathComponent("v")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        var arguments = ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25"]
        if let audioOffset { arguments += ["-itsoffset", audioOffset] }
        arguments += ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "\(seconds)"]
        arguments += ["-c:v", "libx264", "-profile:v", "baseline", "-level", "3.0", "-g", "\(gop)", "-keyint_min", "\(gop)", "-sc_threshold", "0"]
        arguments += ["-c:a", "aac", "-b:a", "64k", "-f", "hls", "-hls_time", "\(segment)", "-hls_playlist_type", "vod"] + extra
        if fragmented {
            arguments += ["-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4", "-hls_segment_filename", output.path + "/seg_%03d.m4s"]
        } else {
            arguments += ["-hls_segment_filename", output.path + "/seg_%03d.ts"]
        }
        let result = try await Tool.run("ffmpeg", arguments + [output.appendingPathComponent("index.m3u8").path])
        #expect(result.status == 0, "ffmpeg: \(result.output)")
    }

    static func master(_ folder: URL, bandwidth: Int = 2_000_000, codecs: String = "avc1.42c01e,mp4a.40.2") throws {
        let text = """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-STREAM-INF:BANDWIDTH=\(bandwidth),CODECS="\(codecs)",RESOLUTION=320x180,FRAME-RATE=25.000
            v/index.m3u8

            """
        try Data(text.utf8).write(to: folder.appendingPathComponent("master.m3u8"))
    }

    /// Drops the PAT (PID 0) and ffmpeg's PMT (PID 0x1000) packets from a TS file.
    static func stripTables(_ file: URL) throws {
        let bytes = try Data(contentsOf: file)
        var kept = Data()
        for start in stride(from: 0, to: bytes.count - 187, by: 188) {
            let pid = Int(bytes[start + 1] & 0x1F) << 8 | Int(bytes[start + 2])
            if pid != 0, pid != 0x1000 { kept.append(bytes[start..<start + 188]) }
        }
        try kept.write(to: file)
    }

    static func campaign(_ folder: URL, ads: [String]) throws {
        let yaml = """
            version: 1
            id: media-check
            program: { islands: [ { id: act-1, playlist: programme/master.m3u8 } ] }
            breaks: [ { id: pre, before: act-1, duration: 4, pools: [all] } ]
            pools:
              all:
            \(ads.map { "    - { id: \($0), playlist: \($0)/master.m3u8 }" }.joined(separator: "\n"))

            """
        try Data(yaml.utf8).write(to: folder.appendingPathComponent("campaign.yaml"))
    }

    static func run(_ folder: URL, format: String) async throws -> Tool.Result {
        try await CLITests().adstitch(["validate", "--media", "--format", format, folder.appendingPathComponent("campaign.yaml").path])
    }

    @Test("MPEG-TS: each broken ad gets its finding, in the file it is about; the programme none")
    func transportStreamFindings() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("media-check-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        let programme = folder.appendingPathComponent("programme")
        try await Self.encode(programme, seconds: 6, segment: 2)
        try Self.master(programme)
        // Cut every second, a keyframe every ten: every segment but the first starts mid-GOP.
        try await Self.encode(folder.appendingPathComponent("cut"), seconds: 3, segment: 1, gop: 250, extra: ["-hls_flags", "split_by_time"])
        try Self.master(folder.appendingPathComponent("cut"))
        try await Self.encode(folder.appendingPathComponent("skewed"), seconds: 4, segment: 2, audioOffset: "0.5")
        try Self.master(folder.appendingPathComponent("skewed"))
        let tables = folder.appendingPathComponent("tables")
        try await Self.encode(tables, seconds: 2, segment: 2)
        try Self.stripTables(tables.appendingPathComponent("v/seg_000.ts"))
        try Self.master(tables)
        try await Self.encode(folder.appendingPathComponent("lying"), seconds: 2, segment: 2)
        try Self.master(folder.appendingPathComponent("lying"), bandwidth: 20_000)
        try await Self.encode(folder.appendingPathComponent("codecs"), seconds: 2, segment: 2)
        try Self.master(folder.appendingPathComponent("codecs"), codecs: "avc1.64001f,ac-3")
        try Self.campaign(folder, ads: ["cut", "skewed", "tables", "lying", "codecs"])

        let result = try await Self.run(folder, format: "json")
        #expect(result.status == 1, "\(result.output)")
        let json = String(result.output.drop { $0 != "{" })
        let report = try #require(try JSONDecoder().decode(Document.self, from: Data(json.utf8)).files.first?.media, "\(result.output)")
        let findings = Dictionary(grouping: report.findings, by: \.asset)
        #expect(findings["island \"act-1\""] == nil, "the programme passes: \(findings["island \"act-1\""].map { $0.map(\.message) } ?? [])")
        #expect(report.renditions.first { $0.asset == "island \"act-1\"" }?.probedCodecs == ["h264 Constrained Baseline level 30", "aac LC"])
        #expect(report.renditions.allSatisfy { ($0.measuredPeak ?? 0) > 0 }, "every variant's peak is measured")

        let cut = findings["ad \"cut\""] ?? []
        #expect(cut.map(\.check) == ["keyframe"], "\(cut.map(\.message))")
        #expect(cut.first?.severity == "error" && cut.first?.file.hasSuffix("cut/v/seg_002.ts") == true, "the last segment, not the first")

        let skewed = findings["ad \"skewed\""] ?? []
        #expect(skewed.map(\.check) == ["skew"], "\(skewed.map(\.message))")
        // Half a second late, less the AAC encoder's priming (1024 samples, 21 ms).
        let skew = skewed.first?.message.components(separatedBy: "audio starts ").dropFirst().first?.split(separator: " ").first.flatMap {
            Double($0)
        }
        #expect(
            skew.map { (0.45...0.55).contains($0) } == true && skewed.first?.message.contains("after its video") == true,
            "\(skewed.map(\.message))"
        )

        let stripped = findings["ad \"tables\""] ?? []
        #expect(
            stripped.contains { $0.check == "tables" && $0.severity == "error" && $0.file.hasSuffix("tables/v/seg_000.ts") },
            "\(stripped.map(\.message))"
        )
        #expect(stripped.first { $0.check == "tables" }?.message.contains("no PAT") == true)

        let lying = findings["ad \"lying\""] ?? []
        #expect(lying.map(\.check) == ["bandwidth"] && lying.first?.severity == "error", "\(lying.map(\.message))")
        let peak = try #require(report.renditions.first { $0.asset == "ad \"lying\"" }?.measuredPeak)
        #expect(lying.first?.message.contains("measured peak \(peak) b/s") == true && lying.first?.message.contains("BANDWIDTH=20000") == true)

        let codecs = (findings["ad \"codecs\""] ?? []).filter { $0.check == "codecs" }
        #expect(
            codecs.contains { $0.severity == "error" && $0.message.contains("carries aac audio but CODECS=\"avc1.64001f,ac-3\"") },
            "\(codecs.map(\.message))"
        )
        #expect(
            codecs.contains { $0.severity == "warning" && $0.message.contains("declares avc1.64001f but the stream is Constrained Baseline level 3") }
        )

        // Text: a line per finding, file first, the check last; a progress line on standard error.
        let text = try await Self.run(folder, format: "text")
        #expect(text.status == 1)
        #expect(
            text.output.contains(
                "cut/v/seg_002.ts: error: ad \"cut\" variant 320x180 avc1.42c01e,mp4a.40.2: segment 2 does not start with a keyframe"
            )
        )
        #expect(text.output.contains("[keyframe]") && text.output.contains("probing segments: "), "\(text.output)")
    }

    @Test("fMP4: init sections are read with their segments; a clean ladder has no finding and every codec is seen")
    func fragmentedMP4() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("media-check-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, seconds) in [("programme", 6), ("clean", 4)] {
            try await Self.encode(folder.appendingPathComponent(name), seconds: seconds, segment: 2, fragmented: true)
            try Self.master(folder.appendingPathComponent(name))
        }
        try Self.campaign(folder, ads: ["clean"])
        let result = try await Self.run(folder, format: "json")
        #expect(result.status == 0, "\(result.output)")
        let json = String(result.output.drop { $0 != "{" })
        let report = try #require(try JSONDecoder().decode(Document.self, from: Data(json.utf8)).files.first?.media)
        #expect(report.findings.isEmpty, "\(report.findings.map(\.message))")
        #expect(report.probed == 4)
        #expect(report.renditions.map(\.probedCodecs) == Array(repeating: ["h264 Constrained Baseline level 30", "aac LC"], count: 2))
    }
}

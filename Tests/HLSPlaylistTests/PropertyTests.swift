import Foundation
import HLSPlaylist
import Testing

/// Properties checked over a few hundred generated playlists: parse then write is the identity
/// on canonical text, and the model's numbers are exactly the ones generated.
@Suite("Properties of generated playlists")
struct PropertyTests {
    static let mediaCases: UInt64 = 300
    static let multivariantCases: UInt64 = 150

    @Test("a generated media playlist round-trips byte for byte")
    func mediaPlaylistRoundTrips() throws {
        for seed in 0..<Self.mediaCases {
            var random = SplitMix64(seed: seed)
            let generated = GeneratedMediaPlaylist(using: &random)
            let playlist = try parseMedia(generated.text)
            #expect(bytes(PlaylistWriter().write(playlist)) == bytes(generated.text), "seed \(seed):\n\(generated.text)")
        }
    }

    @Test("a generated media playlist's duration is the exact sum of the generated durations")
    func mediaPlaylistDurationIsExact() throws {
        for seed in 0..<Self.mediaCases {
            var random = SplitMix64(seed: seed)
            let generated = GeneratedMediaPlaylist(using: &random)
            let playlist = try parseMedia(generated.text)
            let expected = ExactDecimal(scaledValue: Int128(generated.segments.map(\.microseconds).reduce(0, +)) * 1_000_000_000_000)
            #expect(playlist.duration == expected, "seed \(seed)")
            #expect(playlist.segments.count == generated.segments.count, "seed \(seed)")
            #expect(playlist.segments.map { String($0.durationText) } == generated.segments.map(\.durationText), "seed \(seed)")
        }
    }

    @Test("a generated media playlist's segments carry the generated titles, URIs, byte ranges, keys and sequence numbers")
    func mediaPlaylistSegmentsMatch() throws {
        for seed in 0..<Self.mediaCases {
            var random = SplitMix64(seed: seed)
            let generated = GeneratedMediaPlaylist(using: &random)
            let playlist = try parseMedia(generated.text)
            guard playlist.segments.count == generated.segments.count else {
                Issue.record("seed \(seed): \(playlist.segments.count) segments, expected \(generated.segments.count)")
                continue
            }
            var discontinuities = 0
            for (index, (segment, expected)) in zip(playlist.segments, generated.segments).enumerated() {
                let context: Comment = "seed \(seed), segment \(index)"
                #expect(segment.title.map(String.init) == expected.title, context)
                #expect(String(segment.uri) == expected.uri, context)
                #expect(segment.byteRange?.length == expected.byteRange?.length, context)
                #expect(segment.byteRange?.offset == expected.byteRange?.offset, context)
                #expect(segment.byteRange?.isOffsetExplicit == expected.byteRange?.isExplicit, context)
                #expect(segment.keys.compactMap(\.uri) == expected.keyURIs, context)
                #expect(segment.isDiscontinuity == expected.isDiscontinuity, context)
                if expected.isDiscontinuity { discontinuities += 1 }
                #expect(segment.mediaSequenceNumber == generated.mediaSequence + index, context)
                #expect(segment.discontinuitySequenceNumber == discontinuities, context)
            }
        }
    }

    @Test("a generated media playlist lints without errors")
    func mediaPlaylistLintsClean() throws {
        for seed in 0..<Self.mediaCases {
            var random = SplitMix64(seed: seed)
            let generated = GeneratedMediaPlaylist(using: &random)
            let errors = PlaylistLinter().lint(try parseMedia(generated.text)).errors
            #expect(errors.isEmpty, "seed \(seed): \(errors)\n\(generated.text)")
        }
    }

    @Test("BOM, CRLF, blank lines and a missing final newline all normalise back to the generated text")
    func normalisedVariantsWriteCanonicalText() throws {
        for seed in 0..<Self.mediaCases {
            var random = SplitMix64(seed: seed &+ 1_000_000)
            let generated = GeneratedMediaPlaylist(using: &random)
            let dirty = Self.dirtied(generated.text, using: &random)
            let written = PlaylistWriter().write(try PlaylistParser().parse(dirty))
            #expect(bytes(written) == bytes(generated.text), "seed \(seed): \(dirty.debugDescription)")
        }
    }

    @Test("a generated multivariant playlist round-trips and keeps its variants, attributes and renditions")
    func multivariantPlaylistRoundTrips() throws {
        for seed in 0..<Self.multivariantCases {
            var random = SplitMix64(seed: seed &+ 2_000_000)
            let generated = GeneratedMultivariantPlaylist(using: &random)
            let playlist = try parseMultivariant(generated.text)
            let context: Comment = "seed \(seed):\n\(generated.text)"
            #expect(bytes(PlaylistWriter().write(playlist)) == bytes(generated.text), context)
            #expect(playlist.variants.map { String($0.uri) } == generated.variants.map(\.uri), context)
            #expect(playlist.variants.map(\.streamInf.bandwidth) == generated.variants.map(\.bandwidth), context)
            #expect(
                playlist.variants.map { $0.streamInf.attributes.attributes.map(\.name) } == generated.variants.map(\.attributeNames),
                context
            )
            #expect(
                playlist.variants.map { $0.streamInf.attributes["FRAME-RATE"]?.rawValue } == generated.variants.map(\.frameRate),
                context
            )
            #expect(playlist.renditions.count == generated.renditionCount, context)
            #expect(playlist.iFrameVariants.count == generated.iFrameVariantCount, context)
            #expect(PlaylistLinter().lint(playlist).errors.isEmpty, context)
        }
    }

    /// The same playlist with every normalisation the parser undoes.
    static func dirtied(_ text: String, using random: inout SplitMix64) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast()  // the empty string after the final newline
        var dirty: [String] = [lines[0]]  // a blank line before #EXTM3U would move the header off line 1
        for line in lines.dropFirst() {
            for _ in 0..<random.int(in: 0...2) where random.chance(0.3) {
                dirty.append(["", " ", "\t", "  \t "].randomElement(using: &random)!)
            }
            dirty.append(line)
        }
        let ending = ["\r\n", "\r", "\n"].randomElement(using: &random)!
        var result = dirty.joined(separator: ending)
        if random.chance(0.5) { result += ending }
        if random.chance(0.3) { result = "\u{FEFF}" + result }
        return result
    }
}

// MARK: - Generator

/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny generator with a 64-bit state, so every
/// case is reproducible from its seed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        self.state = seed
    }

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func int(in range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &self)
    }

    mutating func chance(_ probability: Double) -> Bool {
        Double(self.next() >> 11) / Double(1 << 53) < probability
    }

    mutating func digits(_ count: Int) -> String {
        String((0..<count).map { _ in Character(String(self.int(in: 0...9))) })
    }

    mutating func hexDigits(_ count: Int, uppercase: Bool) -> String {
        let alphabet = Array(uppercase ? "0123456789ABCDEF" : "0123456789abcdef")
        return String((0..<count).map { _ in alphabet[self.int(in: 0...15)] })
    }
}

/// A random valid media playlist in canonical form, with what each segment should parse to.
struct GeneratedMediaPlaylist {
    struct Segment {
        var durationText: String
        var microseconds: Int
        var title: String?
        var uri: String
        var byteRange: (length: Int, offset: Int?, isExplicit: Bool)?
        var keyURIs: [String]
        var isDiscontinuity: Bool
    }

    var text: String
    var segments: [Segment] = []
    var mediaSequence = 0

    init(using random: inout SplitMix64) {
        // Durations first: the target duration in the header depends on them.
        let count = random.int(in: 0...30)
        var durations: [(text: String, microseconds: Int)] = []
        for _ in 0..<count {
            let seconds = random.int(in: 0...11)
            let decimals = random.int(in: 0...6)
            let fraction = random.digits(decimals)
            let padded = fraction + String(repeating: "0", count: 6 - decimals)
            durations.append((decimals == 0 ? "\(seconds)" : "\(seconds).\(fraction)", seconds * 1_000_000 + Int(padded)!))
        }
        let longest = durations.map { ($0.microseconds + 500_000) / 1_000_000 }.max() ?? 1

        var lines = ["#EXTM3U"]
        if random.chance(0.3) { lines.append("## generated by AdStitch PropertyTests") }
        lines.append("#EXT-X-VERSION:7")
        lines.append("#EXT-X-TARGETDURATION:\(max(longest, 1))")
        if random.chance(0.5) {
            self.mediaSequence = random.int(in: 0...1_000_000)
            lines.append("#EXT-X-MEDIA-SEQUENCE:\(self.mediaSequence)")
        }
        if random.chance(0.3) { lines.append("#EXT-X-PLAYLIST-TYPE:EVENT") }

        let titles = ["Ad", "Acme, Inc. - 30s spot", "news: live, breaking", "Café au lait", "a=b,c=d", "#1 hit"]
        var keyURIs: [String] = []
        var previousRangeEnd: Int?  // end of the previous segment's range of media.ts
        for (index, duration) in durations.enumerated() {
            if random.chance(0.15) { lines.append("# segment \(index)") }
            if random.chance(0.1) { lines.append("#EXT-X-ADSTITCH-MARK:ID=\(index),NOTE=\"x, y=z\"") }
            if random.chance(0.05) { lines.append("#EXT-ADSTITCH-BARE") }
            let isDiscontinuity = random.chance(0.1)
            if isDiscontinuity { lines.append("#EXT-X-DISCONTINUITY") }
            if random.chance(0.15) {
                if random.chance(0.25) {
                    lines.append("#EXT-X-KEY:METHOD=NONE")
                    keyURIs = []
                } else {
                    let uri = "https://keys.example.com/k/\(random.int(in: 0...999_999))?v=\(index)"
                    let prefix = random.chance(0.5) ? "0x" : "0X"
                    let iv = prefix + random.hexDigits(32, uppercase: random.chance(0.5))
                    lines.append("#EXT-X-KEY:METHOD=AES-128,URI=\"\(uri)\",IV=\(iv)")
                    keyURIs = [uri]
                }
            }

            let title: String? =
                if random.chance(0.1) { nil } else if random.chance(0.5) { "" } else { titles.randomElement(using: &random)! }
            let inf = "#EXTINF:\(duration.text)" + (title.map { ",\($0)" } ?? "")

            var byteRange: (length: Int, offset: Int?, isExplicit: Bool)?
            var byteRangeLine: String?
            if random.chance(0.35) {
                let length = random.int(in: 1...2_000_000)
                if let end = previousRangeEnd, random.chance(0.6) {
                    byteRange = (length, end, false)
                    byteRangeLine = "#EXT-X-BYTERANGE:\(length)"
                } else {
                    let offset = random.int(in: 0...50_000_000)
                    byteRange = (length, offset, true)
                    byteRangeLine = "#EXT-X-BYTERANGE:\(length)@\(offset)"
                }
                previousRangeEnd = byteRange!.offset! + length
            } else {
                previousRangeEnd = nil
            }
            // Segment tags may come in any order before the URI.
            if let byteRangeLine, random.chance(0.5) {
                lines += [byteRangeLine, inf]
            } else {
                lines.append(inf)
                if let byteRangeLine { lines.append(byteRangeLine) }
            }
            if random.chance(0.05) { lines.append("# between EXTINF and URI") }
            let uri = byteRange == nil ? "seg\(index).ts" + (random.chance(0.3) ? "?token=\(random.hexDigits(8, uppercase: false))" : "") : "media.ts"
            lines.append(uri)
            self.segments.append(
                Segment(
                    durationText: duration.text,
                    microseconds: duration.microseconds,
                    title: title,
                    uri: uri,
                    byteRange: byteRange,
                    keyURIs: keyURIs,
                    isDiscontinuity: isDiscontinuity
                )
            )
        }
        if random.chance(0.7) { lines.append("#EXT-X-ENDLIST") }
        if random.chance(0.1) { lines.append("# end") }
        self.text = lines.joined(separator: "\n") + "\n"
    }
}

/// A random valid multivariant playlist in canonical form.
struct GeneratedMultivariantPlaylist {
    struct Variant {
        var uri: String
        var bandwidth: Int
        var attributeNames: [String]
        var frameRate: String?
    }

    var text: String
    var variants: [Variant] = []
    var renditionCount = 0
    var iFrameVariantCount = 0

    init(using random: inout SplitMix64) {
        var lines = ["#EXTM3U"]
        if random.chance(0.7) { lines.append("#EXT-X-VERSION:\(random.int(in: 3...7))") }
        if random.chance(0.5) { lines.append("#EXT-X-INDEPENDENT-SEGMENTS") }
        if random.chance(0.3) {
            lines.append("#EXT-X-SESSION-DATA:DATA-ID=\"com.example.title\",VALUE=\"Title, with=punctuation\"")
        }
        let languages = [("en", "English"), ("fr", "Français"), ("de", "Deutsch"), ("ja", "日本語")]
        let audioCount = random.int(in: 0...3)
        for (index, (code, name)) in languages.prefix(audioCount).enumerated() {
            let isDefault = index == 0 ? "YES" : "NO"
            lines.append(
                "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aud\",LANGUAGE=\"\(code)\",NAME=\"\(name)\",DEFAULT=\(isDefault),AUTOSELECT=YES,"
                    + "URI=\"audio/\(code).m3u8\""
            )
        }
        let hasSubtitles = random.chance(0.4)
        if hasSubtitles {
            lines.append("#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"subs\",LANGUAGE=\"en\",NAME=\"English\",URI=\"subs/en.m3u8\"")
        }
        self.renditionCount = audioCount + (hasSubtitles ? 1 : 0)

        let resolutions = ["416x234", "640x360", "960x540", "1280x720", "1920x1080", "3840x2160"]
        let frameRates = ["23.976", "25.000", "29.970", "30", "50", "59.940"]
        for index in 0..<random.int(in: 1...8) {
            let bandwidth = random.int(in: 64_000...40_000_000)
            var attributes: [(String, String)] = [("BANDWIDTH", "\(bandwidth)")]
            if random.chance(0.5) { attributes.append(("AVERAGE-BANDWIDTH", "\(bandwidth * 9 / 10)")) }
            if random.chance(0.8) { attributes.append(("CODECS", "\"avc1.64001f,mp4a.40.2\"")) }
            if random.chance(0.8) { attributes.append(("RESOLUTION", resolutions.randomElement(using: &random)!)) }
            var frameRate: String?
            if random.chance(0.6) {
                frameRate = frameRates.randomElement(using: &random)!
                attributes.append(("FRAME-RATE", frameRate!))
            }
            if audioCount > 0 { attributes.append(("AUDIO", "\"aud\"")) }
            if hasSubtitles { attributes.append(("SUBTITLES", "\"subs\"")) }
            attributes.shuffle(using: &random)
            lines.append("#EXT-X-STREAM-INF:" + attributes.map { "\($0.0)=\($0.1)" }.joined(separator: ","))
            if random.chance(0.2) { lines.append("# rung \(index)") }
            let uri = "v\(index)/index.m3u8" + (random.chance(0.3) ? "?session=\(random.hexDigits(6, uppercase: false))" : "")
            lines.append(uri)
            self.variants.append(Variant(uri: uri, bandwidth: bandwidth, attributeNames: attributes.map(\.0), frameRate: frameRate))
        }
        self.iFrameVariantCount = random.int(in: 0...2)
        for index in 0..<self.iFrameVariantCount {
            lines.append("#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=\(random.int(in: 10_000...60_000)),URI=\"v\(index)/iframes.m3u8\"")
        }
        self.text = lines.joined(separator: "\n") + "\n"
    }
}

import Foundation
import HLSPlaylist
import Testing

/// Issue 54: a quoted-string cannot hold a double quote, CR or LF (RFC 8216bis §4.2) and has no
/// escape, so whatever a name, language or URI holds, every quoted-string we write goes through
/// one rule (`AttributeList.quotable(_:name:)`): percent-encoded in a URI attribute, an apostrophe
/// and a space elsewhere. For generated values of every awkward shape — quotes, commas, `=`, line
/// breaks, CRLF, non-ASCII, empty — through both writers (the attribute model and `TagBytes`):
/// the line parses back as one tag with each attribute whole and its value the rule's.
@Suite("Quoted strings")
struct QuotedStringTests {
    static func generate(_ count: Int, seed: UInt64) -> [String] {
        var generator = SplitMix64(seed: seed)
        let pieces = ["\"", ",", "=", "\n", "\r", "\r\n", " ", "Le ", "Spot", "2", "fr", "é", "日本", "#EXT-X-ENDLIST", "'", "%", "/", ""]
        return ["Le \"Spot\", 2", "fr\"", "", "\"", "a\nb"]
            + (0..<count).map { _ in (0..<Int.random(in: 1...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined() }
    }

    @Test("an EXT-X-MEDIA of generated NAME, LANGUAGE, GROUP-ID and URI values writes a multivariant playlist that parses back to the rule's values")
    func model() throws {
        var checked = 0
        for value in Self.generate(500, seed: 54) {
            var attributes = AttributeList()
            attributes.set("TYPE", rawValue: "AUDIO")
            attributes.setQuoted("GROUP-ID", value)
            attributes.setQuoted("NAME", value)
            attributes.setQuoted("LANGUAGE", value)
            attributes.setQuoted("URI", "audio/\(value)/index.m3u8")
            let lines: [PlaylistLine] = [
                .init(.tag(.m3u)), .init(.tag(.media(Media(attributes: attributes)))),
                .init(.tag(.streamInf(StreamInf(attributes: AttributeList([Attribute(name: "BANDWIDTH", rawValue: "1000")]))))),
                .init(.uri("v0.m3u8")),
            ]
            let text = PlaylistWriter().write(lines: lines)
            #expect(text.split(separator: "\n", omittingEmptySubsequences: false).count == 5, "one line per tag: \(text.debugDescription)")
            let playlist = try PlaylistParser().parseMultivariantPlaylist(text)
            let media = try #require(playlist.renditions.first?.value, "\(text.debugDescription)")
            let text_ = AttributeList.quotable(value, name: "NAME")
            #expect(media.name == text_ && media.groupID == text_ && media.language == text_, "\(value.debugDescription) → \(text.debugDescription)")
            #expect(!text_.contains("\"") && !text_.contains("\n") && !text_.contains("\r"))
            // A URI keeps the resource: its quotes and line breaks percent-encoded.
            let uri = try #require(media.uri)
            #expect(uri.removingPercentEncoding == "audio/\(value)/index.m3u8" || value.contains("%"), "\(uri)")
            #expect(!uri.contains("\"") && !uri.contains("\n") && !uri.contains("\r"))
            checked += 1
        }
        #expect(checked == 505)
    }

    @Test("TagBytes.quoted writes the same values as the model: an EXT-X-DATERANGE of generated IDs and CLASSes parses back")
    func tagBytes() throws {
        for value in Self.generate(500, seed: 5_454) {
            var bytes = Array("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-PROGRAM-DATE-TIME:2026-12-07T00:00:00.000Z\n#EXT-X-DATERANGE:".utf8)
            bytes.append(contentsOf: "START-DATE=\"2026-12-07T00:00:00.000Z\"".utf8)
            TagBytes.quoted("ID", value, into: &bytes)
            TagBytes.quoted("X-ASSET-LIST", "assets \(value).json", into: &bytes)
            TagBytes.quotedList("X-AD-IDS", [value, "b"], into: &bytes)
            bytes.append(contentsOf: "\n#EXTINF:6.000,\ns0.ts\n#EXT-X-ENDLIST\n".utf8)
            let text = String(decoding: bytes, as: UTF8.self)
            let playlist = try PlaylistParser().parseMediaPlaylist(text)
            let range = try #require(playlist.dateRanges.first?.dateRange, "\(text.debugDescription)")
            #expect(range.id == AttributeList.quotable(value, name: "ID"), "\(value.debugDescription)")
            #expect(range.attributes.string("X-ASSET-LIST") == AttributeList.quotable("assets \(value).json", name: "X-ASSET-LIST"))
            #expect(range.attributes.string("X-AD-IDS") == AttributeList.quotable(value, name: "X-AD-IDS") + ",b")
            #expect(playlist.segments.count == 1)
        }
    }
}

import AdCampaign
import Foundation
import HLSPlaylist

/// The segment lines of one asset in one stitched rendition, rendered once per campaign load
/// and reused for every session: stitching a session is then concatenation.
struct SegmentBlock: Sendable {
    /// `EXT-X-MAP`, `EXT-X-KEY` changes inside the block, `EXT-X-BYTERANGE`, `EXTINF` and URIs,
    /// each line ending in LF. The discontinuity and the key state at its start are the
    /// renderer's: they depend on the piece before. Written while the block is made, then moved
    /// into ``bytes`` by ``seal(id:)``.
    private(set) var text = ""
    /// The block's lines as the renderer writes them (after ``seal(id:)``), with slots for a
    /// viewer's values where rewrite templates put them.
    private(set) var bytes = ByteBlock(id: -1, bytes: [])
    /// The `EXT-X-KEY` lines in force at the first and last segment; empty when clear.
    var startKeys: [String] = []
    var endKeys: [String] = []
    /// Every key its segments are encrypted with, once each, as an `EXT-X-SESSION-KEY` declares it
    /// (METHOD, URI as written here, KEYFORMAT, KEYFORMATVERSIONS: no IV, which is per segment).
    var sessionKeys: [String] = []
    var duration = ExactDecimal.zero
    var maxRoundedDuration = 0
    /// The minimum EXT-X-VERSION the block's lines need (RFC 8216bis §8), by the rule the linter
    /// applies (``MediaPlaylist/minimumVersion``).
    var version = 1
    /// The source variant's figures, for the multivariant playlist.
    var bandwidth: Int?
    var averageBandwidth: Int?
    /// The `CODECS` of the variant it was cut from (video and I-frame renditions).
    var codecs: [String] = []
    /// The playlist the block was rendered from, for error messages.
    var source: URL?
    /// Each segment's lines on their own, with the map and keys in force at it: kept for live
    /// sessions, whose playlists list part of an asset (``SegmentBlock/init(_:uris:iFramesOnly:gap:fillURI:version:passthrough:perSegment:)``).
    private(set) var segments: [SegmentLines] = []

    /// Renders `playlist`'s segments. `gap` marks every segment EXT-X-GAP (an I-frame rendition the
    /// asset lacks); `fillURI` replaces every segment URI (an empty WebVTT for a missing subtitle
    /// rendition) and drops keys, maps and byte ranges; `fillMap` and `fillRange` then state the
    /// filler's own (the IMSC filler: ``IMSCFiller``).
    /// `version`: the block's version when known (a rewritten block needs what the block it
    /// rewrites needs), else worked out from its lines. `passthrough` (`markers_passthrough`):
    /// the playlist's own ad-marker tags are written before the segments they stand before.
    init(
        _ playlist: MediaPlaylist,
        uris: URIStyle,
        iFramesOnly: Bool = false,
        gap: Bool = false,
        fillURI: String? = nil,
        fillMap: String? = nil,
        fillRange: String? = nil,
        version: Int? = nil,
        passthrough: Bool = false,
        perSegment: Bool = false
    ) {
        self.source = playlist.url
        var currentKeys: [String]?
        var currentMap: String?
        var previousSourceKeys: [Key] = []
        let lines = playlist.lines
        for position in playlist.segments.indices {
            // Most segments have no key or map in force: their few lines come from the playlist's
            // index (making each a MediaSegment cost a fifth of a catalogue title's load).
            let full: MediaSegment?
            let segment: PlainSegment
            if !passthrough, let plain = playlist.plainSegment(at: position) {
                (full, segment) = (nil, plain)
            } else {
                let made = playlist.segments[position]
                (full, segment) = (made, PlainSegment(made))
            }
            var bodyStart = self.text.utf8.count
            if passthrough, fillURI == nil, !gap, let full {
                for index in full.lineIndices where Self.isPassedMarker(lines[index]) { self.text += lines[index].text + "\n" }
            }
            var keys: [String] = []
            if fillURI == nil, let full {
                for key in full.keys {
                    keys.append(self.keyLine(key, segment: full, playlist: playlist, uris: uris))
                    if let declared = Self.sessionKey(key, playlist: playlist, uris: uris), !self.sessionKeys.contains(declared) {
                        self.sessionKeys.append(declared)
                    }
                }
                if let map = full.map {
                    var attributes = map.attributes
                    if let uri = map.uri, let url = playlist.resolve(uri) { attributes.setQuoted("URI", uris.rewrite(url)) }
                    let line = "#EXT-X-MAP:\(attributes.serialized)"
                    // RFC 8216bis §4.4.4.5; docs/architecture.md invariant 6: the map starts every block, since a
                    // discontinuity precedes it.
                    if line != currentMap {
                        // The key in force at the EXT-X-MAP tag decrypts the init section (§4.4.4.5), so
                        // the map keeps the source's key state: a clear init section before the key
                        // line stays clear rather than being read as encrypted, and vice versa.
                        var mapKeys = keys
                        if let sourceKeys = Self.keysAtMap(of: full, in: playlist, after: previousSourceKeys) {
                            mapKeys = sourceKeys.map { self.keyLine($0, segment: full, playlist: playlist, uris: uris) }
                        }
                        self.enter(mapKeys, from: &currentKeys)
                        self.text += line + "\n"
                        currentMap = line
                    }
                }
            }
            if fillURI == nil {
                self.enter(keys, from: &currentKeys)
                previousSourceKeys = full?.keys ?? []
                bodyStart = self.text.utf8.count
                if let range = segment.byteRange, let offset = range.offset {
                    // docs/architecture.md invariant 7: segments no longer follow their original neighbours.
                    self.text += "#EXT-X-BYTERANGE:\(range.length)@\(offset)\n"
                }
            }
            if fillURI != nil, let fillMap {
                if currentMap == nil {
                    self.text += fillMap + "\n"
                    currentMap = fillMap
                }
                bodyStart = self.text.utf8.count
                if let fillRange { self.text += fillRange + "\n" }
            }
            if gap || segment.isGap { self.text += "#EXT-X-GAP\n" }
            self.text += "#EXTINF:\(segment.durationText),\(segment.title ?? "")\n"
            if let fillURI {
                self.text += fillURI + "\n"
            } else if uris.writesRemoteAsIs, playlist.appendResolvedText(segment.uri, to: &self.text) {
                self.text += "\n"
            } else if let url = playlist.resolve(segment.uri) {
                self.text += uris.rewrite(url) + "\n"
            } else {
                self.text += segment.uri + "\n"
            }
            self.duration += segment.duration
            self.maxRoundedDuration = max(self.maxRoundedDuration, segment.duration.roundedToInteger)
            if perSegment {
                self.segments.append(
                    SegmentLines(
                        map: currentMap,
                        keys: keys,
                        body: Array(self.text.utf8.dropFirst(bodyStart)),
                        duration: segment.duration
                    )
                )
            }
        }
        self.endKeys = currentKeys ?? []
        self.version = version ?? Self.minimumVersion(of: self.startKeys, self.text, iFramesOnly: iFramesOnly)
    }

    /// The marker tags `markers_passthrough` keeps: CUE-OUT, CUE-OUT-CONT, CUE-IN, OATCLS and
    /// SPLICEPOINT SCTE-35, placement opportunities. Not EXT-X-DATERANGE: its dates are on the
    /// source's PROGRAM-DATE-TIME timeline, not on the session's.
    static func isPassedMarker(_ line: PlaylistLine) -> Bool {
        switch line.content {
        case .tag(.cueOut), .tag(.cueOutCont), .tag(.cueIn), .tag(.oatclsSCTE35): true
        case .tag(.unknown(let name, _)): name == "EXT-X-SPLICEPOINT-SCTE35" || name == "EXT-X-PLACEMENT-OPPORTUNITY"
        default: false
        }
    }

    /// Moves the lines into ``bytes``, numbered `id` in the layout. With `slots` (a block the
    /// ``URIRewriter`` wrote, which leaves no other NUL byte in it), slot markers become the
    /// block's marks; any other block is taken byte for byte, a NUL a source URI holds included.
    mutating func seal(id: Int, slots: Bool = false) {
        let text = Array(self.text.utf8)
        self.text = ""
        guard slots, text.contains(URIRewriter.marker) else {
            self.bytes = ByteBlock(id: id, bytes: text)
            return
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count)
        var marks: [ByteBlock.Mark] = []
        var index = 0
        while index < text.count {
            if text[index] == URIRewriter.marker, index + 2 < text.count {
                marks.append(ByteBlock.Mark(offset: bytes.count, slot: Int(text[index + 1])))
                index += 3
            } else {
                bytes.append(text[index])
                index += 1
            }
        }
        self.bytes = ByteBlock(id: id, bytes: bytes, marks: marks)
    }

    /// The version the block's lines need, with the key lines the renderer writes before them:
    /// its lines read back as a playlist and judged by ``MediaPlaylist/minimumVersion`` (once per
    /// campaign load).
    private static func minimumVersion(of startKeys: [String], _ text: String, iFramesOnly: Bool) -> Int {
        let lines = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n" + (iFramesOnly ? "#EXT-X-I-FRAMES-ONLY\n" : "") + startKeys.map { $0 + "\n" }.joined() + text
        // The lines come from parsed playlists and always parse; were they not to, a version too
        // high still plays where one too low may not.
        return (try? PlaylistParser().parseMediaPlaylist(lines))?.minimumVersion ?? 12
    }

    /// Makes `keys` the key state from here on: the block's start state for its first segment
    /// (the renderer writes it after the discontinuity), else the lines that change to it.
    private mutating func enter(_ keys: [String], from current: inout [String]?) {
        if current == nil {
            self.startKeys = keys
        } else if let current {
            self.text += Self.keyTransition(from: current, to: keys)
        }
        current = keys
    }

    /// The lines that change the key state from `current` to `keys` (docs/architecture.md
    /// invariant 5): none when they are the same, `METHOD=NONE` into the clear, else every key of
    /// the new state — inside a block and between pieces alike.
    static func keyTransition(from current: [String], to keys: [String]) -> String {
        guard keys != current else { return "" }
        return keys.isEmpty ? "#EXT-X-KEY:METHOD=NONE\n" : keys.map { $0 + "\n" }.joined()
    }

    /// The keys in force at the `EXT-X-MAP` tag among the lines of `segment` in its source playlist,
    /// given those in force before them (RFC 8216bis §4.4.4.4: a key applies until the next one of
    /// its KEYFORMAT, or METHOD=NONE); nil when the segment's lines hold no map.
    private static func keysAtMap(of segment: MediaSegment, in playlist: MediaPlaylist, after previous: [Key]) -> [Key]? {
        var keys = previous
        var atMap: [Key]?
        let lines = playlist.lines
        for index in segment.lineIndices {
            switch lines[index].content {
            case .tag(.key(let key)):
                keys.apply(key)
            case .tag(.map):
                atMap = keys
            default:
                continue
            }
        }
        return atMap
    }

    /// An `EXT-X-KEY` line with its URI rewritten and its IV explicit: AES-128 and SAMPLE-AES
    /// without IV use the media sequence number (RFC 8216bis §5.2), which stitching renumbers
    /// (docs/architecture.md invariant 5).
    /// `key` as an `EXT-X-SESSION-KEY` declares it (RFC 8216bis §4.4.6.5: not METHOD=NONE); nil
    /// for METHOD=NONE.
    private static func sessionKey(_ key: Key, playlist: MediaPlaylist, uris: URIStyle) -> String? {
        guard let method = key.method, method != .noEncryption else { return nil }
        var attributes = AttributeList([Attribute(name: "METHOD", rawValue: method.rawValue)])
        if let uri = key.uri { attributes.setQuoted("URI", playlist.resolve(uri).map { uris.write($0, as: .key) } ?? uri) }
        attributes.setQuoted("KEYFORMAT", key.attributes.string("KEYFORMAT"))
        attributes.setQuoted("KEYFORMATVERSIONS", key.keyFormatVersions)
        return "#EXT-X-SESSION-KEY:\(attributes.serialized)"
    }

    private func keyLine(_ key: Key, segment: MediaSegment, playlist: MediaPlaylist, uris: URIStyle) -> String {
        var attributes = key.attributes
        if let uri = key.uri, let url = playlist.resolve(uri) { attributes.setQuoted("URI", uris.write(url, as: .key)) }
        if key.iv == nil, key.keyFormat == "identity", key.method == .aes128 || key.method == .sampleAES {
            let hex = String(segment.mediaSequenceNumber, radix: 16, uppercase: true)
            attributes.set("IV", rawValue: "0x" + String(repeating: "0", count: max(0, 32 - hex.count)) + hex)
        }
        return "#EXT-X-KEY:\(attributes.serialized)"
    }
}

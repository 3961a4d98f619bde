/// The media playlist tags a renderer writes per viewer besides date ranges and dates: each the
/// one home of its syntax (`TagBytesTests` parses every one back through the tag model to the same
/// ``Tag``). Their order in a playlist is the composer's (AdStitching's `PlaylistComposer`).
extension TagBytes {
    /// `#EXTM3U` (RFC 8216bis §4.4.1.1).
    @inlinable
    public static func m3u(into bytes: inout [UInt8]) { Self.line("#EXTM3U", into: &bytes) }

    /// `#EXT-X-VERSION:n` (§4.4.1.2).
    @inlinable
    public static func version(_ version: Int, into bytes: inout [UInt8]) { Self.integer("#EXT-X-VERSION:", version, into: &bytes) }

    /// `#EXT-X-TARGETDURATION:s` (§4.4.3.1).
    @inlinable
    public static func targetDuration(_ seconds: Int, into bytes: inout [UInt8]) {
        Self.integer("#EXT-X-TARGETDURATION:", seconds, into: &bytes)
    }

    /// `#EXT-X-MEDIA-SEQUENCE:n` (§4.4.3.2).
    @inlinable
    public static func mediaSequence(_ number: Int, into bytes: inout [UInt8]) {
        Self.integer("#EXT-X-MEDIA-SEQUENCE:", number, into: &bytes)
    }

    /// `#EXT-X-DISCONTINUITY-SEQUENCE:n` (§4.4.3.3).
    @inlinable
    public static func discontinuitySequence(_ number: Int, into bytes: inout [UInt8]) {
        Self.integer("#EXT-X-DISCONTINUITY-SEQUENCE:", number, into: &bytes)
    }

    /// `#EXT-X-PLAYLIST-TYPE:VOD` or `:EVENT` (§4.4.3.5).
    @inlinable
    public static func playlistType(_ type: PlaylistType, into bytes: inout [UInt8]) {
        Self.add("#EXT-X-PLAYLIST-TYPE:", to: &bytes)
        Self.line(type == .vod ? "VOD" : "EVENT", into: &bytes)
    }

    /// `#EXT-X-I-FRAMES-ONLY` (§4.4.3.6).
    @inlinable
    public static func iFramesOnly(into bytes: inout [UInt8]) { Self.line("#EXT-X-I-FRAMES-ONLY", into: &bytes) }

    /// `#EXT-X-INDEPENDENT-SEGMENTS` (§4.4.2.1).
    @inlinable
    public static func independentSegments(into bytes: inout [UInt8]) { Self.line("#EXT-X-INDEPENDENT-SEGMENTS", into: &bytes) }

    /// `#EXT-X-DISCONTINUITY` (§4.4.4.3).
    @inlinable
    public static func discontinuity(into bytes: inout [UInt8]) { Self.line("#EXT-X-DISCONTINUITY", into: &bytes) }

    /// `#EXT-X-GAP` (§4.4.4.7): the next segment is not to be loaded.
    @inlinable
    public static func gap(into bytes: inout [UInt8]) { Self.line("#EXT-X-GAP", into: &bytes) }

    /// `#EXT-X-ENDLIST` (§4.4.3.4).
    @inlinable
    public static func endList(into bytes: inout [UInt8]) { Self.line("#EXT-X-ENDLIST", into: &bytes) }

    /// `#EXT-X-CUE-OUT:DURATION=s`, the de-facto break start marker (no RFC; what AWS MediaTailor
    /// and most SSAI players read), with the break's exact duration.
    @inlinable
    public static func cueOut(duration: ExactDecimal, into bytes: inout [UInt8]) {
        Self.add("#EXT-X-CUE-OUT:DURATION=", to: &bytes)
        bytes.append(contentsOf: duration.description.utf8)
        bytes.append(UInt8(ascii: "\n"))
    }

    /// `#EXT-X-CUE-IN`, the break's end.
    @inlinable
    public static func cueIn(into bytes: inout [UInt8]) { Self.line("#EXT-X-CUE-IN", into: &bytes) }

    @usableFromInline
    static func line(_ text: StaticString, into bytes: inout [UInt8]) {
        Self.add(text, to: &bytes)
        bytes.append(UInt8(ascii: "\n"))
    }

    @usableFromInline
    static func integer(_ prefix: StaticString, _ value: Int, into bytes: inout [UInt8]) {
        Self.add(prefix, to: &bytes)
        bytes.append(contentsOf: String(value).utf8)
        bytes.append(UInt8(ascii: "\n"))
    }
}

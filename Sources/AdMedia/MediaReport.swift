import Foundation

/// What `validate --media` found in a campaign's media: findings, and what was measured of each
/// rendition of each piece (`--format json` writes it whole).
public struct MediaReport: Sendable, Codable, Hashable {
    public var campaign: String
    public var findings: [MediaFinding] = []
    public var renditions: [RenditionMeasurement] = []
    /// Segments ffprobe read.
    public var probed = 0
    /// What was not looked at, and why.
    public var notes: [String] = []

    public init(campaign: String) { self.campaign = campaign }

    public var errors: Int { self.findings.filter { $0.severity == .error }.count }

    mutating func add(
        _ severity: MediaFinding.Severity,
        _ check: MediaFinding.Check,
        _ target: MediaInspector.Target,
        file: String,
        _ message: String
    ) {
        self.findings.append(
            MediaFinding(severity: severity, check: check, asset: target.asset, rendition: target.rendition, file: file, message: message)
        )
    }
}

/// One thing wrong (or worth knowing) in one file of one rendition of one piece.
public struct MediaFinding: Sendable, Codable, Hashable {
    public enum Severity: String, Sendable, Codable, Hashable {
        case error, warning, note

        var rank: Int {
            switch self {
            case .error: 0
            case .warning: 1
            case .note: 2
            }
        }
    }

    /// Which check: `probe` (the segment could not be read), `keyframe`, `tables` (PAT/PMT),
    /// `codecs`, `bandwidth` (peak against BANDWIDTH), `skew` (audio against video).
    public enum Check: String, Sendable, Codable, Hashable {
        case probe, keyframe, tables, codecs, bandwidth, skew
    }

    public var severity: Severity
    public var check: Check
    /// `ad "alpha"`, `island "act-1"`, `the slate`.
    public var asset: String
    /// `variant 640x360 avc1.42c01e,mp4a.40.2`, `audio "English" (group aud)`.
    public var rendition: String
    /// The segment (or playlist) the finding is about: a path for a local file, else its URL.
    public var file: String
    public var message: String

    /// `file: error: ad "alpha" variant 640x360 …: message [keyframe]`.
    public var line: String { "\(self.file): \(self.severity.rawValue): \(self.asset) \(self.rendition): \(self.message) [\(self.check.rawValue)]" }
}

/// What was measured of one rendition of one piece.
public struct RenditionMeasurement: Sendable, Codable, Hashable {
    public var asset: String
    public var rendition: String
    public var playlist: String
    public var probedSegments: [String] = []
    /// Codecs as ffprobe names them in the first segment: `h264 Constrained Baseline level 30`.
    public var probedCodecs: [String] = []
    public var declaredBandwidth: Int?
    /// The peak segment bit rate in bits/s (variants, local media), its audio group included.
    public var measuredPeak: Int?
    /// Seconds from the first video frame to the first audio frame in the first segment (muxed).
    public var audioStartsAfterVideo: Double?

    init(asset: String, rendition: String, playlist: String) {
        self.asset = asset
        self.rendition = rendition
        self.playlist = playlist
    }
}

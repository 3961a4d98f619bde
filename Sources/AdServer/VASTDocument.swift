import Foundation
import HLSPlaylist

/// A VAST response (IAB VAST 2.0 to 4.3): its ads, in document order, and the error URIs of a
/// response with none (VAST 4.3 §3.2: a `<VAST>` with only `<Error>` means "no ad").
public struct VASTDocument: Sendable, Hashable {
    /// The `version` attribute as written (`4.3`, `3.0`, `2.0`).
    public var version: String
    public var ads: [VASTAd]
    /// Root `<Error>` URIs: fired when the response has no ad.
    public var errors: [String]
    /// Ads of the document that cannot be used (a creative's `<Duration>` missing or out of
    /// range), each with why; the others play on.
    public var rejected: [Rejected] = []
    /// `<Ad>` elements past ``AdServerLimits/maxAdsPerDocument``, not read.
    public var unread = 0

    /// An `<Ad>` refused as it was read, with its id and the error to report.
    public struct Rejected: Sendable, Hashable {
        public var id: String?
        public var error: VASTError
        /// Its `<Error>` URIs, to tell its ad server (with `error.code`).
        public var errors: [String]
    }

    public init(version: String, ads: [VASTAd], errors: [String] = []) {
        self.version = version
        self.ads = ads
        self.errors = errors
    }

    /// Reads a VAST response; throws ``VASTError`` (code 100: not XML; 101: not VAST).
    public init(_ data: Data) throws(VASTError) {
        try self.init(try XMLElementNode.answer(data, root: "VAST"))
    }

    /// Reads the `<VAST>` element `root` (also inside a VMAP `<VASTAdData>`).
    public init(_ root: XMLElementNode) throws(VASTError) {
        guard root.name == "VAST" else {
            throw VASTError(.schema, "line \(root.line): the root element is <\(root.name)>, not <VAST>")
        }
        self.version = root.attributes["version"] ?? ""
        let nodes = root.children("Ad")
        var ads: [VASTAd] = []
        for node in nodes.prefix(AdServerLimits.maxAdsPerDocument) {
            do throws(VASTError) {
                if let ad = try VASTAd(node) { ads.append(ad) }
            } catch {
                let body = node.child("InLine") ?? node.child("Wrapper")
                self.rejected.append(Rejected(id: node.attributes["id"], error: error, errors: VASTAd.uris(body?.children("Error") ?? [])))
            }
        }
        self.ads = ads
        self.unread = max(0, nodes.count - AdServerLimits.maxAdsPerDocument)
        self.errors = VASTAd.uris(root.children("Error"))
    }
}

/// One `<Ad>`: an inline ad (its creatives) or a wrapper (a URI to another VAST response).
public struct VASTAd: Sendable, Hashable {
    public var id: String?
    /// Its place in a pod (`sequence`, from 1); nil: a stand-alone ad.
    public var sequence: Int?
    public var kind: Kind
    /// `<Impression>` URIs.
    public var impressions: [String]
    /// `<Error>` URIs (their `[ERRORCODE]` macro filled when fired).
    public var errors: [String]
    /// The linear creatives' tracking events by event name (`start`, `firstQuartile`…), merged
    /// over the ad's linear creatives (a wrapper's apply to whatever linear creative it leads to).
    public var tracking: [String: [String]]
    public var adSystem: String?
    public var title: String?
    /// `<AdVerifications>` (VAST 4.1+ in `<InLine>` and `<Wrapper>`; VAST 3 and 4.0 wrappers in
    /// `<Extensions><Extension type="AdVerifications">`).
    public var verifications: [VASTVerification]

    public enum Kind: Sendable, Hashable {
        case inline([VASTCreative])
        case wrapper(Wrapper)
    }

    /// What a `<Wrapper>` says of the response it leads to (VAST 4.3 §3.4.1).
    public struct Wrapper: Sendable, Hashable {
        public var adTagURI: String
        /// `followAdditionalWrappers` (default true): whether the response may itself wrap.
        public var followAdditionalWrappers: Bool
        /// `allowMultipleAds` (default false): whether a pod may answer it.
        public var allowMultipleAds: Bool
        /// `fallbackOnNoAd` (default true): whether an empty answer lets other ads play.
        public var fallbackOnNoAd: Bool
    }

    /// Nil for an `<Ad>` with neither `<InLine>` nor `<Wrapper>` (ignored, as the spec lets a
    /// player do with what it does not understand).
    init?(_ node: XMLElementNode) throws(VASTError) {
        self.id = node.attributes["id"]
        self.sequence = node.attributes["sequence"].flatMap { Int(XMLElementNode.trimmed($0)) }
        let body: XMLElementNode
        if let inline = node.child("InLine") {
            body = inline
            var creatives: [VASTCreative] = []
            for creative in (inline.child("Creatives")?.children("Creative") ?? []).prefix(AdServerLimits.maxListEntries) {
                if let linear = try VASTCreative(creative) { creatives.append(linear) }
            }
            self.kind = .inline(creatives)
        } else if let wrapper = node.child("Wrapper") {
            body = wrapper
            guard let uri = wrapper.child("VASTAdTagURI")?.text, !uri.isEmpty else {
                throw VASTError(.schema, "line \(wrapper.line): a <Wrapper> without <VASTAdTagURI>")
            }
            func flag(_ name: String, _ fallback: Bool) -> Bool {
                wrapper.attributes[name].map { ["true", "1"].contains(XMLElementNode.trimmed($0).lowercased()) } ?? fallback
            }
            self.kind = .wrapper(
                Wrapper(
                    adTagURI: uri,
                    followAdditionalWrappers: flag("followAdditionalWrappers", true),
                    allowMultipleAds: flag("allowMultipleAds", false),
                    fallbackOnNoAd: flag("fallbackOnNoAd", true)
                )
            )
        } else {
            return nil
        }
        self.impressions = Self.uris(body.children("Impression"))
        self.errors = Self.uris(body.children("Error"))
        self.adSystem = body.child("AdSystem")?.text
        self.title = body.child("AdTitle")?.text
        var tracking: [String: [String]] = [:]
        for creative in (body.child("Creatives")?.children("Creative") ?? []).prefix(AdServerLimits.maxListEntries) {
            Self.addTracking(creative.descendant("Linear", "TrackingEvents"), to: &tracking)
        }
        self.tracking = tracking
        let extensions = (body.child("Extensions")?.children("Extension") ?? []).filter { $0.attributes["type"] == "AdVerifications" }
        self.verifications = Array(
            ([body.child("AdVerifications")] + extensions.map { $0.child("AdVerifications") }).compactMap { $0 }
                .flatMap { $0.children("Verification") }.prefix(AdServerLimits.maxListEntries).compactMap(VASTVerification.init)
        )
    }

    /// The URIs of `elements` (`<Impression>`, `<Error>`…), the empty ones left out, at most
    /// ``AdServerLimits/maxListEntries``: each is a request AdStitch makes on the viewer's behalf.
    static func uris(_ elements: [XMLElementNode]) -> [String] {
        Array(elements.lazy.map(\.text).filter { !$0.isEmpty }.prefix(AdServerLimits.maxListEntries))
    }

    /// A `<TrackingEvents>`' trackers added by event name, at most ``AdServerLimits/maxListEntries``
    /// per event.
    static func addTracking(_ events: XMLElementNode?, to tracking: inout [String: [String]]) {
        for event in events?.children("Tracking") ?? [] {
            guard let name = event.attributes["event"], !event.text.isEmpty, tracking[name, default: []].count < AdServerLimits.maxListEntries
            else { continue }
            tracking[name, default: []].append(event.text)
        }
    }

    public var isWrapper: Bool { if case .wrapper = self.kind { true } else { false } }
}

/// One `<Verification>` (VAST 4.3 §3.16): a script a player's measurement SDK runs for a
/// verification vendor, its parameters and its `verificationNotExecuted` trackers.
public struct VASTVerification: Sendable, Hashable {
    public var vendor: String?
    public var resources: [Resource]
    public var parameters: String?
    public var tracking: [String: [String]]

    /// A `<JavaScriptResource>` (`kind` `javascript`) or `<ExecutableResource>` (`executable`).
    public struct Resource: Sendable, Hashable {
        public var kind: String
        public var uri: String
        public var apiFramework: String?
        public var type: String?
        public var browserOptional: Bool?
    }

    /// Nil for a `<Verification>` with no resource: nothing to run.
    init?(_ node: XMLElementNode) {
        var resources: [Resource] = []
        for child in node.children.prefix(AdServerLimits.maxListEntries) where !child.text.isEmpty {
            let framework = child.attributes["apiFramework"].map { String(XMLElementNode.trimmed($0)) }
            switch child.name {
            case "JavaScriptResource":
                let optional = child.attributes["browserOptional"].map { ["true", "1"].contains(XMLElementNode.trimmed($0).lowercased()) }
                resources.append(Resource(kind: "javascript", uri: child.text, apiFramework: framework, browserOptional: optional))
            case "ExecutableResource":
                resources.append(Resource(kind: "executable", uri: child.text, apiFramework: framework, type: child.attributes["type"]))
            default:
                continue
            }
        }
        guard !resources.isEmpty else { return nil }
        self.vendor = node.attributes["vendor"]
        self.resources = resources
        self.parameters = node.child("VerificationParameters").map(\.text).flatMap { $0.isEmpty ? nil : $0 }
        var tracking: [String: [String]] = [:]
        VASTAd.addTracking(node.child("TrackingEvents"), to: &tracking)
        self.tracking = tracking
    }
}

/// A linear creative of an inline ad: its identity, duration and media files.
public struct VASTCreative: Sendable, Hashable {
    /// `<UniversalAdId>` (VAST 4), else the creative's `adId`/`AdID` (VAST 3/2), else its `id`:
    /// the creative's identity — rules match it, and a conditioned creative is stored under it.
    public var identity: String?
    public var id: String?
    public var sequence: Int?
    public var duration: ExactDecimal
    public var mediaFiles: [MediaFile]
    /// `<Mezzanine>` (VAST 4): the creative's highest-quality file, meant for server-side
    /// transcoding.
    public var mezzanine: String?

    public struct MediaFile: Sendable, Hashable {
        public var uri: String
        /// `application/x-mpegURL`, `video/mp4`…
        public var type: String?
        /// `progressive` or `streaming`.
        public var delivery: String?
        public var width: Int?
        public var height: Int?
        /// kb/s.
        public var bitrate: Int?

        /// Whether it is an HLS multivariant playlist (what plays without conditioning).
        public var isHLS: Bool {
            let type = self.type?.lowercased() ?? ""
            return type == "application/x-mpegurl" || type == "application/vnd.apple.mpegurl"
        }

        /// Whether it is a progressive video file (MP4, QuickTime, WebM…): what conditioning reads.
        public var isProgressiveVideo: Bool {
            (self.type?.lowercased().hasPrefix("video/") ?? false) && self.delivery?.lowercased() != "streaming"
        }
    }

    /// What conditioning reads when no HLS media file plays: the `<Mezzanine>`, else the
    /// progressive video file of most pixels (then bitrate).
    public var conditioningSource: String? {
        if let mezzanine = self.mezzanine { return mezzanine }
        return self.mediaFiles.filter(\.isProgressiveVideo).max { lhs, rhs in
            ((lhs.width ?? 0) * (lhs.height ?? 0), lhs.bitrate ?? 0) < ((rhs.width ?? 0) * (rhs.height ?? 0), rhs.bitrate ?? 0)
        }?.uri
    }

    /// An attribute's whole number within 0…`limit`, else nil (as if not given): the choice of a
    /// file multiplies width by height.
    static func number(_ text: String?, upTo limit: Int) -> Int? {
        text.flatMap { Int(XMLElementNode.trimmed($0)) }.flatMap { (0...limit).contains($0) ? $0 : nil }
    }

    /// Nil for a creative without `<Linear>` (companions and non-linear ads do not stitch).
    init?(_ node: XMLElementNode) throws(VASTError) {
        guard let linear = node.child("Linear") else { return nil }
        guard let text = linear.child("Duration")?.text else {
            throw VASTError(.schema, "line \(linear.line): a <Linear> creative needs <Duration> as HH:MM:SS or HH:MM:SS.mmm")
        }
        guard let duration = VASTTime.duration(text), duration > .zero, duration <= AdServerLimits.maxCreativeDuration else {
            throw VASTError(
                .schema,
                "line \(linear.line): <Duration>\(text.prefix(40))</Duration> is no duration of 0–\(AdServerLimits.maxCreativeDuration) s (a break runs at most that) written HH:MM:SS or HH:MM:SS.mmm"
            )
        }
        self.duration = duration
        self.id = node.attributes["id"]
        self.sequence = node.attributes["sequence"].flatMap { Int(XMLElementNode.trimmed($0)) }
        let universal = node.child("UniversalAdId").map(\.text).flatMap { $0.isEmpty || $0 == "unknown" ? nil : $0 }
        self.identity = universal ?? node.attributes["adId"] ?? node.attributes["AdID"] ?? node.attributes["id"]
        self.mezzanine = linear.descendant("MediaFiles", "Mezzanine").map(\.text).flatMap { $0.isEmpty ? nil : $0 }
        self.mediaFiles = (linear.child("MediaFiles")?.children("MediaFile") ?? []).prefix(AdServerLimits.maxListEntries).compactMap { file in
            guard !file.text.isEmpty else { return nil }
            return MediaFile(
                uri: file.text,
                type: file.attributes["type"],
                delivery: file.attributes["delivery"],
                width: Self.number(file.attributes["width"], upTo: AdServerLimits.maxPixels),
                height: Self.number(file.attributes["height"], upTo: AdServerLimits.maxPixels),
                bitrate: Self.number(file.attributes["bitrate"], upTo: AdServerLimits.maxKilobitsPerSecond)
            )
        }
    }
}

/// VAST's clock values: `HH:MM:SS` and `HH:MM:SS.mmm` (VAST 4.3 §3.9.1 `<Duration>`), exact.
public enum VASTTime {
    /// The value, or nil when it is not one: hours and minutes of digits alone (no sign:
    /// `-00:00:10` is not ten seconds), minutes and seconds below 60, hours at most
    /// ``AdServerLimits/maxClockHours`` (a clock value of 2⁶³ hours must not overflow).
    public static func duration(_ text: String) -> ExactDecimal? {
        let parts = XMLElementNode.trimmed(text).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let hours = Self.digits(parts[0], upTo: AdServerLimits.maxClockHours),
            let minutes = Self.digits(parts[1], upTo: 59), Self.digits(parts[2].prefix { $0 != "." }, upTo: 59) != nil,
            let seconds = ExactDecimal(parts[2]), seconds < ExactDecimal(60)
        else { return nil }
        return ExactDecimal(hours * 3600 + minutes * 60) + seconds
    }

    /// A run of one or more ASCII digits at most `limit`, or nil.
    private static func digits(_ text: Substring, upTo limit: Int) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 10 else { return nil }
        var value = 0
        for byte in text.utf8 {
            guard byte &- UInt8(ascii: "0") < 10 else { return nil }
            value = value * 10 + Int(byte &- UInt8(ascii: "0"))
        }
        return value <= limit ? value : nil
    }
}

/// Why a VAST answer (or an ad in it) cannot be used, with the VAST error code a player would
/// report (VAST 4.3 §2.3.6.3).
public struct VASTError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: Int, Sendable, Hashable {
        /// XML parsing error.
        case xmlParsing = 100
        /// VAST schema validation error.
        case schema = 101
        /// General wrapper error.
        case wrapper = 300
        /// Timeout of the VAST URI of a wrapper (or of the request).
        case wrapperTimeout = 301
        /// The wrapper limit was reached, or a wrapper that must not wrap again did.
        case wrapperLimit = 302
        /// No ads VAST response after one or more wrappers.
        case noAdsAfterWrapper = 303
        /// No media file that AdStitch can play (not HLS, or not fitting the programme).
        case noSupportedMediaFile = 403
        /// The mezzanine is being fetched (here: conditioned) for the first time.
        case mezzanineDownloading = 407
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "VAST error \(self.code.rawValue): \(self.message)" }
}

import HLSPlaylist
import Synchronization

/// The ranges every number and count an ad decision server sends must fall in. An ad server is
/// outside our control and every replica asks it, so one absurd answer must not take them all
/// down: each is checked where it enters — a clock value as ``VASTTime`` reads it, a document's
/// ads as ``VASTDocument`` reads them, a break's requests and bytes as ``VASTResolver`` spends
/// them (``Budget``) — as `LiveLimits` does for live origins and `CampaignLimits` for campaign
/// files. docs/reliability.md "Ad server faults" lists what a viewer sees for each.
public enum AdServerLimits {
    /// A clock value's hours (VAST `<Duration>`, VMAP `timeOffset`): a programme runs at most
    /// seven days (`CampaignLimits.maxProgramDuration`), so no offset into one needs more, and
    /// `9223372036854775807:00:00` must not overflow the seconds it is turned into.
    public static let maxClockHours = 7 * 24
    /// The longest a linear creative may say it runs: a break runs at most an hour
    /// (`CampaignLimits.maxBreakDuration`), so a longer ad could never play.
    public static let maxCreativeDuration = ExactDecimal(3600)
    /// `<Ad>` elements read from one document (a pod, its stand-alone ads, wrappers); the rest are
    /// reported unread. Real pods hold a handful; 5,000 ads made 19,599 creative requests.
    public static let maxAdsPerDocument = 32
    /// Creatives, media files, trackers and verifications read per ad (each a list a hostile
    /// answer can make as long as it likes).
    public static let maxListEntries = 64
    /// A media file's `width` and `height` (beyond 16K video), and `bitrate` in kb/s: larger
    /// values are read as not given.
    public static let maxPixels = 100_000
    public static let maxKilobitsPerSecond = 10_000_000
    /// `<AdBreak>`s of one VMAP document (a programme's schedule: tens at most).
    public static let maxBreaksPerVMAP = 256
    /// The bytes of one answer (a VAST or VMAP document): real ones are kilobytes.
    public static let maxAnswerBytes = 1 << 20
    /// Requests one break may make to ad servers, wrappers included: a wrapper answer of 50
    /// wrappers six deep made 1,585 requests for one session start.
    public static let maxRequestsPerBreak = 16
    /// Bytes one break may read from ad servers, wrappers included.
    public static let maxBytesPerBreak = 4 << 20
    /// Failures one break reports (and fires error URIs for): a fan-out failed by the hundred.
    public static let maxFailuresPerBreak = 32
    /// Error URIs one break fires, all its failures together, each once.
    public static let maxErrorURLsPerBreak = 64
    /// Creatives whose playlists one break loads (the pod's first, in play order).
    public static let maxCreativesPerBreak = 16

    /// What one break may still spend on ad servers: its requests and bytes, shared by every
    /// wrapper of every ad of its answer, however concurrently they are followed.
    public final class Budget: Sendable {
        private struct Left: Sendable {
            var requests: Int
            var bytes: Int
        }

        private let left: Mutex<Left>
        public let requests: Int
        public let bytes: Int

        public init(requests: Int = AdServerLimits.maxRequestsPerBreak, bytes: Int = AdServerLimits.maxBytesPerBreak) {
            self.requests = requests
            self.bytes = bytes
            self.left = Mutex(Left(requests: requests, bytes: bytes))
        }

        /// Takes one request; false when the break has made all it may.
        public func request() -> Bool {
            self.left.withLock { left in
                guard left.requests > 0 else { return false }
                left.requests -= 1
                return true
            }
        }

        /// Counts an answer's bytes; false when they take the break past what it may read.
        public func read(_ count: Int) -> Bool {
            self.left.withLock { left in
                left.bytes -= count
                return left.bytes >= 0
            }
        }
    }
}

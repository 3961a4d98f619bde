import AdCampaign
import CoreMetrics
import HTTPTypes
import NIOCore
import Prometheus
import Synchronization

/// The endpoint's metrics, written with swift-metrics against an explicit factory (a Prometheus
/// one over ``registry``) rather than the process-wide `MetricsSystem`: each application, and
/// each test, has its own. `adstitch serve` also bootstraps `MetricsSystem` with the same
/// factory, so anything else in the process that uses swift-metrics shows at `/metrics` too.
///
/// Families (see docs/http-api.md "Metrics"):
/// - `adstitch_http_requests_total{route, method, status}` — requests answered, by route pattern
///   (`/v1/campaigns/{id}/sessions/{token}/{file}`, never a concrete token) and status;
/// - `adstitch_http_request_duration_seconds{route}` — time to the response head;
/// - `adstitch_stitch_duration_seconds{kind}` — plan + render of a `multivariant` or `media`
///   playlist or a `boundaries` manifest;
/// - `adstitch_campaigns_loaded` / `adstitch_campaigns_failing` — campaigns serving / whose last
///   load failed (gauges);
/// - `adstitch_campaign_reload_failures_total{campaign}` — failed loads and reloads;
/// - `adstitch_campaign_folder_errors_total` — polls that could not list the campaigns folder
///   (what is loaded keeps serving);
/// - `adstitch_pattern_limit_hits_total` — rule pattern matches PCRE2's match limits stopped
///   (counted as no match; process-wide, caught up when scraped);
/// - `adstitch_response_cache_requests_total{result}` — token-scoped answers served from the
///   response cache (`hit`) or stitched (`miss`);
/// - `adstitch_ad_server_requests_total{outcome}` — breaks asked of an ad decision server:
///   `filled` (an ad of its answer plays), `empty` (answered, nothing plays), `timeout`, `error`
///   (the fill rate is filled over the total);
/// - `adstitch_ad_server_duration_seconds` — a session's ad server round, every break and
///   creative included (bounded by the campaign's `timeout`);
/// - `adstitch_catalogue_titles_total{outcome}` — catalogue titles new sessions asked for:
///   `hit` (held) or `load`; `adstitch_catalogue_titles_held{campaign}` and
///   `adstitch_catalogue_bytes_held{campaign}` — what each catalogue holds (gauges);
///   `adstitch_catalogue_load_duration_seconds{phase}` — a title's load, in its parts: `origin`
///   (waiting for its playlists), `load` (parsing, checking and cutting them), `layout`;
/// - `adstitch_qoe_reports_total{outcome}`, `adstitch_qoe_startup_seconds`,
///   `adstitch_qoe_stalls_total{place}`, `adstitch_qoe_stall_duration_seconds`,
///   `adstitch_qoe_errors_total{fatal}` — players' reports of viewing quality (docs/quality.md).
public struct ServerMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    public let factory: PrometheusMetricsFactory
    private let reportedPatternLimitHits = SharedCounter()
    /// The handles of the per-request families, made once per label set (making one looks it
    /// up in the registry under its lock).
    private let requestHandles = MetricHandles<RequestLabels, (CoreMetrics.Counter, CoreMetrics.Timer)>()
    private let stitchTimers = MetricHandles<String, CoreMetrics.Timer>()
    private let cacheHits: CoreMetrics.Counter
    private let cacheMisses: CoreMetrics.Counter
    private let adServerOutcomes = MetricHandles<String, CoreMetrics.Counter>()
    private let conditioningOutcomes = MetricHandles<String, CoreMetrics.Counter>()
    private let beaconOutcomes = MetricHandles<String, CoreMetrics.Counter>()
    private let catalogueOutcomes = MetricHandles<String, CoreMetrics.Counter>()
    private let catalogueLoadTimers = MetricHandles<String, CoreMetrics.Timer>()
    private let capOutcomes = MetricHandles<String, CoreMetrics.Counter>()
    private let qualityOutcomes = MetricHandles<String, CoreMetrics.Counter>()
    private let qualityStalls = MetricHandles<String, CoreMetrics.Counter>()
    private let qualityViews = MetricHandles<String, CoreMetrics.Counter>()
    private let qualityErrors = MetricHandles<String, CoreMetrics.Counter>()
    private let conditioningQueuedCounter: CoreMetrics.Counter
    private let conditioningRunningGauge: CoreMetrics.Gauge
    private let runningEncodes = SharedCounter()

    /// Stitching takes tens of microseconds; requests well under a millisecond on loopback.
    static let stitchBuckets: [Duration] = [
        .microseconds(25), .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500),
        .milliseconds(1), .milliseconds(2.5), .milliseconds(5), .milliseconds(10), .milliseconds(50),
    ]
    static let requestBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2.5),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(100), .milliseconds(500), .seconds(2),
    ]

    /// An ad server answers in tens to hundreds of milliseconds; the timeout is seconds.
    static let adServerBuckets: [Duration] = [
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .seconds(2), .seconds(5), .seconds(10),
    ]

    /// A catalogue title's load: milliseconds on a near origin, seconds on a far or slow one.
    static let catalogueLoadBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .milliseconds(2.5), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5),
    ]

    /// A player's startup and a stall: tenths of a second to tens of seconds.
    static let playerBuckets: [Duration] = [
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(15),
        .seconds(30), .seconds(60),
    ]

    /// An encode of a creative takes seconds to minutes.
    static let conditioningBuckets: [Duration] = [
        .seconds(1), .seconds(2), .seconds(5), .seconds(10), .seconds(30), .seconds(60), .seconds(120), .seconds(300), .seconds(900),
    ]

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets = [
            "adstitch_stitch_duration_seconds": Self.stitchBuckets,
            "adstitch_http_request_duration_seconds": Self.requestBuckets,
            "adstitch_ad_server_duration_seconds": Self.adServerBuckets,
            "adstitch_conditioning_duration_seconds": Self.conditioningBuckets,
            "adstitch_catalogue_load_duration_seconds": Self.catalogueLoadBuckets,
            "adstitch_qoe_startup_seconds": Self.playerBuckets,
            "adstitch_qoe_stall_duration_seconds": Self.playerBuckets,
        ]
        self.factory = factory
        self.cacheHits = Counter(label: "adstitch_response_cache_requests_total", dimensions: [("result", "hit")], factory: factory)
        self.cacheMisses = Counter(label: "adstitch_response_cache_requests_total", dimensions: [("result", "miss")], factory: factory)
        self.conditioningQueuedCounter = Counter(label: "adstitch_conditioning_queued_total", factory: factory)
        self.conditioningRunningGauge = Gauge(label: "adstitch_conditioning_running", factory: factory)
        self.conditioningRunningGauge.record(0)
    }

    package func request(route: String, method: HTTPRequest.Method, status: HTTPResponse.Status, duration: Duration) {
        let (counter, timer) = self.requestHandles(RequestLabels(route: route, method: method, status: status.code)) {
            (
                Counter(
                    label: "adstitch_http_requests_total",
                    dimensions: [("route", route), ("method", method.rawValue), ("status", String(status.code))],
                    factory: self.factory
                ),
                CoreMetrics.Timer(label: "adstitch_http_request_duration_seconds", dimensions: [("route", route)], factory: self.factory)
            )
        }
        counter.increment()
        timer.record(duration: duration)
    }

    /// Runs `body` (a plan and render) and records how long it took under `kind`.
    package func stitch<T>(_ kind: String, _ body: () throws -> T) rethrows -> T {
        let start = ContinuousClock.now
        defer {
            self.stitchTimers(kind) {
                CoreMetrics.Timer(label: "adstitch_stitch_duration_seconds", dimensions: [("kind", kind)], factory: self.factory)
            }
            .record(duration: ContinuousClock.now - start)
        }
        return try body()
    }

    /// One session's ad server round: each break's outcome (`filled`, `empty`, `timeout`,
    /// `error`), and how long the round took.
    package func adServer(outcomes: [String], duration: Duration) {
        for outcome in outcomes {
            self.adServerOutcomes(outcome) {
                Counter(label: "adstitch_ad_server_requests_total", dimensions: [("outcome", outcome)], factory: self.factory)
            }
            .increment()
        }
        CoreMetrics.Timer(label: "adstitch_ad_server_duration_seconds", factory: self.factory).record(duration: duration)
    }

    /// A conditioning job's attempt on this replica ended: `done`, `retry` (failed, taken again
    /// later) or `failed` (given up); `duration`: the attempt's encode and check.
    package func conditioning(_ outcome: String, duration: Duration) {
        self.conditioningOutcomes(outcome) {
            Counter(label: "adstitch_conditioning_jobs_total", dimensions: [("outcome", outcome)], factory: self.factory)
        }
        .increment()
        CoreMetrics.Timer(label: "adstitch_conditioning_duration_seconds", factory: self.factory).record(duration: duration)
    }

    /// A tracking URL fired (`event`: `error`…; `outcome`: `sent`, `failed` after its tries,
    /// `invalid`: not a URL).
    package func beacon(_ event: String, outcome: String) {
        self.beaconOutcomes(event + "\u{1f}" + outcome) {
            Counter(label: "adstitch_beacons_total", dimensions: [("event", event), ("outcome", outcome)], factory: self.factory)
        }
        .increment()
    }

    /// Creatives queued for conditioning by this replica's sessions (each once per replica).
    package func conditioningQueued() { self.conditioningQueuedCounter.increment() }

    /// Encodes running on this replica.
    package func conditioningRunning(_ change: Int) {
        self.conditioningRunningGauge.record(
            Double(
                self.runningEncodes.withLock {
                    $0 += change
                    return $0
                }
            )
        )
    }

    package func responseCache(hit: Bool) {
        (hit ? self.cacheHits : self.cacheMisses).increment()
    }

    package func campaigns(loaded: Int, failing: Int) {
        Gauge(label: "adstitch_campaigns_loaded", factory: self.factory).record(loaded)
        Gauge(label: "adstitch_campaigns_failing", factory: self.factory).record(failing)
    }

    /// A session start of a campaign with frequency caps and a viewer: `capped` (a cap was
    /// reached), `open` (none was), `unavailable` (the impressions could not be read: uncapped).
    package func frequencyCap(outcome: String) {
        self.capOutcomes(outcome) {
            Counter(label: "adstitch_frequency_cap_starts_total", dimensions: [("outcome", outcome)], factory: self.factory)
        }
        .increment()
    }

    /// A player's report of a session (`POST …/sessions/{token}/qoe`): `accepted`, `invalid` (its
    /// body), `refused` (its token), `limited` (too many from the session), `unavailable` (the
    /// store could not take it).
    package func qualityReport(outcome: String) {
        self.qualityOutcomes(outcome) {
            Counter(label: "adstitch_qoe_reports_total", dimensions: [("outcome", outcome)], factory: self.factory)
        }
        .increment()
    }

    /// Requests of sessions the server's own view read (`read`), dropped when too many waited
    /// (`dropped`), and views written to the store (`written`).
    package func qualityObservations(outcome: String, count: Int) {
        self.qualityViews(outcome) {
            Counter(label: "adstitch_qoe_server_views_total", dimensions: [("outcome", outcome)], factory: self.factory)
        }
        .increment(by: count)
    }

    /// A startup time a player reported.
    package func qualityStartup(_ duration: Duration) {
        CoreMetrics.Timer(label: "adstitch_qoe_startup_seconds", factory: self.factory).record(duration: duration)
    }

    /// A stall a player reported, where it fell (`break`, `programme`, or `unplaced`: a live
    /// session's, whose breaks are filled per refresh), and its length.
    package func qualityStall(place: String, duration: Duration) {
        self.qualityStalls(place) {
            Counter(label: "adstitch_qoe_stalls_total", dimensions: [("place", place)], factory: self.factory)
        }
        .increment()
        CoreMetrics.Timer(label: "adstitch_qoe_stall_duration_seconds", factory: self.factory).record(duration: duration)
    }

    /// An error a player reported, `fatal` or not.
    package func qualityError(fatal: Bool) {
        let label = fatal ? "true" : "false"
        self.qualityErrors(label) {
            Counter(label: "adstitch_qoe_errors_total", dimensions: [("fatal", label)], factory: self.factory)
        }
        .increment()
    }

    /// A catalogue title asked for by a new session: `hit` (held), `load` (fetched now, or
    /// waiting for the load running).
    package func catalogueTitle(outcome: String) {
        self.catalogueOutcomes(outcome) {
            Counter(label: "adstitch_catalogue_titles_total", dimensions: [("outcome", outcome)], factory: self.factory)
        }
        .increment()
    }

    /// The titles a catalogue holds and their estimated bytes (gauges).
    package func catalogueHeld(_ titles: Int, bytes: Int, campaign: String) {
        Gauge(label: "adstitch_catalogue_titles_held", dimensions: [("campaign", campaign)], factory: self.factory).record(titles)
        Gauge(label: "adstitch_catalogue_bytes_held", dimensions: [("campaign", campaign)], factory: self.factory).record(bytes)
    }

    /// A catalogue title loaded, in its parts: the time it waited on the origin for its
    /// playlists, the rest of reading them (parsing, checking, cutting), and its layout.
    package func catalogueLoad(origin: Duration, load: Duration, layout: Duration) {
        for (phase, duration) in [("origin", origin), ("load", load), ("layout", layout)] {
            self.catalogueLoadTimers(phase) {
                CoreMetrics.Timer(label: "adstitch_catalogue_load_duration_seconds", dimensions: [("phase", phase)], factory: self.factory)
            }
            .record(duration: duration)
        }
    }

    package func folderListingFailed() {
        Counter(label: "adstitch_campaign_folder_errors_total", factory: self.factory).increment()
    }

    package func reloadFailed(campaign: String) {
        Counter(label: "adstitch_campaign_reload_failures_total", dimensions: [("campaign", campaign)], factory: self.factory).increment()
    }

    /// The Prometheus text exposition of every family.
    package func exposition() -> ByteBuffer {
        // PCRE2 counts its stopped matches process-wide; the counter catches up when scraped.
        let hits = Pattern.limitHits
        let counter = Counter(label: "adstitch_pattern_limit_hits_total", factory: self.factory)
        self.reportedPatternLimitHits.withLock { reported in
            if hits > reported { counter.increment(by: hits - reported) }
            reported = max(reported, hits)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8192)
        self.registry.emit(into: &bytes)
        return ByteBuffer(bytes: bytes)
    }
}

extension CoreMetrics.Timer {
    func record(duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

/// A shared integer behind a lock, in a class so a `Sendable` struct can hold it.
final class SharedCounter: Sendable {
    private let value = Mutex(0)

    func withLock<T>(_ body: (inout Int) -> T) -> T {
        self.value.withLock { body(&$0) }
    }
}

/// The label set of a request's metrics.
struct RequestLabels: Hashable, Sendable {
    var route: String
    var method: HTTPRequest.Method
    var status: Int
}

/// Metric handles by label set, made on first use. The label sets are bounded: routes are
/// patterns (never concrete paths), methods, statuses and stitch kinds few.
final class MetricHandles<Labels: Hashable & Sendable, Handles: Sendable>: Sendable {
    private let made = Mutex<[Labels: Handles]>([:])

    func callAsFunction(_ labels: Labels, make: () -> Handles) -> Handles {
        self.made.withLock { made in
            if let handles = made[labels] { return handles }
            let handles = make()
            made[labels] = handles
            return handles
        }
    }
}

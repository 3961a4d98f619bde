// swift-tools-version: 6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "AdStitch",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "HLSPlaylist", targets: ["HLSPlaylist"]),
        .library(name: "SCTE35", targets: ["SCTE35"]),
        .library(name: "AdCampaign", targets: ["AdCampaign"]),
        .library(name: "AdDecision", targets: ["AdDecision"]),
        .library(name: "AdStitching", targets: ["AdStitching"]),
        .library(name: "AdLive", targets: ["AdLive"]),
        .library(name: "AdLiveRuntime", targets: ["AdLiveRuntime"]),
        .library(name: "AdServer", targets: ["AdServer"]),
        .library(name: "AdServerClient", targets: ["AdServerClient"]),
        .library(name: "AdConditioning", targets: ["AdConditioning"]),
        // For the benchmarks' session-file answer (Benchmarks/), a token read as the server reads it.
        .library(name: "AdSessions", targets: ["AdSessions"]),
        .library(name: "AdQuality", targets: ["AdQuality"]),
        .executable(name: "adstitch", targets: ["adstitch"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        .target(name: "HLSPlaylist", swiftSettings: swiftSettings),
        // SCTE 35 splice_info_section decoding (docs/campaign-format.md "Markers"): no dependencies.
        .target(name: "SCTE35", swiftSettings: swiftSettings),
        .systemLibrary(name: "CPCRE2", pkgConfig: "libpcre2-8", providers: [.apt(["libpcre2-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .target(
            name: "AdCampaign",
            dependencies: ["HLSPlaylist", "SCTE35", "CPCRE2", .product(name: "Yams", package: "Yams")],
            swiftSettings: swiftSettings
        ),
        .target(name: "AdDecision", dependencies: ["AdCampaign", "HLSPlaylist"], swiftSettings: swiftSettings),
        .target(
            name: "AdStitching",
            dependencies: ["AdDecision", "AdCampaign", "AdLive", "HLSPlaylist", .product(name: "Atomics", package: "swift-atomics")],
            swiftSettings: swiftSettings
        ),
        // Live channels (docs/design-decisions.md "Live"): break tracking and a viewer's live numbering, pure.
        .target(name: "AdLive", dependencies: ["AdCampaign", "HLSPlaylist"], swiftSettings: swiftSettings),
        // Ad decision servers: VAST 2–4.3 and VMAP 1.0.1 read (libxml2's SAX2), wrappers followed.
        .target(name: "AdServer", dependencies: ["HLSPlaylist", "CLibXML2"], swiftSettings: swiftSettings),
        // Looks inside media segments (ffprobe, MPEG-TS tables): `validate --media`.
        .target(name: "AdMedia", dependencies: ["AdCampaign", "HLSPlaylist"], swiftSettings: swiftSettings),
        // Creatives encoded to a programme's ladder with ffmpeg: `adstitch condition`.
        .target(name: "AdConditioning", dependencies: ["AdCampaign", "AdStitching", "AdMedia", "HLSPlaylist"], swiftSettings: swiftSettings),
        // Fetching playlists from http(s) origins (docs/campaign-format.md, `origin:`).
        .target(
            name: "AdOrigin",
            dependencies: [
                "AdCampaign",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        // Asks a campaign's ad decision server for a viewer's breaks (VAST/VMAP over the origin
        // client, creatives loaded as ads): the one home for the CLI and the server.
        .target(
            name: "AdServerClient",
            dependencies: ["AdServer", "AdCampaign", "AdDecision", "AdOrigin", "HLSPlaylist"],
            swiftSettings: swiftSettings
        ),
        // A store's table in PostgreSQL, created once per process: one home for every store.
        .target(
            name: "AdPostgres",
            dependencies: [.product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        // A live channel's runtime (docs/design-decisions.md "Live"): its poller over an origin,
        // the pollers of a server, the break history the replicas share in PostgreSQL.
        .target(
            name: "AdLiveRuntime",
            dependencies: [
                "AdLive", "AdStitching", "AdCampaign", "HLSPlaylist", "AdOrigin", "AdPostgres",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // A viewer session's signed token: what it carries, its binary form, its keys.
        // Viewing quality (docs/quality.md): players' reports read, each session's figures and a
        // campaign's KPIs computed (pure), and the store that keeps the reports.
        .target(
            name: "AdQuality",
            dependencies: [
                "AdCampaign", "AdDecision", "AdPostgres", "HLSPlaylist",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "AdSessions",
            dependencies: ["AdCampaign", "AdDecision", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        // The door of a connection's pipeline: requests a service claims answered there, the rest
        // passed on in order (a state machine and a thin NIO handler; docs/architecture.md).
        .target(
            name: "AdFrontDoor",
            dependencies: [
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ],
            swiftSettings: swiftSettings
        ),
        // The endpoint's metric families over one Prometheus registry, shared by the campaign
        // store, conditioning, beacons and requests (docs/http-api.md "Metrics").
        .target(
            name: "AdMetrics",
            dependencies: [
                "AdCampaign",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The campaigns a server serves, without HTTP: the folder and its reloads, each
        // campaign's revisions laid out with their stitched bodies, catalogues' titles, an ad
        // server's creatives, live breaks' decisions.
        .target(
            name: "AdCampaignStore",
            dependencies: [
                "AdCampaign", "AdDecision", "AdLiveRuntime", "AdOrigin", "AdStitching", "AdServerClient", "AdMetrics", "CZlib", "HLSPlaylist",
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The preview tool's pages, as HTML from a served campaign and a viewer's plan (docs/preview.md).
        .target(
            name: "AdPreview",
            dependencies: [
                "AdCampaign", "AdCampaignStore", "AdDecision", "AdLive", "AdLiveRuntime", "AdMedia", "AdOrigin", "AdQuality",
                "AdServerClient", "AdSessions", "AdStitching", "HLSPlaylist",
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "AdStitchServer",
            dependencies: [
                "AdStitching", "AdDecision", "AdCampaign", "HLSPlaylist", "AdOrigin", "AdLive", "AdLiveRuntime", "AdMedia",
                "AdServerClient", "AdConditioning", "AdFrontDoor", "AdSessions", "AdPostgres", "AdMetrics", "AdCampaignStore", "AdPreview",
                "AdQuality",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "adstitch",
            dependencies: [
                "HLSPlaylist",
                "AdOrigin",
                "AdCampaign",
                "AdMedia",
                "AdServer",
                "AdServerClient",
                "AdConditioning",
                "AdDecision",
                "AdStitching",
                "AdStitchServer",
                "AdMetrics",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AdStitchServerTests",
            dependencies: [
                "AdStitchServer", "AdSessions", "AdStitching", "AdDecision", "AdCampaign", "HLSPlaylist", "AdMetrics", "AdCampaignStore", "AdQuality",
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "AdCampaign", "AdDecision", "AdSessions", "AdStitching", "AdStitchServer", "AdOrigin", "AdLive", "AdLiveRuntime", "AdServer",
                "HLSPlaylist",
                "AdMedia",
                "AdMetrics",
                "AdCampaignStore",
                "AdQuality",
                "SCTE35",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AdCampaignStoreTests",
            dependencies: [
                "AdCampaignStore", "AdCampaign", "AdDecision", "AdStitching", "HLSPlaylist",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "AdPreviewTests", dependencies: ["AdPreview", "AdCampaign"], swiftSettings: swiftSettings),
        .testTarget(
            name: "AdFrontDoorTests",
            dependencies: [
                "AdFrontDoor",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AdSessionsTests",
            dependencies: ["AdSessions", "AdCampaign", "AdDecision", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "AdQualityTests", dependencies: ["AdQuality", "AdDecision", "HLSPlaylist"], swiftSettings: swiftSettings),
        .testTarget(name: "SCTE35Tests", dependencies: ["SCTE35"], swiftSettings: swiftSettings),
        .testTarget(name: "AdOriginTests", dependencies: ["AdOrigin"], swiftSettings: swiftSettings),
        .testTarget(name: "AdConditioningTests", dependencies: ["AdConditioning", "AdCampaign", "HLSPlaylist"], swiftSettings: swiftSettings),
        .testTarget(
            name: "AdServerTests",
            dependencies: ["AdServer", "AdServerClient", "HLSPlaylist"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "AdLiveTests", dependencies: ["AdLive", "AdCampaign", "HLSPlaylist"], swiftSettings: swiftSettings),
        .testTarget(name: "HLSPlaylistTests", dependencies: ["HLSPlaylist"], resources: [.copy("Fixtures")], swiftSettings: swiftSettings),
        .testTarget(
            name: "AdCampaignTests",
            dependencies: ["AdCampaign", "HLSPlaylist"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AdDecisionTests",
            dependencies: ["AdDecision", "AdCampaign", "HLSPlaylist"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AdStitchingTests",
            dependencies: ["AdStitching", "AdDecision", "AdCampaign", "HLSPlaylist", .product(name: "Crypto", package: "swift-crypto")],
            // Golden/ is read and (with ADSTITCH_UPDATE_GOLDEN=1) rewritten in the source tree via #filePath.
            exclude: ["Golden"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
    ]
)

// swift-tools-version: 6.1
// Benchmarks for AdStitch (package-benchmark). Run from the repository root with `make bench`.
import PackageDescription

let package = Package(
    name: "AdStitchBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(name: "AdStitch", path: "../"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        .target(name: "BenchmarkCampaigns", path: "Benchmarks/BenchmarkCampaigns"),
        // Not under Benchmarks/: package-benchmark runs every executable target there as a benchmark.
        .executableTarget(name: "write-two-hour-campaign", dependencies: ["BenchmarkCampaigns"], path: "Tools/write-two-hour-campaign"),
        .executableTarget(
            name: "PlaylistBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "HLSPlaylist", package: "AdStitch"),
            ],
            path: "Benchmarks/PlaylistBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "StitchingBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "AdCampaign", package: "AdStitch"),
                .product(name: "AdDecision", package: "AdStitch"),
                .product(name: "AdStitching", package: "AdStitch"),
                .product(name: "AdLive", package: "AdStitch"),
                .product(name: "AdSessions", package: "AdStitch"),
                .product(name: "Crypto", package: "swift-crypto"),
                "BenchmarkCampaigns",
            ],
            path: "Benchmarks/StitchingBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "AdServerBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "AdServer", package: "AdStitch"),
            ],
            path: "Benchmarks/AdServerBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "LoadingBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "AdCampaign", package: "AdStitch"),
                "BenchmarkCampaigns",
            ],
            path: "Benchmarks/LoadingBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
    ]
)

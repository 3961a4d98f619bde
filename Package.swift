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
        .library(name: "AdCampaign", targets: ["AdCampaign"]),
        .library(name: "AdDecision", targets: ["AdDecision"]),
        .library(name: "AdStitching", targets: ["AdStitching"]),
        .executable(name: "adstitch", targets: ["adstitch"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        .target(name: "HLSPlaylist", swiftSettings: swiftSettings),
        .systemLibrary(name: "CPCRE2", pkgConfig: "libpcre2-8", providers: [.apt(["libpcre2-dev"])]),
        .target(
            name: "AdCampaign",
            dependencies: ["HLSPlaylist", "CPCRE2", .product(name: "Yams", package: "Yams")],
            swiftSettings: swiftSettings
        ),
        .target(name: "AdDecision", dependencies: ["AdCampaign", "HLSPlaylist"], swiftSettings: swiftSettings),
        .target(name: "AdStitching", dependencies: ["AdDecision", "AdCampaign", "HLSPlaylist"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "adstitch",
            dependencies: [
                "HLSPlaylist",
                "AdCampaign",
                "AdDecision",
                "AdStitching",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["AdCampaign", "AdDecision", "AdStitching", "HLSPlaylist"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "HLSPlaylistTests", dependencies: ["HLSPlaylist"], resources: [.copy("Fixtures")], swiftSettings: swiftSettings),
        .testTarget(name: "AdCampaignTests", dependencies: ["AdCampaign", "HLSPlaylist"], resources: [.copy("Fixtures")], swiftSettings: swiftSettings),
        .testTarget(
            name: "AdDecisionTests", dependencies: ["AdDecision", "AdCampaign", "HLSPlaylist"], resources: [.copy("Fixtures")], swiftSettings: swiftSettings),
        .testTarget(
            name: "AdStitchingTests", dependencies: ["AdStitching", "AdDecision", "AdCampaign", "HLSPlaylist"],
            // Golden/ is read and (with ADSTITCH_UPDATE_GOLDEN=1) rewritten in the source tree via #filePath.
            exclude: ["Golden"], resources: [.copy("Fixtures")], swiftSettings: swiftSettings),
    ]
)

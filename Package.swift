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
        .executable(name: "adstitch", targets: ["adstitch"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
    ],
    targets: [
        .target(name: "HLSPlaylist", swiftSettings: swiftSettings),
        .executableTarget(
            name: "adstitch",
            dependencies: [
                "HLSPlaylist",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "HLSPlaylistTests", dependencies: ["HLSPlaylist"], resources: [.copy("Fixtures")], swiftSettings: swiftSettings),
    ]
)

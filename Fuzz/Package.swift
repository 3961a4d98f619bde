// swift-tools-version: 6.1
// libFuzzer targets for AdStitch, built with `swift build --sanitize=fuzzer --sanitize=address`
// by scripts/fuzz.sh (`make fuzz`). Each target defines LLVMFuzzerTestOneInput and no main:
// libFuzzer's main drives it (hence -parse-as-library).
import PackageDescription

let fuzzer: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

let package = Package(
    name: "AdStitchFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "AdStitch", path: "../")],
    targets: [
        .executableTarget(name: "PlaylistFuzzer", dependencies: [.product(name: "HLSPlaylist", package: "AdStitch")], swiftSettings: fuzzer),
        .executableTarget(name: "SCTE35Fuzzer", dependencies: [.product(name: "SCTE35", package: "AdStitch")], swiftSettings: fuzzer),
        .executableTarget(
            name: "CampaignFuzzer",
            dependencies: [
                .product(name: "HLSPlaylist", package: "AdStitch"), .product(name: "AdCampaign", package: "AdStitch"),
                .product(name: "AdDecision", package: "AdStitch"), .product(name: "AdStitching", package: "AdStitch"),
            ],
            swiftSettings: fuzzer
        ),
        .executableTarget(
            name: "VASTFuzzer",
            dependencies: [.product(name: "HLSPlaylist", package: "AdStitch"), .product(name: "AdServer", package: "AdStitch")],
            swiftSettings: fuzzer
        ),
        .executableTarget(
            name: "LiveFuzzer",
            dependencies: [.product(name: "HLSPlaylist", package: "AdStitch"), .product(name: "AdLive", package: "AdStitch")],
            swiftSettings: fuzzer
        ),
    ]
)

import BenchmarkCampaigns
import Foundation

// Usage: write-two-hour-campaign FOLDER — writes FOLDER/campaign.yaml and its playlists
// (scripts/bench-http.sh serves them).
guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: write-two-hour-campaign FOLDER\n".utf8))
    exit(64)
}
print(TwoHourCampaign.write(into: URL(fileURLWithPath: CommandLine.arguments[1], isDirectory: true)).path)

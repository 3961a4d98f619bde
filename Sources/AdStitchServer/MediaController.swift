import Foundation
import HTTPTypes
import Hummingbird

/// `GET /v1/campaigns/{id}/media/**`: the media of local campaigns, so the demo plays from the
/// same server. Paths cannot leave the campaign's folder; byte ranges (RFC 9110 §14) are
/// answered, which byte-range segments need.
struct MediaController: Sendable {
    let store: CampaignStore

    func register(on router: Router<BasicRequestContext>) {
        router.getAndHead("/v1/campaigns/:id/media/**") { request, context in try self.file(request, context) }
    }

    func file(_ request: Request, _ context: BasicRequestContext) throws -> Response {
        let id = try context.parameters.require("id")
        guard let served = self.store.campaign(id) else { throw Problem.notFound("no campaign \"\(id)\" is loaded") }
        let parts = context.parameters.getCatchAll().map { $0.removingPercentEncoding ?? String($0) }
        guard !parts.isEmpty, !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." || $0.contains("/") || $0.contains("\0") }) else {
            throw Problem.badRequest("media paths are plain file names under the campaign's folder")
        }
        let url = parts.reduce(served.folder) { $0.appendingPathComponent($1) }.standardizedFileURL
        let root = served.folder.path.hasSuffix("/") ? served.folder.path : served.folder.path + "/"
        var isDirectory: ObjCBool = false
        guard url.path.hasPrefix(root), FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue,
            let data = FileManager.default.contents(atPath: url.path)
        else {
            throw Problem.notFound("no media file \(parts.joined(separator: "/")) in campaign \(id)")
        }
        var headers: HTTPFields = [
            .contentType: Self.contentType(url.pathExtension), .acceptRanges: "bytes", .cacheControl: "public, max-age=86400",
            .accessControlAllowOrigin: "*",
        ]
        if let range = request.headers[.range] {
            guard let (start, end) = Self.range(range, size: data.count) else {
                headers[.contentRange] = "bytes */\(data.count)"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
            headers[.contentRange] = "bytes \(start)-\(end)/\(data.count)"
            return Response(status: .partialContent, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data[start...end])))
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A single `bytes=a-b`, `bytes=a-` or `bytes=-n` range within `size`.
    static func range(_ header: String, size: Int) -> (Int, Int)? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let spec = header.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard spec.count == 2, size > 0 else { return nil }
        if spec[0].isEmpty {
            guard let suffix = Int(spec[1]), suffix > 0 else { return nil }
            return (max(0, size - suffix), size - 1)
        }
        guard let start = Int(spec[0]), start < size else { return nil }
        let end = spec[1].isEmpty ? size - 1 : min(Int(spec[1]) ?? -1, size - 1)
        return end >= start ? (start, end) : nil
    }

    static func contentType(_ extension: String) -> String {
        switch `extension`.lowercased() {
        case "ts": "video/mp2t"
        case "m4s", "mp4": "video/mp4"
        case "m4a": "audio/mp4"
        case "aac": "audio/aac"
        case "vtt": "text/vtt"
        case "m3u8": "application/vnd.apple.mpegurl"
        case "key": "application/octet-stream"
        default: "application/octet-stream"
        }
    }
}

import Foundation
import HTTPTypes
import Hummingbird

/// An error response as `application/problem+json` (RFC 9457), with a message a person can
/// act on.
struct Problem: Error {
    var status: HTTPResponse.Status
    var title: String
    var detail: String

    static func notFound(_ detail: String) -> Problem { Problem(status: .notFound, title: "Not found", detail: detail) }
    static func badRequest(_ detail: String) -> Problem { Problem(status: .badRequest, title: "Bad request", detail: detail) }
    static func forbidden(_ detail: String) -> Problem { Problem(status: .forbidden, title: "Forbidden", detail: detail) }

    var response: Response {
        let body: [String: Any] = ["type": "about:blank", "title": self.title, "status": Int(self.status.code), "detail": self.detail]
        let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
        return Response(
            status: self.status,
            headers: [.contentType: "application/problem+json", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}

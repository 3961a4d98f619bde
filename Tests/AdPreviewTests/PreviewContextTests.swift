import AdCampaign
import Foundation
import Testing

@testable import AdPreview

/// The preview's viewer context as its query gives it, without a server.
@Suite("Preview context")
struct PreviewContextTests {
    static let now = Date(timeIntervalSince1970: 1_764_000_000.123_9)

    @Test("a query's every shape: defaults, empty fields, more lines, modes, titles, and each bad value named")
    func shapes() {
        struct Case {
            var query: String
            var session = "preview-1"
            var at: Int64 = 1_764_000_000_123
            var attributes: [String: String] = [:]
            var insertion: Insertion?
            var title: String?
            var errors: [String] = []
        }
        let cases: [Case] = [
            Case(query: ""),
            Case(query: "session=&at=&locale=&device=+"),
            Case(query: "session=+viewer+7+&locale=es-ES", session: "viewer 7", attributes: ["locale": "es-ES"]),
            Case(query: "at=2026-11-27T19:30:00.250Z", at: 1_795_807_800_250),
            Case(query: "at=2026-11-27T19:30:00.2501Z", errors: ["more precision than milliseconds"]),
            Case(query: "at=yesterday", errors: ["not an ISO 8601 date-time"]),
            Case(query: "more=a%3D1%0Ab+%3D+two+words%0A%0Anoequals", attributes: ["a": "1", "b": "two words"], errors: ["must be key=value"]),
            Case(query: "insertion=interstitials&count=3&title=shows%2Fa.m3u8", insertion: .interstitials, title: "shows/a.m3u8"),
            Case(query: "insertion=sideways", errors: ["is not a mode"]),
            Case(query: "=orphan&device=tv", attributes: ["device": "tv"]),
            Case(query: "locale=" + String(repeating: "x", count: 1025), errors: ["query parameters must have names"]),
            Case(query: String(repeating: "n", count: 65) + "=1", errors: ["query parameters must have names"]),
        ]
        for item in cases {
            let context = PreviewContext(query: PreviewContext.pairs(item.query), now: Self.now)
            #expect(context.session == item.session, "\(item.query)")
            #expect(context.at == item.at, "\(item.query)")
            #expect(context.attributes == item.attributes, "\(item.query)")
            #expect(context.insertion == item.insertion, "\(item.query)")
            #expect(context.title == item.title, "\(item.query)")
            #expect(context.errors.count == item.errors.count, "\(item.query): \(context.errors)")
            for (error, expected) in zip(context.errors, item.errors) { #expect(error.contains(expected), "\(item.query): \(error)") }
        }
    }

    @Test("the query a page writes reads back as the same context, whatever its values hold")
    func roundTrip() throws {
        let awkward = ["a b", "a+b", "a&b=c", "100%", "é ü 字", "?#/", "  padded  ".trimmingCharacters(in: .whitespaces), "x=y=z"]
        for (index, value) in awkward.enumerated() {
            var context = PreviewContext(
                session: "s \(value)",
                at: 1_795_807_800_000 + Int64(index),
                attributes: ["locale": value, "k \(index)": value]
            )
            context.title = "shows/\(value).m3u8"
            let read = PreviewContext(query: PreviewContext.pairs(context.query), now: Self.now)
            #expect(read.errors.isEmpty, "\(value): \(read.errors)")
            #expect(read.session == context.session, "\(value)")
            #expect(read.at == context.at, "\(value)")
            #expect(read.attributes == context.attributes, "\(value)")
            #expect(read.title == context.title, "\(value)")
        }
    }
}

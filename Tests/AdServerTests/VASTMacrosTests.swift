import AdServerClient
import Foundation
import Testing

@Suite("VAST macros")
struct VASTMacrosTests {
    @Test("known macros filled percent-encoded; unknown ones, a lone bracket and text without macros left as written (VAST 4.3 §6.1)")
    func fill() {
        let values = ["ERRORCODE": "403", "TIMESTAMP": "2026-11-28T11:02:41.377+00:00", "UNIVERSALADID": "ad-id.org UAID/1"]
        #expect(
            VASTMacros.fill("https://t.example/e?c=[ERRORCODE]&t=[TIMESTAMP]&u=[UNIVERSALADID]&p=[CONTENTPLAYHEAD]", values)
                == "https://t.example/e?c=403&t=2026-11-28T11%3A02%3A41.377%2B00%3A00&u=ad-id.org%20UAID%2F1&p=[CONTENTPLAYHEAD]"
        )
        #expect(VASTMacros.fill("https://t.example/e?c=[ERRORCODE", values) == "https://t.example/e?c=[ERRORCODE")
        #expect(VASTMacros.fill("https://t.example/[ERRORCODE]/[ERRORCODE]", values) == "https://t.example/403/403")
        #expect(VASTMacros.fill("https://t.example/plain", values) == "https://t.example/plain")
        let standard = VASTMacros.values(["ERRORCODE": "407"])
        #expect(standard["CACHEBUSTING"]?.count == 8 && standard["CACHEBUSTING"]?.allSatisfy(\.isNumber) == true)
        #expect(standard["ERRORCODE"] == "407" && standard["TIMESTAMP"]?.contains("T") == true)
        // [TIMESTAMP]: UTC with milliseconds, however many of them are zero, at any moment.
        for (date, text) in [
            (Date(timeIntervalSince1970: 0), "1970-01-01T00:00:00.000Z"),
            (Date(timeIntervalSince1970: 1_796_290_200.123_4), "2026-12-03T09:30:00.123Z"),
            (Date(timeIntervalSince1970: 951_782_400.999_9), "2000-02-29T00:00:00.999Z"),
            (Date(timeIntervalSince1970: -0.5), "1969-12-31T23:59:59.500Z"),
        ] {
            #expect(VASTMacros.values(at: date)["TIMESTAMP"] == text)
        }
        // [CACHEBUSTING]: eight digits, leading zeros kept, different from call to call.
        let busters = Set((0..<200).compactMap { _ in VASTMacros.values()["CACHEBUSTING"] })
        #expect(busters.count > 190 && busters.allSatisfy { $0.count == 8 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) })
    }

    @Test(
        "a filled URI as it is requested: an unfilled macro's brackets and a space escaped, the filled values' escapes kept (not encoded twice), an IPv6 host's brackets kept; Foundation reads it as that string"
    )
    func requestable() throws {
        let filled = VASTMacros.fill("https://t.example/e?ap=[ADPLAYHEAD]&cp=[CONTENTPLAYHEAD]&n=a b", ["ADPLAYHEAD": "00:00:01.920"])
        let sent = VASTMacros.requestable(filled)
        #expect(sent == "https://t.example/e?ap=00%3A00%3A01.920&cp=%5BCONTENTPLAYHEAD%5D&n=a%20b")
        #expect(try #require(URL(string: sent)).absoluteString == sent)
        #expect(VASTMacros.requestable("http://[::1]:8080/t?c=[X]") == "http://[::1]:8080/t?c=%5BX%5D")
        for plain in ["https://t.example/i?ad=alpha&t=2026-11-28T11%3A02%3A41.377Z", "https://t.example", "not a url [x]"] {
            #expect(VASTMacros.requestable(plain) == plain)
        }
        #expect(VASTMacros.time(milliseconds: 3_723_004) == "01:02:03.004" && VASTMacros.time(milliseconds: -5) == "00:00:00.000")
    }
}

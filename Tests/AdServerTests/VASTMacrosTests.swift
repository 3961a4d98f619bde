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
    }
}

import AdServer
import Foundation
import Testing

/// `<AdVerifications>` (VAST 4.3 §3.16) in the shapes ad servers write them: in `<InLine>` (VAST
/// 4.0+), in `<Wrapper>` (4.1+), in `<Extensions><Extension type="AdVerifications">` (VAST 3 and
/// the 4.0 wrappers before the element was allowed there), with JavaScript and executable
/// resources; a wrapper's verifications go with the ad it leads to, ahead of the inline ad's.
@Suite("VAST verifications")
struct VASTVerificationTests {
    static func verification(_ vendor: String, resource: String = "", parameters: String = "") -> String {
        let script =
            resource.isEmpty
            ? "<JavaScriptResource apiFramework=\"omid\" browserOptional=\"true\"><![CDATA[https://\(vendor)/v.js]]></JavaScriptResource>" : resource
        return """
            <Verification vendor="\(vendor)">\(script)\(parameters)
            <TrackingEvents><Tracking event="verificationNotExecuted"><![CDATA[https://\(vendor)/nx?r=[REASON]]]></Tracking></TrackingEvents>
            </Verification>
            """
    }

    static func inline(_ verifications: String, version: String = "4.3") -> Data {
        Data(
            """
            <VAST version="\(version)"><Ad id="a1"><InLine><AdSystem>S</AdSystem><AdTitle>T</AdTitle>
            <Impression><![CDATA[https://t.example/i]]></Impression>
            <Creatives><Creative id="c1"><Linear><Duration>00:00:10</Duration><MediaFiles>
            <MediaFile delivery="streaming" type="application/x-mpegURL" width="1280" height="720"><![CDATA[https://cdn.example/a1/master.m3u8]]></MediaFile>
            </MediaFiles></Linear></Creative></Creatives>\(verifications)</InLine></Ad></VAST>
            """.utf8
        )
    }

    @Test(
        "an inline ad's: vendor, JavaScript and executable resources with their attributes, parameters and trackers; one with no resource is dropped"
    )
    func inline() throws {
        let executable =
            "<ExecutableResource apiFramework=\"vendorx\" type=\"application/octet-stream\"><![CDATA[https://x.example/bin]]></ExecutableResource>"
        let document = try VASTDocument(
            Self.inline(
                "<AdVerifications>"
                    + Self.verification("a.example-omid", parameters: "<VerificationParameters><![CDATA[{\"k\":1}]]></VerificationParameters>")
                    + Self.verification("x.example", resource: executable) + "<Verification vendor=\"empty.example\"></Verification>"
                    + "</AdVerifications>"
            )
        )
        let found = try #require(document.ads.first?.verifications)
        #expect(found.map(\.vendor) == ["a.example-omid", "x.example"])
        #expect(found[0].resources.map(\.kind) == ["javascript"] && found[0].resources[0].uri == "https://a.example-omid/v.js")
        #expect(found[0].resources[0].apiFramework == "omid" && found[0].resources[0].browserOptional == true)
        #expect(found[0].parameters == "{\"k\":1}" && found[1].parameters == nil)
        #expect(found[0].tracking == ["verificationNotExecuted": ["https://a.example-omid/nx?r=[REASON]"]])
        #expect(found[1].resources.map(\.kind) == ["executable"] && found[1].resources[0].type == "application/octet-stream")
    }

    @Test("VAST 3's extension form reads the same; an ad without any has none")
    func extensionForm() throws {
        let document = try VASTDocument(
            Self.inline(
                "<Extensions><Extension type=\"waterfall\"><X/></Extension><Extension type=\"AdVerifications\"><AdVerifications>"
                    + Self.verification("v3.example") + "</AdVerifications></Extension></Extensions>",
                version: "3.0"
            )
        )
        #expect(document.ads.first?.verifications.map(\.vendor) == ["v3.example"])
        #expect(try VASTDocument(Self.inline("")).ads.first?.verifications == [])
    }

    @Test("through two wrappers (one of each form) the ad keeps every verification, outermost first")
    func throughWrappers() async throws {
        func wrapper(_ id: String, to uri: String, _ verifications: String) -> Data {
            Data(
                """
                <VAST version="4.3"><Ad id="\(id)"><Wrapper><AdSystem>W</AdSystem><Impression><![CDATA[https://w.example/\(id)]]></Impression>
                <VASTAdTagURI><![CDATA[\(uri)]]></VASTAdTagURI>\(verifications)</Wrapper></Ad></VAST>
                """.utf8
            )
        }
        let server = MemoryAdServer([
            "https://w.example/inner": wrapper(
                "inner",
                to: "https://ads.example/inline",
                "<Extensions><Extension type=\"AdVerifications\"><AdVerifications>\(Self.verification("inner.example"))</AdVerifications></Extension></Extensions>"
            ),
            "https://ads.example/inline": Self.inline("<AdVerifications>\(Self.verification("inline.example"))</AdVerifications>"),
        ])
        let outer = try VASTDocument(
            wrapper("outer", to: "https://w.example/inner", "<AdVerifications>\(Self.verification("outer.example"))</AdVerifications>")
        )
        let resolution = await VASTResolver(fetch: server.fetch).resolve(outer, from: URL(string: "https://exchange.example/vast"))
        let ad = try #require(resolution.ads.first)
        #expect(ad.verifications.map(\.vendor) == ["outer.example", "inner.example", "inline.example"])
    }
}

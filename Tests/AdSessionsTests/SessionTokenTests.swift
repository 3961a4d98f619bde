import AdCampaign
import AdDecision
import AdSessions
import Crypto
import Foundation
import Testing

/// Session tokens through their public interface: every context survives the round trip, and
/// only the exact signed text is accepted.
@Suite("Session tokens")
struct SessionTokenTests {
    static var secret: SymmetricKey { SymmetricKey(data: Data("token-secret".utf8)) }

    @Test("200 random contexts (any length, any characters) round-trip exactly")
    func roundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("abcXYZ019-_.~ /+=?&%é漢🎬\"\\\n")
        for index in 0..<200 {
            func text(_ limit: Int) -> String {
                String((0..<Int.random(in: 0...limit, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            }
            var attributes: [String: String] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &generator) { attributes[text(8)] = text(40) }
            let token = SessionToken(
                campaign: "c-\(index)",
                revision: text(16),
                session: text(index % 50),
                at: Int64.random(in: SessionToken.decisionTimes, using: &generator),
                attributes: attributes,
                expires: Int64.random(in: 0...Int64.max, using: &generator),
                scope: Bool.random(using: &generator) ? .viewer : .preview
            )
            let encoded = token.encoded(secret: Self.secret)
            #expect(encoded.allSatisfy { $0.isLetter && $0.isASCII || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." })
            #expect(SessionToken(decoding: encoded, secret: Self.secret) == token)
        }
    }

    @Test("a token whose signature is spelled differently but decodes to the same bytes is refused")
    func nonCanonicalSignature() throws {
        let encoded = SessionToken(campaign: "c", revision: "r", session: "s", at: 1, attributes: [:], expires: 2).encoded(secret: Self.secret)
        // 16 bytes are 22 base64url characters; the last carries 2 bits and 4 unused ones.
        let last = try #require(encoded.last)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let value = try #require(alphabet.firstIndex(of: last))
        let sameBits = alphabet[value ^ 1]
        #expect(SessionToken(decoding: encoded.dropLast() + String(sameBits), secret: Self.secret) == nil)
        #expect(SessionToken(decoding: encoded + "A", secret: Self.secret) == nil)
        #expect(SessionToken(decoding: encoded.replacingOccurrences(of: ".", with: ".="), secret: Self.secret) == nil)
        #expect(SessionToken(decoding: encoded, secret: Self.secret) != nil)
        // Exactly one dot between two parts: more, none, or an empty part is malformed.
        let (body, signature) = (String(encoded.prefix { $0 != "." }), String(encoded.drop { $0 != "." }.dropFirst()))
        let (head, tail) = (String(signature.prefix(10)), String(signature.dropFirst(10)))
        let malformed: [String] = [
            "\(body)..\(signature)", "\(body).\(signature).", ".\(body).\(signature)", body + signature, body + ".", "." + signature, "", ".",
            "\(body).\(head).\(tail)",
        ]
        for token in malformed {
            #expect(SessionToken(decoding: token, secret: Self.secret) == nil, "\(token)")
        }
        #expect(SessionToken(decoding: body + "." + signature, secret: Self.secret) != nil)
        // A substring of a longer text decodes as the same token (the route passes path segments).
        let path = "/sessions/" + encoded + "/v0.m3u8"
        #expect(SessionToken(decoding: path.split(separator: "/")[1], secret: Self.secret) != nil)
    }

    /// `payload` signed as a version 2 token is (base64url, then the truncated HMAC of that text).
    static func signed(_ payload: [UInt8], secret: SymmetricKey = Self.secret) -> String {
        func base64URL(_ bytes: some Sequence<UInt8>) -> String {
            Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let body = base64URL(payload)
        return body + "." + base64URL(Array(HMAC<SHA256>.authenticationCode(for: Data(body.utf8), using: secret)).prefix(16))
    }

    @Test("the payload is version 3 binary, about half the JSON token, and read strictly even when correctly signed")
    func binaryPayload() throws {
        let token = SessionToken(
            campaign: "two-hours",
            revision: "9f86d081884c7d65",
            session: "bench-1",
            at: 1_795_800_000_000,
            attributes: ["locale": "en-GB", "device": "tv"],
            expires: 1_795_886_400
        )
        let encoded = token.encoded(secret: Self.secret)
        #expect(encoded.count <= 130, "\(encoded.count) characters (as JSON with a full HMAC: 231)")
        let payload = try #require(Data(base64Encoded: Self.padded(String(encoded.prefix { $0 != "." }))))
        // The same bytes signed again decode; every broken shape of them does not.
        #expect(SessionToken(decoding: Self.signed(Array(payload)), secret: Self.secret) == token)
        var trailing = Array(payload)
        trailing.append(0)
        var unsorted = Array(payload)
        let device = Array("\u{6}device\u{2}tv".utf8)
        let locale = Array("\u{6}locale\u{5}en-GB".utf8)
        let start = try #require(unsorted.firstRange(of: device)).lowerBound
        unsorted.replaceSubrange(start..<(start + device.count + locale.count), with: locale + device)
        var badUTF8 = Array(payload)
        badUTF8[badUTF8.count - 1] = 0xff
        var longLength = Array(payload)
        longLength[19] = 0x7f  // the campaign's length: past the end
        var badInsertion = Array(payload)
        badInsertion[2] = UInt8(ascii: "a")  // neither s(titched) nor i(nterstitials)
        for broken in [Array(payload.dropLast()), trailing, unsorted, badUTF8, longLength, badInsertion, [4] + payload.dropFirst(), [UInt8]()] {
            #expect(SessionToken(decoding: Self.signed(broken), secret: Self.secret) == nil, "\(broken)")
        }
        #expect(SessionToken(decoding: Self.signed(Array(payload), secret: SymmetricKey(data: Data("other".utf8))), secret: Self.secret) == nil)
    }

    @Test("the insertion mode is signed in: an interstitial session's token says so, and a version 2 token (before the mode) is stitched")
    func insertionMode() throws {
        var token = SessionToken(campaign: "news", revision: "r1", session: "s-1", at: 1_795_800_000_000, attributes: [:], expires: 1_795_886_400)
        token.insertion = .interstitials
        let encoded = token.encoded(secret: Self.secret)
        #expect(SessionToken(decoding: encoded, secret: Self.secret)?.insertion == .interstitials)
        let payload = try #require(Data(base64Encoded: Self.padded(String(encoded.prefix { $0 != "." }))))
        #expect(payload[2] == UInt8(ascii: "i"))
        // Switched to stitched by hand: the signature no longer matches.
        var switched = Array(payload)
        switched[2] = UInt8(ascii: "s")
        let body = String(encoded.prefix { $0 != "." })
        let forged = Data(switched).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        #expect(forged != body)
        #expect(SessionToken(decoding: forged + encoded.drop { $0 != "." }, secret: Self.secret) == nil)
        // Version 2: no insertion byte; such tokens were issued by stitched-only servers.
        let version2 = [UInt8(2), payload[1]] + Array(payload.dropFirst(3))
        let old = try #require(SessionToken(decoding: Self.signed(version2), secret: Self.secret))
        #expect(old.insertion == .stitched)
        #expect(old.session == "s-1" && old.expires == 1_795_886_400)
    }

    @Test("a catalogue session's title path is signed in (version 4); a token without one is version 3 and has none")
    func cataloguePath() throws {
        var token = SessionToken(
            campaign: "library",
            revision: "r1",
            session: "s-1",
            at: 1_795_800_000_000,
            attributes: ["a": "b"],
            expires: 1_795_886_400
        )
        let plain = token.encoded(secret: Self.secret)
        #expect(SessionToken(decoding: plain, secret: Self.secret)?.title == nil)
        for title in ["show/one/master.m3u8", "", "é/漢.m3u8", String(repeating: "x/", count: 500) + "m.m3u8"] {
            token.title = title
            let encoded = token.encoded(secret: Self.secret)
            #expect(SessionToken(decoding: encoded, secret: Self.secret) == token)
            let payload = Array(try #require(Data(base64Encoded: Self.padded(String(encoded.prefix { $0 != "." })))))
            #expect(payload[0] == 4)
            // Without its path, with a byte after it, or relabelled version 3: refused even when signed.
            for broken in [Array(payload.dropLast()), payload + [0], [3] + payload.dropFirst()] {
                #expect(SessionToken(decoding: Self.signed(broken), secret: Self.secret) == nil, "\(title): \(broken.prefix(4))")
            }
        }
    }

    @Test("the frequency caps a viewer reached are signed in (version 5), with any reporting and title; out of order or repeated is refused")
    func cappedCaps() throws {
        var token = SessionToken(
            campaign: "news",
            revision: "r1",
            session: "s-1",
            at: 1_795_800_000_000,
            attributes: ["viewer": "v-1"],
            expires: 1_795_886_400
        )
        for capped in [[0], [1, 5, 63], Array(0..<64)] {
            for reporting in [nil, Campaign.Reporting.client] {
                for title in [nil, "show/master.m3u8"] as [String?] {
                    (token.capped, token.reporting, token.title) = (capped, reporting, title)
                    let encoded = token.encoded(secret: Self.secret)
                    #expect(SessionToken(decoding: encoded, secret: Self.secret) == token)
                    #expect(SessionToken(decoding: encoded, secret: Self.secret)?.context.capped == capped)
                    let payload = Array(try #require(Data(base64Encoded: Self.padded(String(encoded.prefix { $0 != "." })))))
                    #expect(payload[0] == 5)
                }
            }
        }
        // The options as written for [1, 5]: a mode byte, the count, the indexes; then broken ways.
        (token.capped, token.reporting, token.title) = ([1, 5], nil, nil)
        let payload = Array(try #require(Data(base64Encoded: Self.padded(String(token.encoded(secret: Self.secret).prefix { $0 != "." })))))
        #expect(Array(payload.suffix(4)) == [UInt8(ascii: "-"), 2, 1, 5])
        let head = Array(payload.prefix(payload.count - 4))
        let dash = UInt8(ascii: "-")
        let tails: [[UInt8]] = [
            [dash, 2, 5, 1],  // not ascending
            [dash, 2, 5, 5],  // repeated
            [dash, 1, 64],  // beyond the 64 a token holds
            [dash, 65] + (0..<65).map { UInt8($0) },  // too many
            [dash, 0],  // options that say nothing
            [dash, 2, 1],  // cut short
        ]
        for broken in tails.map({ head + $0 }) {
            #expect(SessionToken(decoding: Self.signed(broken), secret: Self.secret) == nil, "\(broken.suffix(5))")
        }
    }

    @Test("a session start's reporting choice is signed in (version 5), with and without a catalogue title; a token without one has none")
    func reportingChoice() throws {
        var token = SessionToken(
            campaign: "library",
            revision: "r1",
            session: "s-1",
            at: 1_795_800_000_000,
            attributes: ["a": "b"],
            expires: 1_795_886_400,
            insertion: .interstitials,
            decided: true
        )
        #expect(SessionToken(decoding: token.encoded(secret: Self.secret), secret: Self.secret)?.reporting == nil)
        for title in [nil, "", "show/one/master.m3u8"] as [String?] {
            for reporting in Campaign.Reporting.allCases {
                token.title = title
                token.reporting = reporting
                let encoded = token.encoded(secret: Self.secret)
                #expect(SessionToken(decoding: encoded, secret: Self.secret) == token, "\(reporting) \(title ?? "no title")")
                let payload = Array(try #require(Data(base64Encoded: Self.padded(String(encoded.prefix { $0 != "." })))))
                #expect(payload[0] == 5)
                // Relabelled version 3 or 4, an unknown mode byte, a byte after the title: refused even when signed.
                // The mode byte, then the count of reached caps (none), then the title.
                let modeAt = payload.count - (title.map { $0.utf8.count + 1 } ?? 0) - 2
                #expect(payload[modeAt] == UInt8(ascii: reporting == .client ? "c" : "s") && payload[modeAt + 1] == 0)
                var unknown = payload
                unknown[modeAt] = UInt8(ascii: "x")
                let extra = title == nil ? [] : [payload + [0]]
                for broken in [[3] + payload.dropFirst(), [4] + payload.dropFirst(), unknown] + extra {
                    #expect(SessionToken(decoding: Self.signed(broken), secret: Self.secret) == nil, "\(reporting) \(title ?? "-")")
                }
            }
        }
    }

    @Test("whether an ad server's decisions were recorded is signed in, for both insertion modes; a token without says no")
    func decidedFlag() throws {
        for insertion in [Insertion.stitched, .interstitials] {
            for decided in [false, true] {
                let token = SessionToken(
                    campaign: "news",
                    revision: "r1",
                    session: "s-1",
                    at: 1_795_800_000_000,
                    attributes: ["market": "es"],
                    expires: 1_795_886_400,
                    insertion: insertion,
                    decided: decided
                )
                let encoded = token.encoded(secret: Self.secret)
                let read = try #require(SessionToken(decoding: encoded, secret: Self.secret))
                #expect(read == token)
                let payload = try #require(Data(base64Encoded: Self.padded(String(encoded.prefix { $0 != "." }))))
                let expected: Character = insertion == .stitched ? (decided ? "S" : "s") : (decided ? "I" : "i")
                #expect(payload[2] == UInt8(ascii: expected.unicodeScalars.first!))
                // The key the decisions are recorded under differs by decision time and scope.
                var other = token
                other.at += 1
                #expect(other.decisionKey != token.decisionKey)
                other = token
                other.scope = .preview
                #expect(other.decisionKey != token.decisionKey)
            }
        }
    }

    @Test("a live session's join point is signed in after the times, stitched or as interstitials; a payload cut short or a negative join is refused")
    func liveJoin() throws {
        let token = SessionToken(
            campaign: "live",
            revision: "r1",
            session: "s-1",
            at: 1_795_800_000_000,
            attributes: ["locale": "es"],
            expires: 1_795_886_400,
            liveJoin: 123_456
        )
        let encoded = token.encoded(secret: Self.secret)
        let decoded = try #require(SessionToken(decoding: encoded, secret: Self.secret))
        #expect(decoded == token && decoded.liveJoin == 123_456 && decoded.insertion == .stitched)
        let payload = Array(try #require(Data(base64Encoded: Self.padded(String(encoded.prefix { $0 != "." })))))
        #expect(payload[2] == UInt8(ascii: "l"))
        // The same payload read as a VOD token (mode `s`) has eight bytes too many: refused.
        var vod = payload
        vod[2] = UInt8(ascii: "s")
        #expect(SessionToken(decoding: Self.signed(vod), secret: Self.secret) == nil)
        // A VOD token's payload relabelled live lacks the join point: refused.
        let plain = SessionToken(campaign: "live", revision: "r1", session: "s-1", at: 1_795_800_000_000, attributes: [:], expires: 1_795_886_400)
        var relabelled = Array(try #require(Data(base64Encoded: Self.padded(String(plain.encoded(secret: Self.secret).prefix { $0 != "." })))))
        relabelled[2] = UInt8(ascii: "l")
        #expect(SessionToken(decoding: Self.signed(relabelled), secret: Self.secret) == nil)
        var negative = payload
        for index in 19..<27 { negative[index] = 0xff }
        #expect(SessionToken(decoding: Self.signed(negative), secret: Self.secret) == nil)
        // A live session as the channel's interstitials: `L`, the same join point.
        var interstitial = token
        interstitial.insertion = .interstitials
        let signed = interstitial.encoded(secret: Self.secret)
        let read = try #require(SessionToken(decoding: signed, secret: Self.secret))
        #expect(read == interstitial && read.liveJoin == 123_456 && read.insertion == .interstitials)
        #expect(Array(try #require(Data(base64Encoded: Self.padded(String(signed.prefix { $0 != "." })))))[2] == UInt8(ascii: "L"))
    }

    @Test("a version 1 token (JSON payload, full HMAC) issued before an upgrade still plays")
    func versionOne() throws {
        let json = #"{"a":{"locale":"es-ES"},"c":"evening-news","e":4102444800,"k":"v","r":"abc","s":"s-1","t":1795800000000}"#
        let body = Data(json.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
        let signature = Data(HMAC<SHA256>.authenticationCode(for: Data(body.utf8), using: Self.secret)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let token = try #require(SessionToken(decoding: body + "." + signature, secret: Self.secret))
        #expect(
            token
                == SessionToken(
                    campaign: "evening-news",
                    revision: "abc",
                    session: "s-1",
                    at: 1_795_800_000_000,
                    attributes: ["locale": "es-ES"],
                    expires: 4_102_444_800
                )
        )
        #expect(SessionToken(decoding: body + "." + signature, secret: SymmetricKey(data: Data("other".utf8))) == nil)
        // Truncating a version 1 signature to 128 bits does not make it a version 2 one.
        #expect(SessionToken(decoding: body + "." + signature.prefix(22), secret: Self.secret) == nil)
    }

    static func padded(_ base64URL: String) -> String {
        let text = base64URL.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        return text + String(repeating: "=", count: (4 - text.count % 4) % 4)
    }
}

import AdStitchServer
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
        // 32 bytes are 43 base64url characters; the last carries 4 bits and 2 unused ones.
        let last = try #require(encoded.last)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let value = try #require(alphabet.firstIndex(of: last))
        let sameBits = alphabet[value ^ 1]
        #expect(SessionToken(decoding: encoded.dropLast() + String(sameBits), secret: Self.secret) == nil)
        #expect(SessionToken(decoding: encoded + "A", secret: Self.secret) == nil)
        #expect(SessionToken(decoding: encoded.replacingOccurrences(of: ".", with: ".="), secret: Self.secret) == nil)
        #expect(SessionToken(decoding: encoded, secret: Self.secret) != nil)
    }
}

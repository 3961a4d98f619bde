import AdOrigin
import Foundation
import Testing

/// Which addresses a URL an ad server named may reach (docs/reliability.md "Ad server faults"):
/// the IANA special-purpose ranges, IPv4 inside IPv6, names trusted by the campaign, redirects.
@Suite("Address policy")
struct AddressPolicyTests {
    @Test(
        "every special-purpose range is not public, IPv4 inside IPv6 judged as IPv4; global unicast is",
        arguments: [
            // IPv4: this network, private, shared, loopback, link-local (cloud metadata), IETF, TEST-NETs,
            // benchmarking, multicast, reserved, broadcast.
            ("0.0.0.0", false), ("0.1.2.3", false), ("10.0.0.1", false), ("10.255.255.255", false), ("100.64.0.1", false),
            ("100.127.255.254", false), ("127.0.0.1", false), ("127.8.9.10", false), ("169.254.169.254", false), ("172.16.0.1", false),
            ("172.31.255.255", false), ("192.0.0.8", false), ("192.0.2.1", false), ("192.168.1.1", false), ("198.18.0.1", false),
            ("198.19.255.255", false), ("198.51.100.7", false), ("203.0.113.9", false), ("224.0.0.1", false), ("239.255.255.250", false),
            ("240.0.0.1", false), ("255.255.255.255", false),
            // Just outside them: public.
            ("100.63.255.255", true), ("100.128.0.1", true), ("172.15.255.255", true), ("172.32.0.1", true), ("169.253.1.1", true),
            ("192.0.1.1", true), ("198.17.0.1", true), ("198.20.0.1", true), ("8.8.8.8", true), ("93.184.216.34", true),
            // IPv6: unspecified, loopback, the compatible form, mapped private and public, NAT64, 6to4, ULA (the
            // EC2 metadata service fd00:ec2::254), link-local, multicast, documentation, IETF assignments.
            ("::", false), ("::1", false), ("::7f00:1", false), ("::ffff:127.0.0.1", false), ("::ffff:169.254.169.254", false),
            ("::ffff:8.8.8.8", true), ("64:ff9b::a00:1", false), ("64:ff9b::808:808", true), ("2002:a00:1::", false), ("2002:808:808::", true),
            ("fd00:ec2::254", false), ("fc00::1", false), ("fe80::1", false), ("ff02::1", false), ("2001:db8::1", false), ("2001::1", false),
            ("3fff::1", false), ("2606:4700:4700::1111", true), ("2a00:1450:4001:80e::200e", true),
        ]
    )
    func ranges(_ address: String, _ isPublic: Bool) throws {
        let parsed = try #require(IPAddress(address))
        #expect(parsed.isPublic == isPublic, "\(address)")
    }

    @Test("a URL is refused with its address and what to do; a trusted name passes whatever it resolves to; other schemes never pass")
    func urls() throws {
        let policy = AddressPolicy(trustedHosts: ["ads.internal", "127.0.0.1", "LOCALHOST."])
        func refusal(_ text: String) -> String? {
            guard case .failure(let refusal) = policy.check(URL(string: text)!) else { return nil }
            return refusal.reason
        }
        #expect(refusal("http://169.254.169.254/latest/meta-data/")?.contains("169.254.169.254, not a public address") == true)
        #expect(refusal("http://[::1]:8080/x")?.contains("::1, not a public address") == true)
        #expect(refusal("http://10.0.0.5/x")?.contains("trust the host by name") == true)
        #expect(refusal("file:///etc/passwd") != nil)
        #expect(refusal("gopher://8.8.8.8/") != nil)
        // Trusted by name (any case, a trailing dot): not resolved, not rewritten.
        for trusted in ["http://127.0.0.1:8082/vast", "http://localhost:9/x", "https://ads.internal/x", "http://ADS.INTERNAL./x"] {
            guard case .success(let checked) = policy.check(URL(string: trusted)!) else {
                Issue.record("\(trusted) refused")
                continue
            }
            #expect(checked.connect.absoluteString == trusted && checked.host == nil)
        }
        // No lookup needed for a literal or a trusted name; a name is left to the resolver.
        #expect(policy.checkWithoutResolving(URL(string: "http://8.8.8.8/x")!) != nil)
        #expect(policy.checkWithoutResolving(URL(string: "http://ads.internal/x")!) != nil)
        #expect(policy.checkWithoutResolving(URL(string: "http://tracker.example/x")!) == nil)
    }

    @Test("a name that resolves to a private address is refused after resolution; an unresolvable one says so")
    func resolvedNames() throws {
        let policy = AddressPolicy()
        // localhost resolves to loopback on every machine.
        guard case .failure(let refusal) = policy.check(URL(string: "http://localhost:8080/vast")!) else {
            Issue.record("localhost passed")
            return
        }
        #expect(refusal.reason.contains("not a public address"), "\(refusal)")
        guard case .failure(let missing) = policy.check(URL(string: "http://no-such-host.invalid/x")!) else {
            Issue.record("an .invalid name passed")
            return
        }
        #expect(missing.reason.contains("does not resolve"), "\(missing)")
    }
}

@Suite("Redaction")
struct RedactionTests {
    @Test(
        "userinfo and credential-looking query values are written ***; everything else as it was",
        arguments: [
            ("https://user:pass@cdn.example/a.mp4", "https://***@cdn.example/a.mp4"),
            ("https://user@cdn.example/a.mp4?x=1", "https://***@cdn.example/a.mp4?x=1"),
            (
                "https://d.cloudfront.net/a.mp4?Expires=1&Signature=abc&Key-Pair-Id=K1",
                "https://d.cloudfront.net/a.mp4?Expires=1&Signature=***&Key-Pair-Id=***"
            ),
            (
                "https://b.s3.amazonaws.com/a.mp4?X-Amz-Credential=AK%2F1&X-Amz-Signature=ff&X-Amz-Date=2026",
                "https://b.s3.amazonaws.com/a.mp4?X-Amz-Credential=***&X-Amz-Signature=***&X-Amz-Date=2026"
            ),
            ("https://a.blob.core.windows.net/c/a.mp4?sv=1&sig=xyz", "https://a.blob.core.windows.net/c/a.mp4?sv=1&sig=***"),
            ("https://ads.example/vast?api_key=s3cret&pos=pre&token=", "https://ads.example/vast?api_key=***&pos=pre&token="),
            ("https://e.example/v.m3u8?hdnts=exp%3D1~hmac%3Dab", "https://e.example/v.m3u8?hdnts=***"),
            ("https://plain.example/a.mp4?w=1280", "https://plain.example/a.mp4?w=1280"),
            ("not a url at all", "not a url at all"),
        ]
    )
    func redacted(_ url: String, _ expected: String) {
        #expect(Redaction.url(url) == expected)
    }
}

@Suite("Blocking work")
struct BlockingWorkTests {
    @Test("one origin holds at most its places; another origin's work goes on meanwhile; past the waiting limit a load is refused")
    func perOrigin() async throws {
        let work = BlockingWork(perOrigin: 2, maxWaiting: 2)
        let release = DispatchSemaphore(value: 0)
        let running = Counter()
        // Two slow loads hold the slow origin's places; two more wait; a fifth is refused.
        let slow = (0..<4).map { _ in
            Task {
                try await work.run(origin: "slow") {
                    running.add(1)
                    release.wait()
                    return 1
                }
            }
        }
        while running.value < 2 { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(100))
        #expect(running.value == 2, "only the origin's places run")
        await #expect(throws: BlockingWork.Busy.self) { try await work.run(origin: "slow") { 0 } }
        // Another origin is not held up.
        let other = try await work.run(origin: "fast") { 7 }
        #expect(other == 7)
        for _ in 0..<4 { release.signal() }
        var total = 0
        for task in slow { total += try await task.value }
        #expect(total == 4 && running.value == 4)
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add(_ amount: Int) { self.lock.withLock { self.count += amount } }
        var value: Int { self.lock.withLock { self.count } }
    }
}

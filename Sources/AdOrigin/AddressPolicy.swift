import Foundation
import Synchronization

/// Which addresses a URL an ad decision server sent may reach (docs/reliability.md "Ad server
/// faults"). A VAST answer names URLs the replica then fetches on its own — wrappers, creatives'
/// playlists and files, error and tracking pixels — so without a check, any answer could make a
/// replica read its own loopback, the private network behind it, or a cloud metadata service
/// (`169.254.169.254`). A URL passes when its host is one the campaign trusts by name
/// (``trustedHosts``: the test ad server on loopback needs that), or when every address it
/// resolves to is public.
///
/// The check is made after DNS resolution, on every hop (redirects are followed by
/// ``OriginClient`` one at a time, each checked), and a plain-`http` request connects to the
/// address that was checked — a name that resolves to a public address for the check and to a
/// private one for the connection (DNS rebinding) reaches nothing new. An `https` request lets
/// the HTTP client resolve again; a rebound name then meets a server that cannot show a
/// certificate for it.
public struct AddressPolicy: Sendable, Hashable {
    /// Host names and address literals (lowercased, without brackets) allowed whatever they
    /// resolve to.
    public var trustedHosts: Set<String>

    public init(trustedHosts: some Sequence<String> = []) {
        self.trustedHosts = Set(trustedHosts.map { Self.normalized($0) })
    }

    /// A URL that passed the check: where to connect, and the `Host` header to send when that
    /// is an address rather than the URL's name.
    public struct Checked: Sendable, Hashable {
        public var connect: URL
        public var host: String?
    }

    /// ``check(_:)`` when it needs no lookup — a URL that is not http(s), a trusted host, an
    /// address literal — else nil: the host's name must be resolved.
    public func checkWithoutResolving(_ url: URL) -> Result<Checked, Refusal>? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty else {
            return .failure(Refusal(url: url, reason: "it is not an http(s) URL with a host"))
        }
        let name = Self.normalized(host)
        guard self.trustedHosts.contains(name) || IPAddress(name) != nil else { return nil }
        return self.check(url)
    }

    /// What may be fetched for `url`: the URL to connect to, or why not (blocking: it may resolve
    /// the host; call it off any event loop).
    public func check(_ url: URL) -> Result<Checked, Refusal> {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", let rawHost = url.host, !rawHost.isEmpty else {
            return .failure(Refusal(url: url, reason: "it is not an http(s) URL with a host"))
        }
        let host = Self.normalized(rawHost)
        if self.trustedHosts.contains(host) { return .success(Checked(connect: url, host: nil)) }
        let addresses: [IPAddress]
        if let literal = IPAddress(host) {
            addresses = [literal]
        } else {
            switch Resolver.shared.resolve(host) {
            case .success(let resolved): addresses = resolved
            case .failure(let failure): return .failure(Refusal(url: url, reason: failure.reason))
            }
        }
        if let private_ = addresses.first(where: { !$0.isPublic }) {
            return .failure(
                Refusal(
                    url: url,
                    reason:
                        "\(host) is \(private_), not a public address; trust the host by name (ad_server: trusted_hosts:) if the campaign means it"
                )
            )
        }
        guard scheme == "http", let first = addresses.first, IPAddress(host) == nil,
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return .success(Checked(connect: url, host: nil)) }
        components.host = first.urlHost
        guard let connect = components.url else { return .success(Checked(connect: url, host: nil)) }
        return .success(Checked(connect: connect, host: url.port.map { "\(rawHost):\($0)" } ?? rawHost))
    }

    /// A URL the policy refuses, and why.
    public struct Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        public var url: URL
        public var reason: String
        public var description: String { "\(Redaction.url(self.url.absoluteString)) is not fetched: \(self.reason)" }
    }

    static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }
}

/// An IPv4 or IPv6 address, as its bytes.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// An address literal (`10.0.0.1`, `::1`, `[fe80::1]`), or nil for anything else.
    public init?(_ text: String) {
        let text = AddressPolicy.normalized(text)
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            self.bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }

    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = self.bytes.count == 4 ? AF_INET : AF_INET6
        let written = self.bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        guard written != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// How a URL writes it as its host.
    var urlHost: String { self.bytes.count == 4 ? self.description : "[\(self.description)]" }

    /// Whether it is a globally reachable unicast address: not loopback, private (RFC 1918, RFC
    /// 4193), link-local (the metadata services at 169.254.169.254 and fd00:ec2::254), shared
    /// (RFC 6598), multicast, reserved, documentation or unspecified (the IANA special-purpose
    /// registries). An IPv4 address inside IPv6 (mapped, NAT64, 6to4) is judged as the IPv4 one.
    public var isPublic: Bool {
        let b = self.bytes
        if b.count == 4 { return Self.isPublicV4(b) }
        // ::ffff:a.b.c.d (mapped) and 64:ff9b::/96 (NAT64) are the IPv4 address; the rest of
        // ::/96 (unspecified, loopback, the deprecated compatible form) is not public.
        if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xff && b[11] == 0xff { return Self.isPublicV4(Array(b[12..<16])) }
        if b[0..<12].allSatisfy({ $0 == 0 }) { return false }
        if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && b[4..<12].allSatisfy({ $0 == 0 }) {
            return Self.isPublicV4(Array(b[12..<16]))
        }
        // 2002::/16 (6to4) carries an IPv4 address in its next four bytes.
        if b[0] == 0x20 && b[1] == 0x02 { return Self.isPublicV4(Array(b[2..<6])) }
        // Only 2000::/3 is global unicast; inside it, the documentation (2001:db8::/32), ORCHID and
        // benchmarking ranges and 2001::/23 (IETF protocol assignments, Teredo) are not public.
        guard b[0] & 0xe0 == 0x20 else { return false }
        if b[0] == 0x20 && b[1] == 0x01 {
            if b[2] == 0x0d && b[3] == 0xb8 { return false }
            if b[2] < 0x02 { return false }
        }
        if b[0] == 0x3f && b[1] == 0xff && b[2] & 0xf0 == 0 { return false }  // 3fff::/20, documentation
        return true
    }

    private static func isPublicV4(_ b: [UInt8]) -> Bool {
        switch (b[0], b[1]) {
        case (0, _), (10, _), (127, _): return false  // this network, private, loopback
        case (100, 64...127): return false  // shared address space (RFC 6598)
        case (169, 254): return false  // link-local: cloud metadata services
        case (172, 16...31), (192, 168): return false  // private
        case (192, 0) where b[2] == 0 || b[2] == 2: return false  // IETF assignments, TEST-NET-1
        case (198, 18...19): return false  // benchmarking
        case (198, 51) where b[2] == 100, (203, 0) where b[2] == 113: return false  // TEST-NET-2, -3
        case (224...255, _): return false  // multicast, reserved, broadcast
        default: return true
        }
    }
}

/// Host names resolved (getaddrinfo), each answer kept ``lifetime`` so a burst of tracking
/// requests to one host costs one lookup.
final class Resolver: Sendable {
    static let shared = Resolver()

    struct Failure: Error, Hashable {
        var reason: String
    }

    private let answers = Mutex([String: (result: Result<[IPAddress], Resolver.Failure>, at: ContinuousClock.Instant)]())
    static let lifetime = Duration.seconds(30)
    static let capacity = 4_096

    func resolve(_ host: String) -> Result<[IPAddress], Resolver.Failure> {
        let now = ContinuousClock.now
        if let known = self.answers.withLock({ $0[host] }), now - known.at < Self.lifetime { return known.result }
        let result = Self.lookUp(host)
        self.answers.withLock { answers in
            if answers.count >= Self.capacity { answers.removeAll(keepingCapacity: true) }
            answers[host] = (result, now)
        }
        return result
    }

    private static func lookUp(_ host: String) -> Result<[IPAddress], Resolver.Failure> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let list else {
            return .failure(Failure(reason: "\(host) does not resolve (\(String(cString: gai_strerror(status))))"))
        }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            if let address = current.pointee.ai_addr {
                switch Int32(address.pointee.sa_family) {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                        var raw = v4.pointee.sin_addr
                        if let ip = IPAddress(bytes: withUnsafeBytes(of: &raw) { Array($0) }) { addresses.append(ip) }
                    }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                        var raw = v6.pointee.sin6_addr
                        if let ip = IPAddress(bytes: withUnsafeBytes(of: &raw) { Array($0) }) { addresses.append(ip) }
                    }
                default:
                    break
                }
            }
            entry = current.pointee.ai_next
        }
        guard !addresses.isEmpty else { return .failure(Failure(reason: "\(host) resolves to no address")) }
        return .success(addresses)
    }
}

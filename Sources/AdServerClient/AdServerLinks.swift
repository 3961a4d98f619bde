import AdCampaign
import AdOrigin
import Foundation

extension Campaign {
    /// Where what its ad servers' answers name may be fetched from (docs/reliability.md "Ad
    /// server faults"): public addresses, the hosts its ad servers trust by name
    /// (`trusted_hosts:`), and the hosts of the tracking URLs the campaign file names itself (an
    /// operator's own tracker may be internal). One policy per campaign: a creative, a tracker or
    /// a conditioning source is fetched long after the answer that named it, whichever server
    /// that was. Worked out from the campaign each time: keep it (``ServedCampaign`` does).
    public var adServerAddresses: AddressPolicy {
        let servers = ([self.adServer].compactMap { $0 } + self.adServers.values).flatMap(\.trustedHosts)
        let trackers = self.pools.flatMap(\.ads).flatMap { $0.tracking.values.joined() }.compactMap { URL(string: $0)?.host }
        return AddressPolicy(trustedHosts: servers + trackers)
    }
}

extension OriginSettings {
    /// These settings for a URL an ad server's answer named: checked against `addresses` (a
    /// campaign's ``Campaign/adServerAddresses``) on every hop, on connections of their own.
    public func forAdServerLinks(_ addresses: AddressPolicy, pool: OriginPool = .adServerLinks) -> OriginSettings {
        var settings = self
        settings.addresses = addresses
        settings.pool = pool
        return settings
    }
}

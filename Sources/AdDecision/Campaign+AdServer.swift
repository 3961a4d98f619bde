import AdCampaign

extension Campaign {
    /// The ad decision server a viewer's breaks ask: the one the last of the viewer's matching
    /// rules names (`then: { ad_server: NAME }`; `none`: the pools alone), else `ad_server:`.
    public func adServer(for context: ViewerContext) -> AdServerSettings? {
        self.adServer(applying: self.rules.filter { $0.condition.holds(for: context) })
    }

    /// ``adServer(for:)`` from the rules that hold already.
    func adServer(applying rules: [Rule]) -> AdServerSettings? {
        guard let name = rules.last(where: { $0.action.adServer != nil })?.action.adServer else { return self.adServer }
        return name == "none" ? nil : self.adServers[name]
    }

    /// Whether any viewer's breaks may ask an ad decision server.
    public var asksAdServers: Bool { self.adServer != nil || !self.adServers.isEmpty }
}

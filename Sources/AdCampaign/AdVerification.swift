/// An ad's verification script (VAST 4.3 §3.16 `<Verification>`): what a player's Open
/// Measurement SDK loads to let a third party verify the ad was viewable. AdStitch does not run it;
/// client-side reporting passes it to the player (docs/campaign-format.md "Measurement").
public struct AdVerification: Sendable, Hashable, Codable {
    /// `vendor`: who verifies (`company.com-omid`), as VAST 4.3 asks it to be named.
    public var vendor: String?
    public var resources: [Resource]
    /// `<VerificationParameters>`: opaque to everyone but the script.
    public var parameters: String?
    /// `<TrackingEvents>` by event (`verificationNotExecuted`, with its `[REASON]` macro).
    public var tracking: [String: [String]]

    /// A `<JavaScriptResource>` or `<ExecutableResource>`.
    public struct Resource: Sendable, Hashable, Codable {
        /// `javascript` or `executable`.
        public var kind: String
        public var uri: String
        /// `apiFramework` (`omid`).
        public var apiFramework: String?
        /// `type` of an executable resource (its MIME type).
        public var type: String?
        /// `browserOptional` of a JavaScript resource: whether it runs outside a browser too.
        public var browserOptional: Bool?

        public init(kind: String, uri: String, apiFramework: String? = nil, type: String? = nil, browserOptional: Bool? = nil) {
            self.kind = kind
            self.uri = uri
            self.apiFramework = apiFramework
            self.type = type
            self.browserOptional = browserOptional
        }
    }

    public init(vendor: String?, resources: [Resource], parameters: String?, tracking: [String: [String]]) {
        self.vendor = vendor
        self.resources = resources
        self.parameters = parameters
        self.tracking = tracking
    }
}

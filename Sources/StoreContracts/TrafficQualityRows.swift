/// The installs a fraud rule said something of in a period, grouped as stored (docs/traffic-quality.md).
public struct TrafficQualityRows: Sendable, Equatable {
    /// One group: the reasons and flags as stored, the refused (or flagged) click's source and
    /// campaign, and how many installs.
    public struct Group: Sendable, Equatable {
        public var rejectedReasons: [String]
        public var flags: [String]
        public var source: String?
        public var campaign: String?
        public var installs: Int

        public init(rejectedReasons: [String], flags: [String], source: String?, campaign: String?, installs: Int) {
            self.rejectedReasons = rejectedReasons
            self.flags = flags
            self.source = source
            self.campaign = campaign
            self.installs = installs
        }
    }

    /// New live installs in the period, whatever happened to them.
    public var installs: Int
    public var groups: [Group]

    public init(installs: Int, groups: [Group]) {
        self.installs = installs
        self.groups = groups
    }
}

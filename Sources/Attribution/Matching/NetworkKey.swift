/// What probabilistic matching compares of an IP address: IPv4 exactly, IPv6 by its /64 (a phone
/// or household keeps its /64 while the interface identifier rotates).
public enum NetworkKey {
    /// - Parameter addressBytes: 4 (IPv4) or 16 (IPv6) bytes in network order.
    public static func key(addressBytes bytes: [UInt8]) -> String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        guard bytes.count == 16 else { return "" }
        // IPv4-mapped IPv6 (::ffff:a.b.c.d) is the IPv4 address.
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return bytes[12..<16].map(String.init).joined(separator: ".")
        }
        let groups = stride(from: 0, to: 8, by: 2).map { index in
            String(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]), radix: 16)
        }
        return groups.joined(separator: ":") + "::/64"
    }

    /// The key of Private Relay taps from one region: many strangers share a relay's addresses,
    /// so the address says only where the tap came from.
    public static func relay(region: String) -> String { relayPrefix + region }

    public static func isRelay(_ key: String) -> Bool { key.hasPrefix(relayPrefix) }

    static let relayPrefix = "relay:"
}

/// Tier 0: the same install reported again (matching.md). Linkrunner sends a stable
/// `install_instance_id`; LinkForty's SDK reports on every app start, so a `deviceId`, or the same
/// fingerprint within `sameInstallSeconds` of the install's last report, is the same install.
public struct InstallIdentity: Sendable, Equatable {
    public var installInstanceID: String?
    public var deviceID: String?
    /// Digest of IP key, user agent, timezone, language, screen and platform version.
    public var fingerprint: String?
    /// The device's IDFV, by which an install another SDK family reported is this one: one app on
    /// one device is one install whichever SDK asks. Two install instance ids stay two installs.
    public var idfv: String?

    public init(installInstanceID: String? = nil, deviceID: String? = nil, fingerprint: String? = nil, idfv: String? = nil) {
        self.installInstanceID = installInstanceID
        self.deviceID = deviceID
        self.fingerprint = fingerprint
        self.idfv = idfv
    }

    /// The signals whose exact repetition identifies a LinkForty device, as one string to hash.
    public static func fingerprintSource(
        ipKey: String?, userAgent: String?, timezone: String?, language: String?,
        screen: ScreenSize?, platformVersion: String?
    ) -> String {
        [
            ipKey ?? "", userAgent ?? "", timezone ?? "", language ?? "", screen.map { "\($0.width)x\($0.height)" } ?? "",
            platformVersion ?? "",
        ].joined(separator: "\u{1F}")
    }
}

/// An install already stored, as tier 0 sees it.
public struct KnownInstall: Sendable, Equatable {
    public var installID: String
    public var installInstanceID: String?
    public var deviceID: String?
    public var fingerprint: String?
    public var idfv: String?
    public var createdAt: Timestamp
    /// When the install last reported (kept at an hour's resolution by the store).
    public var lastSeenAt: Timestamp

    public init(
        installID: String, installInstanceID: String?, deviceID: String?, fingerprint: String?, idfv: String? = nil,
        createdAt: Timestamp, lastSeenAt: Timestamp? = nil
    ) {
        self.installID = installID
        self.installInstanceID = installInstanceID
        self.deviceID = deviceID
        self.fingerprint = fingerprint
        self.idfv = idfv
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt ?? createdAt
    }
}

extension MatchingEngine {
    /// How stale a stored `lastSeenAt` may be: the store moves it at most once an hour, because
    /// re-reports are most of the install traffic and each move rewrites a page of the installs table.
    public static let lastSeenResolutionSeconds: Int64 = 3_600

    /// The stored install this report repeats, if any: same instance id, else same device id, else
    /// the same IDFV (an install without an instance id, when the report has one), else the same
    /// fingerprint whose install reported within `policy.sameInstallSeconds` (plus the
    /// hour of resolution `lastSeenAt` is kept at). The window runs from the last report, not from
    /// the first: an app that keeps launching on the same network stays one install for as long as
    /// it does (it once became a new organic install 24 h after it was first seen).
    public static func sameInstall(
        _ identity: InstallIdentity, among known: [KnownInstall], now: Timestamp,
        policy: MatchingPolicy
    ) -> KnownInstall? {
        if let instance = identity.installInstanceID, let found = known.first(where: { $0.installInstanceID == instance }) {
            return found
        }
        if let device = identity.deviceID, let found = known.first(where: { $0.deviceID == device }) { return found }
        if let idfv = identity.idfv,
            let found = known.filter({ install in
                install.idfv == idfv && (identity.installInstanceID == nil || install.installInstanceID == nil)
            }).max(by: { $0.createdAt < $1.createdAt })
        {
            return found
        }
        if let fingerprint = identity.fingerprint {
            // Two different device ids are two devices, however alike their other signals.
            return known.filter { install in
                install.fingerprint == fingerprint
                    && now.milliseconds - install.lastSeenAt.milliseconds < (policy.sameInstallSeconds + Self.lastSeenResolutionSeconds) * 1000
                    && (install.deviceID == nil || identity.deviceID == nil || install.deviceID == identity.deviceID)
            }.max { $0.createdAt < $1.createdAt }
        }
        return nil
    }
}

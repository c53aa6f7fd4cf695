import Foundation

/// What an install tells the matcher, normalised (matching.md, "Inputs").
public struct InstallSignals: Sendable, Equatable {
    public var time: Timestamp
    public var ipKey: String?
    public var platform: UserAgentInfo.Platform?
    public var osVersion: String?
    public var deviceClass: UserAgentInfo.DeviceClass?
    /// Native pixels.
    public var screen: ScreenSize?
    /// Points (CSS pixels, Android dp) of an SDK that does not send its scale (WarpLink): compared
    /// with a click's points, used only when `screen` is unknown.
    public var screenPoints: ScreenSize?
    public var timezone: String?
    /// Minutes east of UTC.
    public var utcOffsetMinutes: Int?
    public var languages: [String]
    public var idfv: String?
    public var advertisingID: String?
    /// A click id carried back by the Play Install Referrer (`click_id=<uuid>`).
    public var referrerClickID: String?
    /// A link id carried back by the Play Install Referrer (`utm_content=<link uuid>`, WarpLink).
    public var referrerLinkID: String?
    /// The Play referrer's tap and install-begin times, when the SDK sent them.
    public var playReferrer: PlayReferrerTimes? = nil
    /// The class of the install's own address (nil: an ordinary network, or no lists).
    public var addressClass: AddressClass? = nil
    /// The key of the Private Relay taps of the install's region (`NetworkKey.relay`), read
    /// besides its own network's: set for iPhones and iPads when relay lists are loaded.
    public var relayRegionKey: String? = nil

    public init(
        time: Timestamp, ipKey: String? = nil, platform: UserAgentInfo.Platform? = nil, osVersion: String? = nil,
        deviceClass: UserAgentInfo.DeviceClass? = nil, screen: ScreenSize? = nil, screenPoints: ScreenSize? = nil,
        timezone: String? = nil, utcOffsetMinutes: Int? = nil, languages: [String] = [], idfv: String? = nil,
        advertisingID: String? = nil, referrerClickID: String? = nil, referrerLinkID: String? = nil
    ) {
        self.time = time
        self.ipKey = ipKey
        self.platform = platform
        self.osVersion = osVersion
        self.deviceClass = deviceClass
        self.screen = screen
        self.screenPoints = screenPoints
        self.timezone = timezone
        self.utcOffsetMinutes = utcOffsetMinutes
        self.languages = languages
        self.idfv = idfv
        self.advertisingID = advertisingID
        self.referrerClickID = referrerClickID
        self.referrerLinkID = referrerLinkID
    }
}

/// A screen in native pixels; compared in either orientation.
public struct ScreenSize: Sendable, Equatable, Hashable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// The largest side a client may report, in points or pixels: every path that takes a screen
    /// (beacon, resolve, LinkForty install, Linkrunner device data) holds it to this.
    public static let maximumSide = 20_000.0

    /// A reported side (points or pixels) that could be a screen's: finite, 1 to `maximumSide`.
    public static func isPlausibleSide(_ value: Double) -> Bool { value.isFinite && value >= 1 && value <= maximumSide }

    /// From CSS points (or iOS points) and the pixel ratio; nil when either is missing.
    public init?(points width: Double?, _ height: Double?, scale: Double?) {
        guard let width, let height, let scale, width > 0, height > 0, scale > 0 else { return nil }
        let pixelWidth = (width * scale).rounded()
        let pixelHeight = (height * scale).rounded()
        // Int(_:) traps beyond its range; no screen has a million pixels on a side.
        guard pixelWidth <= 1_000_000, pixelHeight <= 1_000_000 else { return nil }
        self.init(width: Int(pixelWidth), height: Int(pixelHeight))
    }

    public func matches(_ other: ScreenSize) -> Bool {
        let a = (min(width, height), max(width, height))
        let b = (min(other.width, other.height), max(other.width, other.height))
        // A pixel of tolerance for fractional device pixel ratios (2.625 × 411 = 1078.9).
        return abs(a.0 - b.0) <= 2 && abs(a.1 - b.1) <= 2
    }
}

/// A click as the matcher sees it.
public struct CandidateClick: Sendable, Equatable {
    public var clickID: String
    public var linkID: String?
    public var createdAt: Timestamp
    public var platform: UserAgentInfo.Platform?
    public var osVersion: String?
    public var deviceClass: UserAgentInfo.DeviceClass?
    public var screen: ScreenSize?
    /// The screen as the click's page saw it, in points (CSS pixels), whatever its pixel ratio.
    public var screenPoints: ScreenSize?
    public var timezone: String?
    public var utcOffsetMinutes: Int?
    public var languages: [String]
    public var userAgent: String?
    /// The click's network (`NetworkKey`), when the source reads it.
    public var ipKey: String?
    /// The link's attribution window in hours (already resolved through template and project).
    public var windowHours: Int
    /// Recorded by an app that is already installed (WarpLink's and LinkForty's resolve,
    /// Linkrunner's handle-deeplink): it can explain that device's own install (by its ids), never
    /// another device's.
    public var isAppOpen: Bool
    /// The device's identifiers, when the click came through the app.
    public var idfv: String?
    public var advertisingID: String?
    /// The class of the click's address (nil: ordinary).
    public var addressClass: AddressClass? = nil

    /// Came through Private Relay: its key is its region's, not an address.
    public var isRelayed: Bool { ipKey.map(NetworkKey.isRelay) ?? false }

    public init(
        clickID: String, linkID: String?, createdAt: Timestamp, platform: UserAgentInfo.Platform? = nil,
        osVersion: String? = nil, deviceClass: UserAgentInfo.DeviceClass? = nil, screen: ScreenSize? = nil,
        screenPoints: ScreenSize? = nil, timezone: String? = nil, utcOffsetMinutes: Int? = nil, languages: [String] = [],
        userAgent: String? = nil, ipKey: String? = nil, windowHours: Int = 168, isAppOpen: Bool = false,
        idfv: String? = nil, advertisingID: String? = nil, addressClass: AddressClass? = nil
    ) {
        self.addressClass = addressClass
        self.clickID = clickID
        self.linkID = linkID
        self.createdAt = createdAt
        self.platform = platform
        self.osVersion = osVersion
        self.deviceClass = deviceClass
        self.screen = screen
        self.screenPoints = screenPoints
        self.timezone = timezone
        self.utcOffsetMinutes = utcOffsetMinutes
        self.languages = languages
        self.userAgent = userAgent
        self.ipKey = ipKey
        self.windowHours = windowHours
        self.isAppOpen = isAppOpen
        self.idfv = idfv
        self.advertisingID = advertisingID
    }
}

/// Comparisons on normalised values (matching.md: major.minor, primary language subtag, …).
public enum Normalize {
    /// `17.4.1` / `17_4` / `17` → `17.4` / `17.4` / `17.0`.
    public static func majorMinor(_ version: String?) -> String? {
        guard let version else { return nil }
        let parts = version.split(whereSeparator: { $0 == "." || $0 == "_" }).prefix(2).map { String($0) }
        guard let major = parts.first, Int(major) != nil else { return nil }
        let minor = parts.count > 1 && Int(parts[1]) != nil ? parts[1] : "0"
        return "\(Int(major)!).\(Int(minor)!)"
    }

    /// `en-GB`, `en_US@rg=gbzzzz`, `EN` → `en`.
    public static func primaryLanguage(_ tag: String) -> String? {
        let primary = tag.split(whereSeparator: { $0 == "-" || $0 == "_" || $0 == "@" }).first.map { $0.lowercased() }
        guard let primary, (2...3).contains(primary.count), primary.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
        return primary
    }

    public static func primaryLanguages(_ tags: [String]) -> Set<String> { Set(tags.compactMap(primaryLanguage)) }

    /// Minutes east of UTC of an IANA zone at `time`.
    public static func utcOffset(of timezone: String, at time: Timestamp) -> Int? {
        TimeZone(identifier: timezone).map { $0.secondsFromGMT(for: time.date) / 60 }
    }

    /// An Apple model identifier → device class (`iPhone14,5` → iphone, `iPad13,1` → ipad).
    public static func deviceClass(model: String?, platform: UserAgentInfo.Platform?) -> UserAgentInfo.DeviceClass? {
        guard let model = model?.lowercased() else { return nil }
        if model.hasPrefix("iphone") || model.hasPrefix("ipod") { return .iphone }
        if model.hasPrefix("ipad") { return .ipad }
        if model.contains("tablet") || model.contains("tab ") { return .tablet }
        return platform == .android ? .phone : nil
    }
}

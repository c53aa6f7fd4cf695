/// Which of a platform's events each of our facts becomes. A connection's own mapping (our event
/// name → theirs, or nil: never sent) comes first; then the defaults below, which need no editing:
/// the install is the platform's install event, a payment or an event with revenue its purchase,
/// sign-ups and a few common names their standard events, other events custom events where the
/// platform takes custom names (Snap takes only its own, so those are not sent to Snap).
public struct AdEventMapping: Sendable, Equatable {
    /// Our name → the platform's; a nil value: the fact is not sent.
    public var overrides: [String: String?]

    public init(overrides: [String: String?] = [:]) { self.overrides = overrides }

    /// What the platform's event is called, or nil when this fact is not sent to it.
    public func eventName(for conversion: AdConversion, on platform: AdPlatform) -> String? {
        let ours = conversion.kind == .install ? "install" : conversion.name
        if let override = overrides[ours] { return override }
        return Self.defaultName(for: conversion, on: platform)
    }

    /// Google's `app_event_type` values that are not `custom`.
    public static let googleStandardTypes: Set<String> = [
        "first_open", "session_start", "in_app_purchase", "view_item_list", "view_item", "view_search_results", "add_payment_info",
        "add_to_cart", "add_to_wishlist", "begin_checkout", "ecommerce_purchase", "generate_lead", "level_start", "level_end",
        "level_up", "post_score", "select_content", "share", "sign_up", "spend_virtual_currency", "tutorial_begin",
        "tutorial_complete", "unlock_achievement",
    ]

    static func defaultName(for conversion: AdConversion, on platform: AdPlatform) -> String? {
        let role: Role =
            switch conversion.kind {
            case .install: .install
            case .payment: .purchase
            case .event: Role(eventName: conversion.name, hasRevenue: conversion.revenue != nil)
            }
        switch (platform, role) {
        case (.google, .install): return "first_open"
        case (.google, .purchase): return "in_app_purchase"
        case (.google, .signUp): return "sign_up"
        case (.google, .addToCart): return "add_to_cart"
        case (.google, .custom): return conversion.name
        case (.meta, .install): return "MobileAppInstall"
        case (.meta, .purchase): return "Purchase"
        case (.meta, .signUp): return "CompleteRegistration"
        case (.meta, .addToCart): return "AddToCart"
        case (.meta, .custom): return conversion.name
        case (.tiktok, .install): return "InstallApp"
        case (.tiktok, .purchase): return "Purchase"
        case (.tiktok, .signUp): return "CompleteRegistration"
        case (.tiktok, .addToCart): return "AddToCart"
        case (.tiktok, .custom): return conversion.name
        case (.snap, .install): return "APP_INSTALL"
        case (.snap, .purchase): return "PURCHASE"
        case (.snap, .signUp): return "SIGN_UP"
        case (.snap, .addToCart): return "ADD_CART"
        case (.snap, .custom): return nil
        }
    }

    private enum Role {
        case install, purchase, signUp, addToCart, custom

        init(eventName: String, hasRevenue: Bool) {
            switch eventName.lowercased() {
            case "signup", "sign_up", "registration", "complete_registration": self = .signUp
            case "add_to_cart", "addtocart": self = .addToCart
            case "purchase", "in_app_purchase", "payment": self = .purchase
            default: self = hasRevenue ? .purchase : .custom
            }
        }
    }
}

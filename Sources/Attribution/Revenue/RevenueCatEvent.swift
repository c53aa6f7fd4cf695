public import JSON

/// A RevenueCat webhook body (`{"api_version": "1.0", "event": {…}}`) as a `StoreTransaction`:
/// purchases and renewals bring money in (`price_in_purchased_currency` in `currency`), a
/// cancellation for a refund (`cancel_reason: CUSTOMER_SUPPORT`) gives it back, everything else
/// is kept as a notification only.
public enum RevenueCatEvent {
    /// The subscriber attribute an app may set to the install id its SDK got, when RevenueCat's
    /// app user id is neither that nor the user id the app gave us.
    public static let installAttribute = "attributiond_install_id"

    static let purchases: Set<String> = ["INITIAL_PURCHASE", "RENEWAL", "NON_RENEWING_PURCHASE"]

    public static func transaction(_ body: JSONValue) -> Result<StoreTransaction, ValidationProblem> {
        guard case .object(let root) = body, case .object(let event)? = root["event"] else {
            return .failure(ValidationProblem("event", "must be an object: the body RevenueCat sends is {\"api_version\", \"event\"}"))
        }
        func text(_ key: String) -> String? {
            if case .string(let value)? = event[key], !value.isEmpty { return value }
            return nil
        }
        func number(_ key: String) -> Double? {
            if case .number(let value)? = event[key], value.isFinite { return value }
            return nil
        }
        guard let id = text("id") else { return .failure(ValidationProblem("event.id", "is required")) }
        guard let type = text("type") else { return .failure(ValidationProblem("event.type", "is required")) }
        var transaction = StoreTransaction(
            source: .revenueCat, notificationID: id, type: type, effect: .none, transactionID: text("transaction_id") ?? "",
            originalTransactionID: text("original_transaction_id"), occurredAt: number("purchased_at_ms").map { Int64($0) },
            isSandbox: text("environment") == "SANDBOX" || type == "TEST", productID: text("product_id"))
        var identifiers: [String] = []
        if case .object(let attributes)? = event["subscriber_attributes"], case .object(let install)? = attributes[installAttribute],
            case .string(let value)? = install["value"], !value.isEmpty
        {
            identifiers.append(value)
        }
        for key in ["app_user_id", "original_app_user_id"] { if let value = text(key) { identifiers.append(value) } }
        if case .array(let aliases)? = event["aliases"] {
            for case .string(let alias) in aliases where !alias.hasPrefix("$RCAnonymousID:") { identifiers.append(alias) }
        }
        transaction.accountIdentifiers = identifiers.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
        if purchases.contains(type) {
            guard !transaction.transactionID.isEmpty else { return .failure(ValidationProblem("event.transaction_id", "is required for \(type)")) }
            guard let price = number("price_in_purchased_currency") ?? number("price"), price >= 0 else {
                return .failure(ValidationProblem("event.price_in_purchased_currency", "must be a number, 0 or more"))
            }
            let currency = text("currency")?.uppercased() ?? "USD"
            guard MoneyAmount.isCurrencyCode(currency) else {
                return .failure(ValidationProblem("event.currency", "must be a three-letter ISO 4217 code such as USD"))
            }
            // The purchased currency's price is what the store took; `price` alone is in US dollars.
            transaction.amount = price
            transaction.currency = number("price_in_purchased_currency") == nil ? "USD" : currency
            transaction.effect = .purchase
        } else if type == "CANCELLATION", text("cancel_reason") == "CUSTOMER_SUPPORT" {
            guard !transaction.transactionID.isEmpty else { return .failure(ValidationProblem("event.transaction_id", "is required for a refund")) }
            transaction.effect = .refund
            transaction.occurredAt = number("event_timestamp_ms").map { Int64($0) }
        }
        return .success(transaction)
    }
}

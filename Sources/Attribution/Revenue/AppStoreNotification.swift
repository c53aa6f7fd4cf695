public import JSON

/// An App Store Server Notification V2, decoded (its JWS already verified): the notification's
/// fields, and its transaction as a `StoreTransaction`. Purchases and renewals bring the
/// transaction's `price` (thousandths of `currency`) in; refunds and revocations give it back;
/// everything else (renewal preferences, expiries, tests) is kept as a notification only.
public enum AppStoreNotification {
    public struct Decoded: Sendable, Equatable {
        public var notificationType: String
        public var subtype: String?
        public var notificationUUID: String
        public var bundleID: String?
        /// `Production`, `Sandbox`, `LocalTesting` (Xcode's StoreKit testing).
        public var environment: String?
        public var signedTransactionInfo: String?
        public var signedRenewalInfo: String?
        public var signedDate: Int64?
    }

    /// What money a notification type moves (subtypes refine only renewal preferences).
    static let purchases: Set<String> = ["SUBSCRIBED", "DID_RENEW", "ONE_TIME_CHARGE", "OFFER_REDEEMED"]
    static let refunds: Set<String> = ["REFUND", "REVOKE"]

    public static func decode(_ payload: JSONValue) -> Result<Decoded, ValidationProblem> {
        guard case .object(let root) = payload else { return .failure(ValidationProblem("signedPayload", "does not hold a JSON object")) }
        guard case .string(let type)? = root["notificationType"], !type.isEmpty else {
            return .failure(ValidationProblem("signedPayload.notificationType", "is required"))
        }
        guard case .string(let uuid)? = root["notificationUUID"], !uuid.isEmpty else {
            return .failure(ValidationProblem("signedPayload.notificationUUID", "is required"))
        }
        var data: [String: JSONValue] = [:]
        if case .object(let object)? = root["data"] { data = object }
        return .success(
            Decoded(
                notificationType: type, subtype: root["subtype"]?.text, notificationUUID: uuid, bundleID: data["bundleId"]?.text,
                environment: data["environment"]?.text, signedTransactionInfo: data["signedTransactionInfo"]?.text,
                signedRenewalInfo: data["signedRenewalInfo"]?.text, signedDate: root["signedDate"]?.integer))
    }

    /// The notification with its decoded `signedTransactionInfo` (nil when it has none).
    public static func transaction(_ notification: Decoded, transaction info: JSONValue?) -> Result<StoreTransaction, ValidationProblem> {
        let type = notification.notificationType + (notification.subtype.map { "/" + $0 } ?? "")
        var transaction = StoreTransaction(
            source: .appStore, notificationID: notification.notificationUUID, type: type, effect: .none, transactionID: "",
            isSandbox: notification.environment != "Production")
        guard case .object(let fields)? = info else {
            guard !purchases.contains(notification.notificationType) && !refunds.contains(notification.notificationType) else {
                return .failure(ValidationProblem("data.signedTransactionInfo", "is required for \(notification.notificationType)"))
            }
            return .success(transaction)
        }
        guard let id = fields["transactionId"]?.text, !id.isEmpty else {
            return .failure(ValidationProblem("signedTransactionInfo.transactionId", "is required"))
        }
        transaction.transactionID = id
        transaction.originalTransactionID = fields["originalTransactionId"]?.text
        transaction.productID = fields["productId"]?.text
        transaction.occurredAt = fields["purchaseDate"]?.integer
        if let environment = fields["environment"]?.text { transaction.isSandbox = transaction.isSandbox || environment != "Production" }
        // A UUID; our install ids are written in lower case, a user id as the app wrote it.
        if let token = fields["appAccountToken"]?.text, !token.isEmpty {
            transaction.accountIdentifiers = token.lowercased() == token ? [token] : [token.lowercased(), token]
        }
        if purchases.contains(notification.notificationType) {
            guard let price = fields["price"]?.integer, price >= 0 else {
                return .failure(ValidationProblem("signedTransactionInfo.price", "must be a whole number of thousandths, 0 or more"))
            }
            guard let currency = fields["currency"]?.text, MoneyAmount.isCurrencyCode(currency) else {
                return .failure(ValidationProblem("signedTransactionInfo.currency", "must be a three-letter ISO 4217 code such as USD"))
            }
            transaction.amount = Double(price) / 1000
            transaction.currency = currency
            transaction.effect = .purchase
        } else if refunds.contains(notification.notificationType) {
            transaction.effect = .refund
            transaction.occurredAt = fields["revocationDate"]?.integer ?? transaction.occurredAt
        }
        return .success(transaction)
    }
}

extension JSONValue {
    /// A string's text; nil for anything else.
    var text: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// A whole number (a JSON number without a fraction, in Int64's range); nil otherwise.
    var integer: Int64? {
        guard case .number(let value) = self, value.isFinite, value.rounded() == value, abs(value) < 9.2e18 else { return nil }
        return Int64(value)
    }
}

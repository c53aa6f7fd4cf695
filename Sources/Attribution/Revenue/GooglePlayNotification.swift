import Foundation
public import JSON

/// A Google Play Real-time Developer Notification as Pub/Sub pushes it (`{"message": {"data":
/// base64 JSON, "messageId"}, "subscription"}`), decoded: which purchase it is about, and what a
/// lookup of that purchase (the Android Publisher API) makes of it.
public enum GooglePlayNotification {
    public enum Kind: Sendable, Equatable {
        /// `subscriptionNotification`: its `notificationType` (4 purchased, 2 renewed, 1 recovered,
        /// 12 revoked, …) and the subscription's product id.
        case subscription(type: Int, subscriptionID: String)
        /// `oneTimeProductNotification`: 1 purchased, 2 canceled.
        case oneTimeProduct(type: Int, sku: String)
        /// `voidedPurchaseNotification`: the order refunded or charged back.
        case voided(orderID: String)
        case test

        /// A subscription revoked: its order is taken back (its id comes from the purchase).
        public var isRevocation: Bool {
            if case .subscription(let type, _) = self { return GooglePlayNotification.revokingSubscriptionTypes.contains(type) }
            return false
        }
    }

    public struct Decoded: Sendable, Equatable {
        public var messageID: String
        public var packageName: String
        public var eventTime: Int64?
        public var purchaseToken: String
        public var kind: Kind

        /// Whether a lookup of the purchase is needed to know its money.
        public var bringsMoney: Bool {
            switch kind {
            case .subscription(let type, _): GooglePlayNotification.chargingSubscriptionTypes.contains(type)
            case .oneTimeProduct(let type, _): type == 1
            case .voided, .test: false
            }
        }
    }

    /// Subscription notifications that mean a charge: purchased, renewed, recovered from hold.
    public static let chargingSubscriptionTypes: Set<Int> = [4, 2, 1]
    /// Subscription notifications that take the purchase back: revoked.
    public static let revokingSubscriptionTypes: Set<Int> = [12]

    public static func decode(_ body: JSONValue) -> Result<Decoded, ValidationProblem> {
        guard case .object(let root) = body, case .object(let message)? = root["message"] else {
            return .failure(ValidationProblem("message", "must be an object: the body Pub/Sub pushes is {\"message\", \"subscription\"}"))
        }
        guard let data = message["data"]?.text, let bytes = Data(base64Encoded: data),
            case .object(let notification)? = try? JSONDecoder().decode(JSONValue.self, from: bytes)
        else { return .failure(ValidationProblem("message.data", "must be base64 of the notification's JSON object")) }
        guard let package = notification["packageName"]?.text, !package.isEmpty else {
            return .failure(ValidationProblem("message.data.packageName", "is required"))
        }
        let messageID = message["messageId"]?.text ?? message["message_id"]?.text ?? ""
        guard !messageID.isEmpty else { return .failure(ValidationProblem("message.messageId", "is required")) }
        // Pub/Sub's JSON writes 64-bit numbers as strings.
        let eventTime = notification["eventTimeMillis"]?.text.flatMap { Int64($0) } ?? notification["eventTimeMillis"]?.integer
        func token(_ object: [String: JSONValue], _ path: String) -> Result<String, ValidationProblem> {
            guard let token = object["purchaseToken"]?.text, !token.isEmpty else {
                return .failure(ValidationProblem("message.data.\(path).purchaseToken", "is required"))
            }
            return .success(token)
        }
        var decoded = Decoded(messageID: messageID, packageName: package, eventTime: eventTime, purchaseToken: "", kind: .test)
        if case .object(let subscription)? = notification["subscriptionNotification"] {
            guard let type = subscription["notificationType"]?.integer, let id = subscription["subscriptionId"]?.text else {
                return .failure(ValidationProblem("message.data.subscriptionNotification", "needs notificationType and subscriptionId"))
            }
            switch token(subscription, "subscriptionNotification") {
            case .failure(let problem): return .failure(problem)
            case .success(let value): decoded.purchaseToken = value
            }
            decoded.kind = .subscription(type: Int(type), subscriptionID: id)
        } else if case .object(let product)? = notification["oneTimeProductNotification"] {
            guard let type = product["notificationType"]?.integer, let sku = product["sku"]?.text else {
                return .failure(ValidationProblem("message.data.oneTimeProductNotification", "needs notificationType and sku"))
            }
            switch token(product, "oneTimeProductNotification") {
            case .failure(let problem): return .failure(problem)
            case .success(let value): decoded.purchaseToken = value
            }
            decoded.kind = .oneTimeProduct(type: Int(type), sku: sku)
        } else if case .object(let voided)? = notification["voidedPurchaseNotification"] {
            guard let order = voided["orderId"]?.text, !order.isEmpty else {
                return .failure(ValidationProblem("message.data.voidedPurchaseNotification.orderId", "is required"))
            }
            decoded.purchaseToken = voided["purchaseToken"]?.text ?? ""
            decoded.kind = .voided(orderID: order)
        }
        return .success(decoded)
    }

    /// The Android Publisher API's answer for the purchase (a subscription's
    /// `purchases.subscriptions`, a product's `purchases.products` with its price from
    /// `inappproducts`) and the notification, as a `StoreTransaction`. The transaction id is the
    /// order id (`GPA.…`, a renewal's with `..n`), as Play reports it to the app.
    public static func transaction(
        _ notification: Decoded, purchase: JSONValue?, price: (micros: Int64, currency: String)? = nil
    ) -> Result<StoreTransaction, ValidationProblem> {
        let type: String
        var effect = StoreTransaction.Effect.none
        switch notification.kind {
        case .subscription(let code, _):
            type = "SUBSCRIPTION_\(code)"
            if chargingSubscriptionTypes.contains(code) { effect = .purchase }
            if revokingSubscriptionTypes.contains(code) { effect = .refund }
        case .oneTimeProduct(let code, _):
            type = "ONE_TIME_PRODUCT_\(code)"
            if code == 1 { effect = .purchase }
        case .voided(let order):
            return .success(
                StoreTransaction(
                    source: .googlePlay, notificationID: notification.messageID, type: "VOIDED", effect: .refund, transactionID: order,
                    occurredAt: notification.eventTime))
        case .test:
            return .success(
                StoreTransaction(source: .googlePlay, notificationID: notification.messageID, type: "TEST", effect: .none, transactionID: ""))
        }
        var transaction = StoreTransaction(
            source: .googlePlay, notificationID: notification.messageID, type: type, effect: effect, transactionID: "",
            occurredAt: notification.eventTime)
        guard case .object(let fields)? = purchase else { return .success(transaction) }
        transaction.transactionID = fields["orderId"]?.text ?? ""
        if let range = transaction.transactionID.range(of: "..") {
            transaction.originalTransactionID = String(transaction.transactionID[..<range.lowerBound])
        }
        // `purchaseType` 0 is a license tester's purchase.
        transaction.isSandbox = fields["purchaseType"]?.integer == 0
        transaction.accountIdentifiers = [fields["obfuscatedExternalAccountId"]?.text, fields["obfuscatedExternalProfileId"]?.text]
            .compactMap { $0 }.filter { !$0.isEmpty }
        if let started = fields["purchaseTimeMillis"]?.text.flatMap({ Int64($0) }) ?? fields["startTimeMillis"]?.text.flatMap({ Int64($0) }),
            case .oneTimeProduct = notification.kind
        {
            transaction.occurredAt = started
        }
        guard effect == .purchase else { return .success(transaction) }
        guard !transaction.transactionID.isEmpty else { return .failure(ValidationProblem("orderId", "the purchase has none")) }
        let micros = fields["priceAmountMicros"]?.text.flatMap { Int64($0) } ?? price?.micros
        let currency = fields["priceCurrencyCode"]?.text ?? price?.currency
        guard let micros, micros >= 0, let currency, MoneyAmount.isCurrencyCode(currency) else {
            return .failure(ValidationProblem("priceAmountMicros", "the purchase has no price in a currency"))
        }
        transaction.amount = Double(micros) / 1_000_000
        transaction.currency = currency
        return .success(transaction)
    }
}

import Attribution
import Foundation
import JSON
import Testing

/// Apple's example notification and transaction (the decoded payloads of the App Store Server
/// Library's documentation and tests) read field by field.
@Suite struct AppStoreNotificationDecodingTests {
    static let notification = """
        {"notificationType": "SUBSCRIBED", "subtype": "INITIAL_BUY", "notificationUUID": "002e14d5-51f5-4503-b5a8-c3a1af68eb20",
         "data": {"environment": "LocalTesting", "appAppleId": 41234, "bundleId": "com.example", "bundleVersion": "1.2.3",
                  "signedTransactionInfo": "signed_transaction_info_value", "signedRenewalInfo": "signed_renewal_info_value", "status": 1},
         "version": "2.0", "signedDate": 1698148900000}
        """
    static let transaction = """
        {"transactionId": "23456", "originalTransactionId": "12345", "webOrderLineItemId": "34343", "bundleId": "com.example",
         "productId": "com.example.product", "subscriptionGroupIdentifier": "55555", "purchaseDate": 1698148900000,
         "originalPurchaseDate": 1698148800000, "expiresDate": 1698149000000, "quantity": 1, "type": "Auto-Renewable Subscription",
         "appAccountToken": "7e3fb20b-4cdb-47cc-936d-99d65f608138", "inAppOwnershipType": "PURCHASED", "signedDate": 1698148900000,
         "revocationReason": 1, "revocationDate": 1698148950000, "isUpgraded": true, "offerType": 1, "offerIdentifier": "abc.123",
         "environment": "LocalTesting", "transactionReason": "PURCHASE", "storefront": "USA", "storefrontId": "143441", "price": 10990,
         "currency": "USD", "offerDiscountType": "PAY_AS_YOU_GO", "appTransactionId": "71134", "offerPeriod": "P1Y"}
        """

    private func json(_ text: String) throws -> JSONValue { try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) }

    @Test func applesExampleDecodesFieldByField() throws {
        let decoded = try AppStoreNotification.decode(try json(Self.notification)).get()
        #expect(decoded.notificationType == "SUBSCRIBED" && decoded.subtype == "INITIAL_BUY")
        #expect(decoded.notificationUUID == "002e14d5-51f5-4503-b5a8-c3a1af68eb20" && decoded.signedDate == 1_698_148_900_000)
        #expect(decoded.bundleID == "com.example" && decoded.environment == "LocalTesting")
        #expect(decoded.signedTransactionInfo == "signed_transaction_info_value" && decoded.signedRenewalInfo == "signed_renewal_info_value")

        let transaction = try AppStoreNotification.transaction(decoded, transaction: try json(Self.transaction)).get()
        #expect(transaction.source == .appStore && transaction.notificationID == "002e14d5-51f5-4503-b5a8-c3a1af68eb20")
        #expect(transaction.type == "SUBSCRIBED/INITIAL_BUY" && transaction.effect == .purchase)
        #expect(
            transaction.transactionID == "23456" && transaction.originalTransactionID == "12345" && transaction.productID == "com.example.product")
        #expect(transaction.amount == 10.99 && transaction.currency == "USD" && transaction.occurredAt == 1_698_148_900_000)
        #expect(transaction.accountIdentifiers == ["7e3fb20b-4cdb-47cc-936d-99d65f608138"])
        #expect(transaction.isSandbox, "Xcode's LocalTesting is not real money")
    }

    @Test func refundsGiveBackAndOtherTypesMoveNothing() throws {
        var decoded = try AppStoreNotification.decode(try json(Self.notification)).get()
        decoded.notificationType = "REFUND"
        decoded.environment = "Production"
        var info = try json(Self.transaction.replacingOccurrences(of: "LocalTesting", with: "Production"))
        let refund = try AppStoreNotification.transaction(decoded, transaction: info).get()
        #expect(refund.effect == .refund && refund.occurredAt == 1_698_148_950_000 && !refund.isSandbox)
        decoded.notificationType = "DID_CHANGE_RENEWAL_STATUS"
        #expect(try AppStoreNotification.transaction(decoded, transaction: info).get().effect == StoreTransaction.Effect.none)
        decoded.notificationType = "DID_RENEW"
        info = try json(Self.transaction.replacingOccurrences(of: #""currency": "USD""#, with: #""currency": "dollars""#))
        #expect(throws: ValidationProblem.self) { try AppStoreNotification.transaction(decoded, transaction: info).get() }
        #expect(throws: ValidationProblem.self) { try AppStoreNotification.transaction(decoded, transaction: nil).get() }
        #expect(throws: ValidationProblem.self) { try AppStoreNotification.decode(.object([:])).get() }
    }
}

import Foundation
import FoundationNetworking
import StoreKit

// Drives every call of the two seed Linkrunner clients against the server named by SEED_BASE_URL,
// in the order their documentation gives, and prints one JSON line per call (its response, or
// its error), then the conversion values StoreKit was told to apply. scripts/seed-clients/run
// builds this with the seed code and checks the lines and the stored rows.

func emit(_ step: String, _ result: [String: Any]) {
    let line: [String: Any] = ["step": step, "response": result]
    let data = try! JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
}

func call(_ step: String, _ body: () async throws -> [String: Any]) async {
    do {
        emit(step, try await body())
    } catch {
        emit(step, ["client_error": "\(error)"])
    }
}

let environment = ProcessInfo.processInfo.environment
let link = environment["SEED_LINK_URL"] ?? ""

// The full client, as its documentation's steps 3 to 5 and "Other endpoints" use it.
let client = LinkrunnerClient.shared
client.configure(token: environment["SEED_TOKEN"]!)
await call("init") { try await client.initialize() }
var polls = 0
for _ in 0..<5 {
    polls += 1
    let response = (try? await client.attributionData()) ?? [:]
    if let data = response["data"] as? [String: Any], data["campaign_data"] is [String: Any] {
        emit("attribution-data", response)
        break
    }
    try? await Task.sleep(nanoseconds: 2_000_000_000)
}
emit("attribution-polls", ["count": polls])
await call("signup") { try await client.signup(userData: ["id": "user_123", "email": "user@example.com", "name": "John Doe"]) }
await call("set-user-data") { try await client.setUserData(["id": "user_123", "phone": "9876543210"]) }
await call("capture-event") { try await client.trackEvent("purchase_initiated", data: ["product_id": "12345", "amount": 99.99]) }
await call("capture-payment") {
    try await client.capturePayment(amount: 99.99, userId: "user_123", paymentId: "payment_123", type: "FIRST_PAYMENT")
}
await call("capture-payment-retry") {
    try await client.capturePayment(amount: 99.99, userId: "user_123", paymentId: "payment_123", type: "FIRST_PAYMENT")
}
await call("remove-captured-payment") { try await client.removePayment(userId: "user_123", paymentId: "payment_123") }
await call("update-push-token") { try await client.setPushToken("apns-token-abc") }
await call("integrations") { try await client.setIntegrationData(clevertapId: "ct-123") }
await call("handle-deeplink") { try await client.handleDeeplink(link) }

// The minimal client: a second install (its own install id), the calls of its "Using it".
await call("minimal-init") { try await LinkrunnerMinimal.initialize() }
await call("minimal-attribution-data") { try await LinkrunnerMinimal.attribution() }
await call("minimal-signup") { try await LinkrunnerMinimal.signup(userId: "user_456") }
await call("minimal-capture-event") { try await LinkrunnerMinimal.trackEvent("purchase_initiated", data: ["amount": 99.99]) }
await call("minimal-capture-payment") { try await LinkrunnerMinimal.capturePayment(userId: "user_456", amount: 19.99) }

emit("skan", ["updates": SKAdNetwork.updates.map { ["fine": $0.fine, "coarse": $0.coarse ?? NSNull(), "lock": $0.lockWindow] as [String: Any] }])

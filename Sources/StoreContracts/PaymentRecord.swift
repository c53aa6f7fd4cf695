/// A captured payment, stored once per `paymentID`.
public struct PaymentRecord: Sendable {
    public var paymentID: String
    public var userID: String
    public var amount: Double
    public var currency: String
    public var type: String
    public var status: String
    public var data: String?

    public init(paymentID: String, userID: String, amount: Double, currency: String, type: String, status: String, data: String?) {
        self.paymentID = paymentID
        self.userID = userID
        self.amount = amount
        self.currency = currency
        self.type = type
        self.status = status
        self.data = data
    }
}

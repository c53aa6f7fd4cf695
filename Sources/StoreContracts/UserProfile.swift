/// A user linked to an install (signup/login, set-user-data).
public struct UserProfile: Sendable {
    public var id: String
    public var name: String?
    public var email: String?
    public var phone: String?
    /// The other keys of `user_data`, as JSON text.
    public var attributes: String?

    public init(id: String, name: String? = nil, email: String? = nil, phone: String? = nil, attributes: String? = nil) {
        self.id = id
        self.name = name
        self.email = email
        self.phone = phone
        self.attributes = attributes
    }
}

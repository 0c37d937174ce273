/// `POST /device/1/{container}/{environment}/app-passwords/create` request: a password for one CalDAV client.
public struct CreateAppPasswordRequest: Sendable, Hashable, Codable {
    /// What the password is for (`phone`, `thunderbird`): it is listed and revoked as a device of that name.
    public var label: String

    /// Asks for a password labelled `label`.
    public init(label: String) { self.label = label }
}

/// The new app password, shown once: the cloud keeps only its digest.
public struct CreateAppPasswordResponse: Sendable, Hashable, Codable {
    public var label: String
    /// The password to type into the CalDAV client, with the account name as the user name.
    public var password: String
    /// The account name the client signs in with.
    public var account: String

    /// The answer for `label`.
    public init(label: String, password: String, account: String) {
        self.label = label
        self.password = password
        self.account = account
    }
}

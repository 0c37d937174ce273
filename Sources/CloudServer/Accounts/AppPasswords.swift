import CloudModel
import Foundation
import Logging

/// App passwords: what a CalDAV client (a phone's task app, Thunderbird, vdirsyncer) signs in with over HTTP Basic,
/// beside the account name.
///
/// An app password is the session token of a device named by its label: it is stored as the SHA-256 digest every
/// session token is stored as, listed by `devices/list`, ended by `devices/revoke`, and its writes are stamped with
/// that device, so every other device hears of them by push. It is 125 random bits, so a fast digest protects it as
/// well as yescrypt protects a chosen password, and a CalDAV client sends it with every request: a yescrypt check
/// each time would cost tens of milliseconds per request.
extension CloudService {
    /// `app-passwords/create`: a new app password for the caller's account, labelled `label`.
    func createAppPassword(_ request: ServiceRequest, container: String, caller: Caller) async throws -> ServiceResponse {
        let user = try caller.requireUser()
        let body = try decode(CreateAppPasswordRequest.self, from: request)
        guard !body.label.isEmpty, body.label.count <= 64, !Validation.hasControlCharacters(body.label) else {
            throw ServerError(.badRequest, "an app password's label is 1 to 64 printable characters")
        }
        let password = Self.newAppPassword()
        // Not a session token's digest: an app password signs CalDAV in and nothing else.
        let digest = Secrets.appPasswordDigest(password)
        let now = nowMillis
        let account = try await store.write { tx -> String in
            guard let row = try await tx.user(recordName: user) else {
                throw ServerError(.authenticationFailed, "this account no longer exists")
            }
            if try await tx.signedInDevices(user: user).contains(where: { $0.name == body.label }) {
                throw ServerError(
                    .exists, "a device or app password named '\(body.label)' is signed in; revoke it first (devices/revoke) or pick another label")
            }
            let id: String
            if let known = try await tx.device(user: user, name: body.label) {
                id = known
            } else {
                id = Secrets.randomHex(bytes: 8)
                try await tx.insertDevice(id: id, user: user, name: body.label, now: now)
            }
            try await tx.insertSession(digest: digest, user: user, deviceID: id, now: now)
            return row.account
        }
        logger.info("app password created", metadata: ["label": "\(body.label)"])
        return try .encode(CreateAppPasswordResponse(label: body.label, password: password, account: account))
    }

    /// 25 characters of a 32-letter alphabet without look-alikes (125 bits) in five groups: easy to type on a phone.
    static func newAppPassword() -> String {
        let alphabet = Array("abcdefghijkmnpqrstuvwxyz23456789")
        var generator = SystemRandomNumberGenerator()
        let letters = (0..<25).map { _ in alphabet[Int(generator.next() % 32)] }
        return stride(from: 0, to: 25, by: 5).map { String(letters[$0..<$0 + 5]) }.joined(separator: "-")
    }

    /// The caller behind an HTTP Basic header of an account name and app password; nil without such a header.
    ///
    /// Each check goes through the sign-in throttle (counted as a failure until the password proves right), so a
    /// guesser meets the budgets a sign-in meets.
    func authenticateBasic(_ header: String?, _ request: ServiceRequest) async throws -> Caller? {
        guard let header, header.count > 6, header.prefix(6).lowercased() == "basic " else { return nil }
        guard let decoded = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { throw ServerError(.authenticationFailed, "the Authorization header is not Basic base64(account:password)") }
        let account = String(text[..<colon])
        let password = String(text[text.index(after: colon)...])
        guard account.utf8.count <= 256, password.utf8.count <= Secrets.maxPasswordBytes, !password.isEmpty else {
            throw ServerError(.authenticationFailed, "wrong account name or app password")
        }
        try throttle.beginSignIn(account: account, address: request.clientAddress)
        let caller: Caller
        do {
            caller = try await authenticate(digest: Secrets.appPasswordDigest(password))
        } catch let error as ServerError where error.serverErrorCode == .authenticationFailed {
            throw ServerError(.authenticationFailed, "wrong account name or app password")
        }
        guard let user = caller.userRecordName,
            let row = try await store.readSingle({ try await $0.user(recordName: user) }), row.account == account
        else { throw ServerError(.authenticationFailed, "wrong account name or app password") }
        throttle.signInSucceeded(account: account, address: request.clientAddress)
        return caller
    }
}

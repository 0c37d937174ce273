import CloudModel
import Foundation
import Logging

extension CloudService {
    /// `accounts`: registers an account, where the cloud allows registration.
    func createAccount(_ request: ServiceRequest) async throws -> ServiceResponse {
        guard configuration.openRegistration else {
            throw ServerError(.accessDenied, "this cloud does not allow registration; ask its administrator for an account")
        }
        try throttle.beginRegistration(address: request.clientAddress)
        let body = try decode(CreateAccountRequest.self, from: request)
        try Self.validateAccount(body.account, password: body.password)
        let hash = try await hasher.hash(body.password)
        let userRecordName = "_" + Secrets.randomHex(bytes: 16)
        let now = nowMillis
        try await store.write { tx in
            if try await tx.user(account: body.account) != nil {
                throw ServerError(.exists, "the account '\(body.account)' already exists")
            }
            try await tx.insertUser(UserRow(userRecordName: userRecordName, account: body.account, passwordHash: hash), now: now)
        }
        logger.info("account created", metadata: ["account": "\(body.account)"])
        return try .encode(CreateAccountResponse(userRecordName: userRecordName), status: 201)
    }

    /// `signin`: a session for a device, which is created on its first sign-in.
    func signIn(_ request: ServiceRequest) async throws -> ServiceResponse {
        let body = try decode(SignInRequest.self, from: request)
        guard !body.deviceName.isEmpty, body.deviceName.count <= 64,
            !Validation.hasControlCharacters(body.deviceName)
        else { throw ServerError(.badRequest, "deviceName must be 1 to 64 printable characters") }
        try Self.validatePasswordLength(body.password)
        guard body.account.utf8.count <= 256 else { throw ServerError(.badRequest, "account names are at most 64 characters") }
        // Counted as a failure until the password proves right: parallel guesses cannot overrun the budgets.
        try throttle.beginSignIn(account: body.account, address: request.clientAddress)
        let user = try await store.read { try await $0.user(account: body.account) }
        // An unknown account is checked against a dummy hash: it takes as long as a wrong password.
        guard await hasher.verify(body.password, against: user?.passwordHash), let user else {
            // The name as sent is anybody's bytes: only a valid one reaches the log.
            let name = Validation.isName(body.account, maxLength: 64, extra: "._@+-") ? body.account : "(not a valid account name)"
            logger.notice("sign-in failed", metadata: ["account": "\(name)", "address": "\(request.clientAddress)"])
            throw ServerError(.authenticationFailed, "wrong account name or password")
        }
        throttle.signInSucceeded(account: body.account, address: request.clientAddress)
        let token = Secrets.randomToken()
        let digest = Secrets.tokenDigest(token)
        let now = nowMillis
        let deviceID = try await store.write { tx in
            let id: String
            if let known = try await tx.device(user: user.userRecordName, name: body.deviceName) {
                id = known
            } else {
                id = Secrets.randomHex(bytes: 8)
                try await tx.insertDevice(id: id, user: user.userRecordName, name: body.deviceName, now: now)
            }
            try await tx.insertSession(digest: digest, user: user.userRecordName, deviceID: id, now: now)
            return id
        }
        sessionsEnded(.device(deviceID))  // the session it replaced (the new one was never cached)
        return try .encode(SignInResponse(ckWebAuthToken: token, userRecordName: user.userRecordName, deviceID: deviceID))
    }

    /// `signout`: ends the session the request carries.
    func signOut(_ request: ServiceRequest) async throws -> ServiceResponse {
        guard let token = request.bearerToken ?? request.query["ckWebAuthToken"] else {
            throw ServerError(.authenticationRequired, "signing out needs the session to end")
        }
        let digest = Secrets.tokenDigest(token)
        try await store.write { try await $0.deleteSession(digest: digest) }
        sessionsEnded(.token(digest: digest))
        return try .encode(EmptyBody())
    }

    /// Refuses an account name or password the cloud does not take, in words.
    static func validateAccount(_ account: String, password: String) throws {
        guard Validation.isName(account, maxLength: 64, extra: "._@+-") else {
            throw ServerError(.badRequest, "account names are 1 to 64 letters, digits or . _ @ + -")
        }
        try validatePasswordLength(password)
        guard password.utf8.count >= Secrets.minPasswordBytes else {
            throw ServerError(.badRequest, "passwords are \(Secrets.minPasswordBytes) to \(Secrets.maxPasswordBytes) bytes; this one is \(password.utf8.count)")
        }
    }

    /// Refuses a password over the documented maximum, or one with a NUL byte (crypt(3) would cut it there).
    static func validatePasswordLength(_ password: String) throws {
        guard password.utf8.count <= Secrets.maxPasswordBytes else {
            throw ServerError(
                .badRequest, "passwords are at most \(Secrets.maxPasswordBytes) bytes (UTF-8); this one is \(password.utf8.count)")
        }
        guard !password.utf8.contains(0) else { throw ServerError(.badRequest, "passwords cannot contain a NUL character") }
    }
}

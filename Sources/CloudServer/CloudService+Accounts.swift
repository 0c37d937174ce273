import CloudModel
import Foundation
import Logging

extension CloudService {
    /// `POST /auth/1/{container}/accounts | signin | signout`.
    func account(_ request: ServiceRequest, action: String) async throws -> ServiceResponse {
        switch action {
        case "accounts":
            guard configuration.openRegistration else {
                throw ServerError(.accessDenied, "this cloud does not allow registration; ask its administrator for an account")
            }
            let body = try decode(CreateAccountRequest.self, from: request)
            try Self.validateAccount(body.account, password: body.password)
            let hash = try Secrets.hashPassword(body.password, cost: configuration.passwordHashCost)
            let userRecordName = "_" + Secrets.randomHex(bytes: 16)
            let now = nowMillis
            try await store.write { tx in
                if try tx.user(account: body.account) != nil {
                    throw ServerError(.exists, "the account '\(body.account)' already exists")
                }
                try tx.insertUser(UserRow(userRecordName: userRecordName, account: body.account, passwordHash: hash), now: now)
            }
            logger.info("account created", metadata: ["account": "\(body.account)"])
            return try .encode(CreateAccountResponse(userRecordName: userRecordName), status: 201)

        case "signin":
            let body = try decode(SignInRequest.self, from: request)
            guard !body.deviceName.isEmpty, body.deviceName.count <= 64,
                !Validation.hasControlCharacters(body.deviceName)
            else { throw ServerError(.badRequest, "deviceName must be 1 to 64 printable characters") }
            guard let user = try await store.read({ try $0.user(account: body.account) }),
                Secrets.verifyPassword(body.password, hash: user.passwordHash)
            else {
                throw ServerError(.authenticationFailed, "wrong account name or password")
            }
            let token = Secrets.randomToken()
            let digest = Secrets.tokenDigest(token)
            let now = nowMillis
            let deviceID = try await store.write { tx in
                let id = try tx.device(user: user.userRecordName, name: body.deviceName) ?? {
                    let id = Secrets.randomHex(bytes: 8)
                    try tx.insertDevice(id: id, user: user.userRecordName, name: body.deviceName, now: now)
                    return id
                }()
                try tx.insertSession(digest: digest, user: user.userRecordName, deviceID: id, now: now)
                return id
            }
            return try .encode(SignInResponse(ckWebAuthToken: token, userRecordName: user.userRecordName, deviceID: deviceID))

        case "signout":
            guard let token = request.bearerToken ?? request.query["ckWebAuthToken"] else {
                throw ServerError(.authenticationRequired, "signout needs the ckWebAuthToken to revoke")
            }
            let digest = Secrets.tokenDigest(token)
            try await store.write { try $0.deleteSession(digest: digest) }
            return try .encode(EmptyBody())

        default:
            throw RequestError.notFound(request.method, request.segments)
        }
    }

    private static func validateAccount(_ account: String, password: String) throws {
        guard Validation.isName(account, maxLength: 64, extra: "._@+-") else {
            throw ServerError(.badRequest, "account names are 1 to 64 letters, digits or . _ @ + -")
        }
        guard (8...1024).contains(password.utf8.count) else {
            throw ServerError(.badRequest, "passwords are 8 to 1024 bytes")
        }
    }

    /// `/device/1/{container}/{env}/tokens/create | tokens/register | push`.
    func device(_ request: ServiceRequest, container: String, endpoint: String, caller: Caller) async throws -> ServiceResponse {
        guard request.method == "POST" else { throw RequestError.notFound(request.method, request.segments) }
        switch endpoint {
        case "tokens/create":
            let body = try decode(CreateTokenRequest.self, from: request)
            let token = Secrets.randomHex(bytes: 32)
            let now = nowMillis
            try await store.write { try $0.insertPushToken(token, container: container, now: now) }
            let path = request.segments.prefix(4).joined(separator: "/")
            let url = "\(request.origin)/\(path)/courier/\(token)"
            return try .encode(CreateTokenResponse(apnsEnvironment: body.apnsEnvironment, apnsToken: token, webcourierURL: url))

        case "tokens/register":
            let user = try caller.requireUser()
            let body = try decode(RegisterTokenRequest.self, from: request)
            guard let deviceID = caller.deviceID else { throw ServerError(.badRequest, "no device behind this token") }
            try await store.write { tx in
                guard let row = try tx.pushToken(body.apnsToken), row.container == container else {
                    throw ServerError(.notFound, "unknown apnsToken; create one with tokens/create")
                }
                if let owner = row.userRecordName, owner != user {
                    throw ServerError(.accessDenied, "this apnsToken belongs to another user")
                }
                try tx.bindPushToken(body.apnsToken, user: user, deviceID: deviceID)
            }
            return try .encode(body)

        case "push":
            let user = try caller.requireUser()
            let body = try decode(TestPushRequest.self, from: request)
            let tokens = try await store.read { tx -> [PushTokenRow] in
                guard let deviceID = try tx.deviceID(user: user, name: body.deviceName) else {
                    throw ServerError(.notFound, "you have no device named '\(body.deviceName)'")
                }
                return try tx.pushTokens(user: user, container: container).filter { $0.deviceID == deviceID }
            }
            guard !tokens.isEmpty else {
                throw ServerError(.notFound, "device '\(body.deviceName)' has no registered push token")
            }
            let notification = PushNotification(
                ck: .init(
                    nid: UUID().uuidString, cid: container,
                    met: .init(sid: TodoSchema.privateSubscriptionID, dbs: DatabaseScope.private.notificationCode)))
            for token in tokens { await hub.deliver(notification, to: token.token) }
            return try .encode(EmptyBody())

        default:
            throw RequestError.notFound(request.method, request.segments)
        }
    }

    /// `GET {webcourierURL}?timeout=S&ack=NID`: the long-poll of a device's notifications.
    func courier(_ request: ServiceRequest, container: String, token: String) async throws -> ServiceResponse {
        guard token.count == 64, token.allSatisfy(\.isHexDigit),
            let row = try await store.read({ try $0.pushToken(token) }), row.container == container
        else { throw ServerError(.notFound, "unknown push token") }
        let seconds = request.query["timeout"].flatMap(Double.init) ?? 30
        guard seconds.isFinite, seconds >= 0 else { throw ServerError(.badRequest, "timeout must be a number of seconds") }
        let timeout = Duration.milliseconds(Int64(min(seconds, 300) * 1000))
        guard let notification = await hub.poll(token: token, timeout: timeout, ack: request.query["ack"]) else {
            return .noContent
        }
        return try .encode(notification)
    }
}

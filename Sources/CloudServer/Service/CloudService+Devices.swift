import CloudModel
import Foundation
import Logging

extension CloudService {
    /// `tokens/create`: a new push token and its courier URL, bound to the caller's device at once: a web client
    /// polls it without `tokens/register` (which stays harmless), and the device's older token is forgotten.
    func createPushToken(_ request: ServiceRequest, container: String, caller: Caller) async throws -> ServiceResponse {
        // Only a signed-in device gets a token, one per device: the table stays bounded.
        let user = try caller.requireUser()
        guard let deviceID = caller.deviceID else { throw ServerError(.badRequest, "no device behind this token") }
        let body = try decode(CreateTokenRequest.self, from: request)
        let token = Secrets.randomHex(bytes: 32)
        let now = nowMillis
        try await store.write { tx in
            try await tx.insertPushToken(token, container: container, creatorDevice: deviceID, now: now)
            try await tx.bindPushToken(token, user: user, deviceID: deviceID)
        }
        let url = capabilityURL(.courier, origin: request.origin, container: container, credential: token)
        return try .encode(CreateTokenResponse(apnsEnvironment: body.apnsEnvironment, apnsToken: token, webcourierURL: url))
    }

    /// `tokens/register`: binds a push token to the caller's device.
    func registerPushToken(_ request: ServiceRequest, container: String, caller: Caller) async throws -> ServiceResponse {
        let user = try caller.requireUser()
        let body = try decode(RegisterTokenRequest.self, from: request)
        guard let deviceID = caller.deviceID else { throw ServerError(.badRequest, "no device behind this token") }
        try await store.write { tx in
            guard let row = try await tx.pushToken(body.apnsToken), row.container == container else {
                throw ServerError(.notFound, "unknown push token; create one with tokens/create")
            }
            if let owner = row.userRecordName, owner != user {
                throw ServerError(.accessDenied, "this apnsToken belongs to another user")
            }
            try await tx.bindPushToken(body.apnsToken, user: user, deviceID: deviceID)
        }
        return try .encode(body)
    }

    /// `push`: a test notification to one of the caller's devices, through whichever instance it polls.
    func testPush(_ request: ServiceRequest, container: String, caller: Caller) async throws -> ServiceResponse {
        let user = try caller.requireUser()
        let body = try decode(TestPushRequest.self, from: request)
        let deviceID = try await store.read { tx -> String in
            guard let deviceID = try await tx.deviceID(user: user, name: body.deviceName) else {
                throw ServerError(.notFound, "you have no device named '\(body.deviceName)'")
            }
            guard try await tx.pushTokens(user: user, container: container).contains(where: { $0.deviceID == deviceID }) else {
                throw ServerError(.notFound, "device '\(body.deviceName)' has no registered push token")
            }
            return deviceID
        }
        // The device may be polling another instance: every instance hears of it.
        await bus.broadcast([.devicePush(container: container, user: user, deviceID: deviceID)])
        return try .encode(EmptyBody())
    }

    /// `devices/list`: the devices signed in to the caller's account.
    func listDevices(_ request: ServiceRequest, container: String, caller: Caller) async throws -> ServiceResponse {
        let user = try caller.requireUser()
        let rows = try await store.read { try await $0.signedInDevices(user: user) }
        return try .encode(DevicesResponse(devices: rows.map { Self.deviceInfo($0, caller: caller) }))
    }

    /// `devices/revoke`: ends the sessions of one of the caller's devices.
    func revokeDevice(_ request: ServiceRequest, container: String, caller: Caller) async throws -> ServiceResponse {
        let user = try caller.requireUser()
        let body = try decode(RevokeDeviceRequest.self, from: request)
        let revoked = try await store.write { tx -> DeviceRow in
            guard let row = try await tx.signedInDevices(user: user).first(where: { $0.name == body.deviceName }) else {
                throw ServerError(.notFound, "no signed-in device is named '\(body.deviceName)'; see devices/list")
            }
            try await tx.deleteSessions(deviceID: row.deviceID)
            return row
        }
        sessionsEnded(.device(revoked.deviceID))
        logger.info("device revoked", metadata: ["device": "\(revoked.name)"])
        return try .encode(DevicesResponse(devices: [Self.deviceInfo(revoked, caller: caller)]))
    }

    private static func deviceInfo(_ row: DeviceRow, caller: Caller) -> DeviceInfo {
        DeviceInfo(
            deviceName: row.name, deviceID: row.deviceID, created: row.created, signedIn: row.signedIn, lastUsed: row.lastUsed,
            current: row.deviceID == caller.deviceID)
    }

    /// `GET {webcourierURL}?timeout=S&ack=NID`: the long-poll of a device's notifications.
    func courier(_ request: ServiceRequest, container: String, token: String) async throws -> ServiceResponse {
        guard token.count == 64, token.allSatisfy(\.isHexDigit),
            let row = try await store.read({ try await $0.pushToken(token) }), row.container == container
        else {
            // Held before its answer when it carries no session (a web client's, which may poll again at once); a
            // device with a session backs off itself and registers again.
            if request.bearerToken == nil { await Self.holdFailedPoll(request.query) }
            throw ServerError(.notFound, "unknown push token")
        }
        let seconds = request.query["timeout"].flatMap(Double.init) ?? 30
        guard seconds.isFinite, seconds >= 0 else { throw ServerError(.badRequest, "timeout must be a number of seconds") }
        let now = nowMillis
        if now - row.lastUsed > sessionTouchMillis {
            try await store.write { try await $0.touchPushToken(token, now: now) }
        }
        let timeout = Duration.milliseconds(Int64(min(seconds, 300) * 1000))
        guard
            let notification = await hub.poll(
                token: token, timeout: timeout, ack: request.query["ack"], user: row.userRecordName, container: container,
                resyncNewcomers: bus.isShared)
        else {
            return .noContent
        }
        return try .encode(notification)
    }

    /// How long a push token may stay created but unregistered.
    static let unregisteredTokenLifetime: Int64 = 3_600_000

    /// Ends sessions idle past the configured time, forgets push tokens nobody can use any more, and drops the
    /// push hub's mailboxes of tokens that are gone.
    func evictStaleSessions() async throws {
        let now = nowMillis
        let idleBefore = now - sessionIdleMillis
        let (ended, tokens) = try await store.write { tx -> (Int, Set<String>) in
            let ended = try await tx.deleteIdleSessions(lastUsedBefore: idleBefore)
            try await tx.evictPushTokens(unregisteredBefore: now - Self.unregisteredTokenLifetime, unusedBefore: idleBefore)
            return (ended, try await tx.allPushTokens())
        }
        let dropped = await hub.retainMailboxes(of: tokens)
        if ended > 0 || dropped > 0 {
            logger.info("evicted idle sessions", metadata: ["sessions": "\(ended)", "mailboxes": "\(dropped)"])
        }
    }
}

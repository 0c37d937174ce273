import CloudModel
import Foundation
import Logging
import NIOCore
import SQLiteDB

/// Who is calling: the signed-in user and device, or nobody.
struct Caller: Sendable {
    var userRecordName: String?
    var deviceID: String?
    var deviceName: String?
    /// `scheme://host:port` the request came to (for URLs the answer hands out).
    var origin = ""

    static let anonymous = Caller()

    /// The user, or `AUTHENTICATION_REQUIRED`.
    func requireUser() throws -> String {
        guard let userRecordName else {
            throw ServerError(.authenticationRequired, "sign in first: this request needs a session")
        }
        return userRecordName
    }
}

/// A request as the service sees it, independent of the HTTP framework.
struct ServiceRequest: Sendable {
    var method: String
    /// The path split on "/", empty parts dropped, percent-decoding applied.
    var segments: [String]
    var query: [String: String]
    var bearerToken: String?
    var body: Data
    /// Scheme, host and port the client reached us at, for absolute URLs.
    var origin: String
    /// The TCP peer (the device, or the proxy in front of the cloud).
    var peer: SocketAddress? = nil
    /// The `X-Real-IP` header as sent.
    var realIP: String? = nil
    /// Whose `X-Real-IP` is believed.
    var trustedProxies = TrustedProxies.none

    /// The device's IP address (see `ClientAddress.resolve`), for the per-address sign-in budgets; worked out only by
    /// the routes that budget, not for every request.
    var clientAddress: String { ClientAddress.resolve(peerIP: peer?.ipAddress, realIP: realIP, trusted: trustedProxies) }
}

/// What the service answers: a status and a JSON (or empty) body.
struct ServiceResponse: Sendable {
    var status: Int
    var body: [UInt8]
    /// JSON unless said otherwise.
    var contentType: String?

    static func json(_ writer: JSONWriter, status: Int = 200) -> ServiceResponse {
        ServiceResponse(status: status, body: writer.bytes)
    }

    static func encode<T: Encodable>(_ value: T, status: Int = 200) throws -> ServiceResponse {
        ServiceResponse(status: status, body: Array(try JSONWriter.encoder.encode(value)))
    }

    static let noContent = ServiceResponse(status: 204, body: [])
}

/// The cloud's behaviour: authentication, permission rules, storage and push, without HTTP (the routes are in
/// `CloudRoutes`).
final class CloudService: Sendable {
    let configuration: ServerConfiguration
    let store: any CloudStore
    let hub = PushHub()
    /// How the notices of committed writes reach this instance's hub and the other instances'.
    let bus: any PushBus
    let faults = FaultInjector()
    /// `records/modify` requests being answered: one alone on the cloud is read ahead of its write.
    let modifies = InFlightCounter()
    let limiter: RateLimiter?
    /// Sign-in and registration budgets per account name and client address.
    let throttle: SignInThrottle
    /// yescrypt, off the cooperative pool.
    let hasher: PasswordHasher
    /// Sessions read lately, where a read is a round trip (nil: each request reads its session).
    let sessionCache: SessionCache?
    /// Feed pages read ahead of the device's next request, where a read is a round trip (nil: none).
    let readAhead: FeedReadAhead?
    /// Signs the URLs the cloud hands out, when it requires an API token (nil: they need no signature).
    let capabilityGrants: CapabilityGrant?
    let logger: Logger

    init(configuration: ServerConfiguration, store: any CloudStore, bus: any PushBus = InProcessPushBus(), logger: Logger) {
        self.configuration = configuration
        self.store = store
        self.bus = bus
        self.limiter = configuration.rateLimitPerSecond.map(RateLimiter.init(rate:))
        self.throttle = SignInThrottle(configuration.signInLimits)
        self.hasher = PasswordHasher(cost: configuration.passwordHashCost)
        hasher.learnCosts { try await store.read { try await $0.passwordHashSamples() } }
        self.sessionCache =
            store.readsAreRoundTrips && configuration.sessionCacheLifetime > 0
            ? SessionCache(lifetime: .milliseconds(Int64(configuration.sessionCacheLifetime * 1000))) : nil
        self.readAhead = store.readsAreRoundTrips ? FeedReadAhead() : nil
        self.capabilityGrants = configuration.apiToken.map(CapabilityGrant.init(apiToken:))
        self.logger = logger
    }

    /// Milliseconds since 1970, the unit of every stored time.
    var nowMillis: Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    /// The JSON error answer for a failure of a request (`ServiceErrorMiddleware` asks): nothing escapes.
    func answer(to error: any Error) -> ServiceResponse {
        switch error {
        case let error as ServerError:
            return Self.errorResponse(error)
        case let error as DecodingError:
            return Self.errorResponse(ServerError(.badRequest, "malformed request body: \(Self.describe(error))"))
        case let error as JSONParseError:
            return Self.errorResponse(ServerError(.badRequest, "malformed JSON: \(error)"))
        case let error as WireFormatError:
            return Self.errorResponse(ServerError(.badRequest, "malformed request body: \(error)"))
        case let error as RequestError:
            return Self.errorResponse(error.serverError)
        default:
            logger.error("internal error", metadata: ["error": "\(error)"])
            if let error = error as? SQLiteError, error.isDiskFull {
                return Self.errorResponse(ServerError(.quotaExceeded, "the cloud's disk is full; nothing was written", retryAfter: 60))
            }
            return Self.errorResponse(ServerError(.internalError, "internal error; nothing was written"))
        }
    }

    static func errorResponse(_ error: ServerError) -> ServiceResponse {
        var error = error
        if error.uuid == nil { error.uuid = UUID().uuidString }
        let body = (try? JSONWriter.encoder.encode(error)).map(Array.init) ?? Array("{\"serverErrorCode\":\"INTERNAL_ERROR\"}".utf8)
        return ServiceResponse(status: error.serverErrorCode.httpStatus, body: body)
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return keys.isEmpty ? "" : " at \(keys)"
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing key '\(key.stringValue)'\(path(context))"
        case .typeMismatch(let type, let context): return "expected \(type)\(path(context))"
        case .valueNotFound(let type, let context): return "missing \(type) value\(path(context))"
        case .dataCorrupted(let context): return "\(context.debugDescription)\(path(context))"
        @unknown default: return "\(error)"
        }
    }

    /// Decodes a JSON body; an empty body decodes as `{}`.
    func decode<T: Decodable>(_ type: T.Type, from request: ServiceRequest) throws -> T {
        let body = request.body.isEmpty ? Data("{}".utf8) : request.body
        return try JSONWriter.decoder.decode(type, from: body)
    }

    /// The caller behind the request's token: anonymous without one, `AUTHENTICATION_FAILED` for a bad or idle one.
    /// A session's last use is written coarsely: when the stored one is older than `sessionTouchInterval`.
    func authenticate(_ request: ServiceRequest) async throws -> Caller {
        guard let token = request.bearerToken ?? request.query["ckWebAuthToken"], !token.isEmpty else { return .anonymous }
        return try await authenticate(digest: Secrets.tokenDigest(token))
    }

    /// The caller of the session stored under `digest` (a session token's, or an app password's for CalDAV).
    func authenticate(digest: String) async throws -> Caller {
        let now = nowMillis
        var session: SessionRow
        if let cached = sessionCache?.session(digest: digest), now - cached.lastUsed <= sessionIdleMillis {
            session = cached
        } else {
            // (A cached session that looks idle is read again: another instance may have recorded a later use.)
            guard let stored = try await store.readSingle({ try await $0.session(digest: digest) }) else {
                sessionCache?.forget(.token(digest: digest))
                throw ServerError(.authenticationFailed, "this session is not valid (signed out, revoked or unknown)")
            }
            session = stored
            sessionCache?.remember(digest: digest, stored)
        }
        if now - session.lastUsed > sessionIdleMillis {
            try await store.write { try await $0.deleteSession(digest: digest) }
            sessionsEnded(.token(digest: digest))
            let days = configuration.sessionIdleTimeout / 86400
            throw ServerError(
                .authenticationFailed,
                "this session ended after \(days >= 1 ? "\(Int(days)) days" : "\(Int(configuration.sessionIdleTimeout)) s") unused; sign in again")
        }
        if now - session.lastUsed > sessionTouchMillis {
            try await store.write { try await $0.touchSession(digest: digest, now: now) }
            session.lastUsed = now
            sessionCache?.remember(digest: digest, session)
        }
        return Caller(userRecordName: session.userRecordName, deviceID: session.deviceID, deviceName: session.deviceName)
    }

    /// Sessions this instance just ended: forgotten here at once and, through the bus, by the other instances.
    func sessionsEnded(_ ended: EndedSessions) {
        sessionCache?.forget(ended)
        if bus.isShared { bus.post([.sessionsEnded(ended)]) }
    }

    /// `sessionIdleTimeout` in milliseconds.
    var sessionIdleMillis: Int64 { Int64(configuration.sessionIdleTimeout * 1000) }

    /// How stale a session's recorded last use may get before a request writes it again: an hour, or a tenth of the
    /// idle timeout when that is shorter.
    var sessionTouchMillis: Int64 { min(3_600_000, sessionIdleMillis / 10) }

    /// Drops tombstones older than the retention, and idle sessions and stale push tokens with their mailboxes.
    func compact() async throws {
        let before = nowMillis - Int64(configuration.tombstoneRetention * 1000)
        try await store.write { try await $0.compact(before: before) }
        try await evictStaleSessions()
    }

    /// Validates a container (and environment) name from a path; path tricks are refused here.
    func containerName(_ container: String, environment: String?) throws -> String {
        guard Validation.isName(container, maxLength: 128, extra: "._-") else {
            throw ServerError(.badRequest, "invalid container name")
        }
        guard let environment else { return container }
        guard environment == "development" || environment == "production" else {
            throw ServerError(.badRequest, "environment must be development or production")
        }
        return "\(container)/\(environment)"
    }
}

/// Routing failures.
enum RequestError: Error {
    case notFound(String, [String])

    var serverError: ServerError {
        switch self {
        case .notFound(let method, let segments):
            ServerError(.notFound, "no endpoint \(method) /\(segments.joined(separator: "/"))")
        }
    }
}

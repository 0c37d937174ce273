import CloudModel
import Foundation
import Hummingbird
import Logging

// The cloud's middleware, in the order a request meets it (see `CloudRoutes`).

/// One log line per request: method, path (without a courier's push token), status and milliseconds.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = CloudRequestContext
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - started
        logger.info(
            "\(request.method.rawValue) \(CloudResponder.loggedPath(context.path)) \(response.status.code)",
            metadata: ["ms": "\(String(format: "%.2f", Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000))"])
        return response
    }
}

/// Every failure below it becomes the JSON error answer the service words for it; a path no route serves is
/// `no endpoint {method} {path}`.
struct ServiceErrorMiddleware: RouterMiddleware {
    typealias Context = CloudRequestContext
    let service: CloudService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return service.answer(to: RequestError.notFound(context.request.method, context.request.segments)).response
        } catch {
            return service.answer(to: error).response
        }
    }
}

/// Reads the body (up to the request limit, or the asset limit for an asset upload) and puts the request as the
/// service reads it in the context. A declared length over the limit is refused before a byte of the body is read.
struct RequestBodyMiddleware: RouterMiddleware {
    typealias Context = CloudRequestContext
    let service: CloudService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let configuration = service.configuration
        // An asset upload may be larger than a request (up to the configured asset size, and one byte more to tell).
        let limit = context.path.hasPrefix("/\(CapabilityURL.assetsSegment)/") ? max(CloudLimits.maxRequestBytes, configuration.maxAssetBytes + 1) : CloudLimits.maxRequestBytes
        let body: ByteBuffer
        do {
            if let declared = request.headers[.contentLength].flatMap(Int.init), declared >= limit { throw RequestTooLarge() }
            body = try await request.body.collect(upTo: limit)
        } catch {
            throw ServerError(.limitExceeded, "request body over \(CloudLimits.maxRequestBytes / 1_048_576) MB")
        }
        context.request.query = Self.query(request.uri.query)
        context.request.bearerToken = Self.bearer(request.headers[.authorization])
        context.request.body = Data(body.readableBytesView)
        context.request.origin = origin(of: request)
        context.request.peer = context.remoteAddress
        context.request.realIP = request.headers[ClientAddress.realIPField]
        context.request.trustedProxies = configuration.trustedProxies
        return try await next(request, context)
    }

    /// `scheme://authority` the client reached: what upload and courier URLs are built on. Behind a TLS proxy
    /// (`--insecure-http`) the proxy's `X-Forwarded-Proto` says whether the client spoke HTTPS.
    private func origin(of request: Request) -> String {
        let configuration = service.configuration
        var scheme = configuration.scheme
        if configuration.insecureHTTP, let forwarded = request.headers[Self.forwardedProto]?.lowercased(), ["http", "https"].contains(forwarded) {
            scheme = forwarded
        }
        let authority = request.head.authority
            ?? "\(ListenAddress.urlHost(ListenAddress.localReach(configuration.host))):\(configuration.port)"
        return "\(scheme)://\(authority)"
    }

    private static let forwardedProto = HTTPFields.Element.Name("X-Forwarded-Proto")!

    private static func query(_ query: String?) -> [String: String] {
        var result: [String: String] = [:]
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            func decode(_ s: Substring) -> String {
                String(s).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(s)
            }
            guard let key = parts.first else { continue }
            result[decode(key)] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return result
    }

    private static func bearer(_ header: String?) -> String? {
        guard let header, header.lowercased().hasPrefix("bearer ") else { return nil }
        return String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    }
}

/// A body whose declared length is over the limit.
private struct RequestTooLarge: Error {}

/// A cloud started with `--api-token` answers only requests that carry it (`ckAPIToken`), `/health` aside; even a
/// path it does not serve says so only to those. The URLs it hands out carry a grant instead (`CapabilityGrant`).
struct APITokenMiddleware: RouterMiddleware {
    typealias Context = CloudRequestContext
    let token: String
    let service: CloudService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let segments = context.request.segments
        // CalDAV clients cannot add the token to their URLs; they sign in with an app password instead (below `/dav/`,
        // `/.well-known/caldav`, and the root where clients look first).
        let isCalDAV = segments.isEmpty || ["dav", ".well-known"].contains(segments.first)
        if segments.first != EndpointAPI.health.rawValue, !isCalDAV {
            if let given = context.request.query["ckAPIToken"], Secrets.constantTimeEquals(Array(given.utf8), Array(token.utf8)) {
                return try await next(request, context)
            }
            let isCourier = segments.count == 6 && segments[0] == EndpointAPI.device.rawValue && segments[4] == CapabilityURL.courier.action
            let isCapability = isCourier || segments.first == CapabilityURL.assetsSegment
            if isCapability, let grant = context.request.query[CapabilityGrant.parameter], let grants = service.capabilityGrants,
                grants.verifies(grant, path: "/" + segments.joined(separator: "/"), now: service.nowMillis)
            {
                return try await next(request, context)
            }
            if isCourier { await CloudService.holdFailedPoll(context.request.query) }
            throw ServerError(
                .authenticationFailed,
                isCapability
                    ? "this URL's grant is missing, wrong or expired: ask the cloud for a new one (or add ckAPIToken)"
                    : "missing or wrong API token (the cloud was started with --api-token)")
        }
        return try await next(request, context)
    }
}

/// Checks the container (third segment) and, where the path has one, the environment (fourth); path tricks are
/// refused here.
struct ContainerMiddleware: RouterMiddleware {
    typealias Context = CloudRequestContext
    let service: CloudService
    /// Whether the path names an environment after the container.
    let environment: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let s = context.request.segments
        context.container = try service.containerName(s[2], environment: environment ? s[3] : nil)
        return try await next(request, context)
    }
}

/// Refuses a database name (fifth segment) that is none of the three, for the paths no database group took.
struct DatabaseNameMiddleware: RouterMiddleware {
    typealias Context = CloudRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let name = context.request.segments[4]
        guard DatabaseScope(rawValue: name) != nil else {
            throw ServerError(.badRequest, "unknown database '\(name)': use private, shared or public")
        }
        return try await next(request, context)
    }
}

/// Finds the caller behind the request's session token: anonymous without one, refused for a bad or idle one.
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = CloudRequestContext
    let service: CloudService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.caller = try await service.authenticate(context.request)
        return try await next(request, context)
    }
}

/// The test fault switch (`admin/1/faults`): fails the next calls of an endpoint, named by the path from segment
/// `endpointFrom` on, with the armed error.
struct FaultInjectionMiddleware: RouterMiddleware {
    typealias Context = CloudRequestContext
    let faults: FaultInjector
    let endpointFrom: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let endpoint = context.request.segments[endpointFrom...].joined(separator: "/")
        if let fault = faults.consume(endpoint: endpoint) { throw fault }
        return try await next(request, context)
    }
}

/// The per-user rate limit (`--rate-limit`); anonymous callers share one budget.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = CloudRequestContext
    let limiter: RateLimiter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let wait = limiter.take(context.caller.userRecordName ?? "anonymous") {
            throw ServerError(.throttled, "too many requests; retry after \(String(format: "%.3f", wait)) s", retryAfter: wait)
        }
        return try await next(request, context)
    }
}

extension ServiceResponse {
    /// The HTTP response: JSON unless the answer says otherwise, no content type without a body.
    var response: Response {
        var headers = HTTPFields()
        if !body.isEmpty { headers[.contentType] = contentType ?? "application/json; charset=utf-8" }
        return Response(status: HTTPResponse.Status(code: status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}

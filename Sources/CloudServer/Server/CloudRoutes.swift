import CloudModel
import Foundation
import Hummingbird

/// The cloud's routes, registered from the endpoint table (`AnyEndpoint.all`, in CloudModel), and their middleware.
///
/// Every request meets, in order: the request log, the error answers, the body reader, the API token (where one is
/// configured); then per route the container check, and for the database and device endpoints the session
/// (authentication), the test faults and the rate limit, before its handler. A path or method no route serves is
/// answered `NOT_FOUND` after the first four.
///
/// Each route is registered for GET, HEAD and POST (the only methods that get this far, see
/// `UnservedMethodHandler`) and refuses the methods its endpoint is not sent with itself, after the checks above,
/// as the cloud always has; beside each group a catch-all route answers unknown endpoints after the same checks.
enum CloudRoutes {
    /// The methods that reach the router.
    static let served: Set<EndpointMethod> = Set(EndpointMethod.allCases)

    /// The router of `service`.
    static func router(for service: CloudService) -> Router<CloudRequestContext> {
        let router = Router(context: CloudRequestContext.self)
        router.add(middleware: RequestLogMiddleware(logger: service.logger))
        router.add(middleware: ServiceErrorMiddleware(service: service))
        router.add(middleware: RequestBodyMiddleware(service: service))
        if let token = service.configuration.apiToken { router.add(middleware: APITokenMiddleware(token: token, service: service)) }

        let health = Endpoint.health
        router.serve(RouterPath(EndpointAPI.health.rawValue), health.erased.methods) { _ in try .encode(HealthStatus(time: service.nowMillis)) }
        auth(router.group("auth/1/:container"), service)
        DatabaseRoutes.register(router.group("database/1/:container/:environment"), service)
        device(router.group("device/1/:container/:environment"), service)
        // The upload and download URLs `assets/upload` hands out: capabilities, no session needed.
        router.group(RouterPath(CapabilityURL.assetsRoutePrefix))
            .add(middleware: ContainerMiddleware(service: service, environment: true))
            .serve(":action/:id", served) { context in
                let s = context.request.segments
                return try await service.assets(context.request, container: context.container, action: s[4], id: s[5])
            }
        if service.configuration.enableFaults { admin(router.group("admin/1"), service) }
        CalDAVRoutes.register(router, service)
        return router
    }

    /// `/auth/1/{container}/…`: accounts and sessions, POST only.
    private static func auth(_ group: RouterGroup<CloudRequestContext>, _ service: CloudService) {
        group.add(middleware: ContainerMiddleware(service: service, environment: false))
        group.serve(Endpoint.createAccount) { try await service.createAccount($0.request) }
        group.serve(Endpoint.signIn) { try await service.signIn($0.request) }
        group.serve(Endpoint.signOut) { try await service.signOut($0.request) }
        group.serve(":action", [.post]) { throw RequestError.notFound($0.request.method, $0.request.segments) }
    }

    /// `/device/1/{container}/{environment}/…`: push tokens and devices (POST, signed in), and the courier's long-poll.
    private static func device(_ group: RouterGroup<CloudRequestContext>, _ service: CloudService) {
        group.add(middleware: ContainerMiddleware(service: service, environment: true))
        // The courier URL is the long-poll's only credential: it takes no session.
        group.serve(RouterPath(CapabilityURL.courier.action + "/:token"), [CapabilityURL.courier.method]) { context in
            try await service.courier(context.request, container: context.container, token: context.request.segments[5])
        }
        let signed = admitted(group.group(), service, endpointFrom: 4)
        typealias Handler = @Sendable (CloudService, ServiceRequest, String, Caller) async throws -> ServiceResponse
        let handlers: [(AnyEndpoint, Handler)] = [
            (Endpoint.tokensCreate.erased, { try await $0.createPushToken($1, container: $2, caller: $3) }),
            (Endpoint.tokensRegister.erased, { try await $0.registerPushToken($1, container: $2, caller: $3) }),
            (Endpoint.push.erased, { try await $0.testPush($1, container: $2, caller: $3) }),
            (Endpoint.devicesList.erased, { try await $0.listDevices($1, container: $2, caller: $3) }),
            (Endpoint.devicesRevoke.erased, { try await $0.revokeDevice($1, container: $2, caller: $3) }),
            (Endpoint.appPasswordsCreate.erased, { try await $0.createAppPassword($1, container: $2, caller: $3) }),
        ]
        for (endpoint, handler) in handlers {
            signed.serve(RouterPath(endpoint.path), served) { context in
                guard endpoint.methods.contains(method(context)) else { throw notFound(context) }
                return try await handler(service, context.request, context.container, context.caller)
            }
        }
        signed.serve(RouterPath(CapabilityURL.courier.action + "/:token"), served.subtracting([CapabilityURL.courier.method])) { throw notFound($0) }
        // Anything else below the device API is unknown, once the caller is known: also where a path stops at the
        // first part of an endpoint's (the router would not try the catch-all there).
        signed.serve("**", served) { throw notFound($0) }
        for prefix in Set(handlers.map(\.0.path).flatMap(leadingParts) + [CapabilityURL.courier.action]) {
            signed.serve(RouterPath(prefix), served) { throw notFound($0) }
        }
    }

    /// The paths a path's first parts make, shortest first, the whole path excluded (`a/b/c`: `a`, `a/b`).
    private static func leadingParts(_ path: String) -> [String] {
        let parts = path.split(separator: "/")
        return parts.indices.dropLast().map { parts[...$0].joined(separator: "/") }
    }

    /// `/admin/1/…`: the test hooks of a cloud started with faults enabled, POST only.
    private static func admin(_ group: RouterGroup<CloudRequestContext>, _ service: CloudService) {
        group.serve(Endpoint.faults) { context in
            let fault = try service.decode(FaultRequest.self, from: context.request)
            service.faults.arm(fault)
            return try .encode(fault)
        }
        group.serve(Endpoint.compact) { _ in
            try await service.compact()
            return try .encode(EmptyBody())
        }
        group.serve(":action", [.post]) { throw notFound($0) }
    }

    /// `group` behind the checks of a signed-in endpoint: the session, the test faults (on an endpoint named by the
    /// path from segment `endpointFrom` on) and the rate limit.
    static func admitted(
        _ group: RouterGroup<CloudRequestContext>, _ service: CloudService, endpointFrom: Int
    ) -> RouterGroup<CloudRequestContext> {
        group.add(middleware: AuthenticationMiddleware(service: service))
        if service.configuration.enableFaults { group.add(middleware: FaultInjectionMiddleware(faults: service.faults, endpointFrom: endpointFrom)) }
        if let limiter = service.limiter { group.add(middleware: RateLimitMiddleware(limiter: limiter)) }
        return group
    }

    /// The request's method as the endpoint table spells it.
    static func method(_ context: CloudRequestContext) -> EndpointMethod {
        EndpointMethod(rawValue: context.request.method) ?? .head
    }

    /// `NOT_FOUND`, naming the method and path asked.
    static func notFound(_ context: CloudRequestContext) -> RequestError {
        .notFound(context.request.method, context.request.segments)
    }
}

extension RouterMethods where Context == CloudRequestContext {
    /// Answers `methods` at `path` with `answer`.
    @discardableResult
    func serve(
        _ path: RouterPath, _ methods: Set<EndpointMethod>,
        _ answer: @escaping @Sendable (CloudRequestContext) async throws -> ServiceResponse
    ) -> Self {
        for method in methods.sorted(by: { $0.rawValue < $1.rawValue }) {
            on(path, method: HTTPRequest.Method(rawValue: method.rawValue)!) { _, context in try await answer(context).response }
        }
        return self
    }

    /// Answers `endpoint` at its path, for the methods it is sent with.
    @discardableResult
    func serve<Body, Answer>(
        _ endpoint: Endpoint<Body, Answer>, _ answer: @escaping @Sendable (CloudRequestContext) async throws -> ServiceResponse
    ) -> Self {
        serve(RouterPath(endpoint.path), endpoint.erased.methods, answer)
    }
}

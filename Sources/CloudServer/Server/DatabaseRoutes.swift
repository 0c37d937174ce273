import CloudModel
import Foundation
import Hummingbird

/// What a database route hands its handler: the request, the database it addresses, and the caller.
struct DatabaseCall: Sendable {
    var request: ServiceRequest
    var database: DatabaseKey
    var caller: Caller
}

/// `/database/1/{container}/{environment}/{database}/{entity}/{action}`: a router group per database, each serving
/// every database endpoint of the table. An endpoint asked in a database it does not work in is refused by its
/// handler, with the reason (its `databases` say where it works).
struct DatabaseRoutes {
    let group: RouterGroup<CloudRequestContext>
    let scope: DatabaseScope
    let service: CloudService

    /// Registers the database groups and the catch-all beside them in `group`.
    static func register(_ group: RouterGroup<CloudRequestContext>, _ service: CloudService) {
        group.add(middleware: ContainerMiddleware(service: service, environment: true))
        for scope in DatabaseScope.allCases {
            let routes = DatabaseRoutes(
                group: CloudRoutes.admitted(group.group(RouterPath(scope.rawValue)), service, endpointFrom: 5), scope: scope,
                service: service)
            routes.registerEndpoints()
        }
        // An unknown endpoint is told apart only after the checks every call gets, as an unknown database name is
        // refused before them.
        let other = group.group(":database").add(middleware: DatabaseNameMiddleware())
        CloudRoutes.admitted(other, service, endpointFrom: 5).serve(":entity/:action", CloudRoutes.served) { context in
            let scope = DatabaseScope(rawValue: context.request.segments[4]) ?? .private
            _ = try service.databaseCall(context, scope: scope, endpoint: context.request.segments[5...].joined(separator: "/"), methods: [.post])
            throw CloudRoutes.notFound(context)
        }
    }

    /// Every database endpoint of the table, with its handler.
    private func registerEndpoints() {
        serve(.recordsModify) { try await $0.modifyRecordsOrShares(body: $1.request.body, $1.database, $1.caller) }
        serve(.recordsLookup) { try await $0.lookupRecords($1, $2.database, $2.caller) }
        serve(.recordsQuery) { try await $0.queryRecords($1, $2.database, $2.caller) }
        serve(.recordsChanges) { try await $0.recordChanges($1, $2.database, $2.caller) }
        serve(.changesZone) { try await $0.zoneChanges($1, $2.database, $2.caller) }
        serve(.changesDatabase) { try await $0.databaseChanges($1, $2.database, legacy: false) }
        serve(.zonesChanges) { try await $0.databaseChanges($1, $2.database, legacy: true) }
        serve(.zonesList) { try await $0.listZones($1.database) }
        serve(.zonesLookup) { try await $0.lookupZones($1, $2.database) }
        serve(.zonesModify) { try await $0.modifyZones($1, $2.database, $2.caller) }
        serve(.subscriptionsModify) { try await $0.modifySubscriptions($1, $2.database, $2.caller) }
        serve(.subscriptionsList) { try await $0.listSubscriptions($1.database, $1.caller) }
        serve(.subscriptionsLookup) { try await $0.lookupSubscriptions($1, $2.database, $2.caller) }
        serve(.sharesModify) { try await $0.modifyShares($1, $2.database, $2.caller) }
        serve(.sharesList) { try await $0.listShares($1.database, $1.caller) }
        serve(.sharesAccept) { try await $0.acceptOrLeaveShares($1, $2.database, $2.caller, leave: false) }
        serve(.sharesLeave) { try await $0.acceptOrLeaveShares($1, $2.database, $2.caller, leave: true) }
        serve(.assetsUpload) { try await $0.assetUpload($1, $2.database, $2.caller) }
        serve(.recordsResolve) { try await $0.resolveShareLinks($1, $2.database, $2.caller) }
        serve(.recordsAccept) { try await $0.acceptShareLinks($1, $2.database, $2.caller) }
        serve(.assetsRereference) { try await $0.rereferenceAssets($1, $2.database, $2.caller) }
        serve(.usersDiscover) { try await $0.discoverUsers($1) }
        serve(.usersDiscoverability) { try await $0.setDiscoverability($1, $2.database, $2.caller) }
        serve(.usersCaller) { try await $0.callerIdentity($1.caller) }
        serve(.usersCurrent) { try await $0.callerIdentity($1.caller) }
    }

    /// Serves `endpoint` for every method that reaches the router; its handler reads the body itself, if at all.
    private func serve<Body, Answer>(
        _ endpoint: Endpoint<Body, Answer>, _ answer: @escaping @Sendable (CloudService, DatabaseCall) async throws -> ServiceResponse
    ) {
        let (scope, service, methods, path) = (scope, service, endpoint.erased.methods, endpoint.path)
        group.serve(RouterPath(path), CloudRoutes.served) { context in
            try await answer(service, try service.databaseCall(context, scope: scope, endpoint: path, methods: methods))
        }
    }

    /// Serves `endpoint`, its handler given the body decoded as the endpoint's request.
    private func serve<Body: Decodable, Answer>(
        _ endpoint: Endpoint<Body, Answer>, _ answer: @escaping @Sendable (CloudService, Body, DatabaseCall) async throws -> ServiceResponse
    ) {
        serve(endpoint) { service, call in try await answer(service, try service.decode(Body.self, from: call.request), call) }
    }
}

import CloudClient
import CloudModel
import Foundation
import Testing

/// The device client's requests against the endpoint table and the real cloud: each one goes to the path and with
/// the method of a table entry, and the cloud routes it.
@Suite("Client requests follow the endpoint table")
struct ClientEndpointTests {
    /// Passes requests on and keeps each with the status and error reason it got.
    private final class RecordingTransport: HTTPTransport, @unchecked Sendable {
        struct Exchange {
            var method: String
            var path: String
            var status: Int
            var reason: String?
        }

        private let base = HTTPClientTransport()
        private let lock = NSLock()
        private var kept: [Exchange] = []

        var exchanges: [Exchange] { lock.withLock { kept } }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let response = try await base.send(request)
            let reason = (try? JSONDecoder().decode(ServerError.self, from: response.body))?.reason
            let exchange = Exchange(method: request.method, path: request.url.path, status: response.status, reason: reason)
            lock.withLock { kept.append(exchange) }
            return response
        }
    }

    @Test func everyClientCallGoesToARoutedTableEntry() async throws {
        let cloud = try await TestCloud.start()
        let transport = RecordingTransport()
        let client = CloudClient(baseURL: cloud.baseURL, transport: transport)
        let address = client.container
        let zone = ZoneID(zoneName: "Todos")
        let query = QueryRequest(query: Query(recordType: "Todo"))
        // Each call may fail (most are sent with nothing to work on): only where it went and whether it was routed count.
        let calls: [@Sendable () async throws -> Void] = [
            { _ = try await client.createAccount(account: "alice", password: "password-alice") },
            { _ = try await client.signIn(account: "alice", password: "password-alice", deviceName: "laptop") },
            { _ = try await client.caller() },
            { _ = try await client.currentUser(.shared) },
            { _ = try await client.modifyZones(.private, ModifyZonesRequest(operations: [.init(.create, zone)])) },
            { _ = try await client.modifyRecords(.private, ModifyRecordsRequest(operations: [], zoneID: zone)) },
            { _ = try await client.lookupRecords(.private, LookupRecordsRequest(recordNames: ["a"], zoneID: zone)) },
            { _ = try await client.queryRecords(.public, query) },
            { _ = try await client.recordChanges(.private, RecordChangesRequest(zoneID: zone)) },
            { _ = try await client.databaseChanges(.private, DatabaseChangesRequest()) },
            { _ = try await client.zoneChanges(.private, ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: zone)])) },
            { _ = try await client.zonesChanges(.shared, DatabaseChangesRequest()) },
            { _ = try await client.listZones(.private) },
            { _ = try await client.lookupZones(.private, [zone]) },
            { _ = try await client.modifySubscriptions(.private, ModifySubscriptionsRequest(operations: [])) },
            { _ = try await client.listSubscriptions(.private) },
            { _ = try await client.modifyShares(ModifySharesRequest(operations: [])) },
            { _ = try await client.listOwnedShares() },
            { _ = try await client.listSharedWithMe() },
            { _ = try await client.acceptShares([]) },
            { _ = try await client.leaveShares([]) },
            { _ = try await client.createPushToken() },
            { try await client.registerPushToken(String(repeating: "0", count: 64)) },
            { try await client.sendTestPush(toDevice: "phone") },
            { _ = try await client.listDevices() },
            { _ = try await client.revokeDevice(named: "phone") },
            { _ = try await client.createAppPassword(label: "phone") },
            { _ = await client.isHealthy() },
            { try await client.injectFault(FaultRequest(endpoint: "nothing", serverErrorCode: .throttled, count: 0)) },
            { try await client.compactForTesting() },
            { try await client.signOut() },
        ]
        for call in calls { try? await call() }
        await cloud.shutdown()

        let exchanges = transport.exchanges
        #expect(exchanges.count == calls.count)
        var reached: Set<AnyEndpoint> = []
        for exchange in exchanges {
            let what = "\(exchange.method) \(exchange.path): \(exchange.status) \(exchange.reason ?? "")"
            let entries = AnyEndpoint.all.filter { endpoint in
                endpoint.method.rawValue == exchange.method
                    && DatabaseScope.allCases.contains { address.path(of: endpoint, in: $0) == exchange.path }
            }
            #expect(entries.count == 1, "\(what) is no table entry's")
            reached.formUnion(entries)
            #expect(exchange.status != 404 || exchange.reason?.hasPrefix("no endpoint") != true, "\(what) was not routed")
            #expect(exchange.status != 405, "\(what)")
        }
        // The table's entries the client has no call for: what only other clients (or none yet) send.
        let unused = Set(AnyEndpoint.all).subtracting(reached).map(\.path).sorted()
        #expect(unused == ["assets/rereference", "assets/upload", "records/accept", "records/resolve", "subscriptions/lookup", "users/discover", "users/discoverability"])
    }
}

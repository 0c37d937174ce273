@testable import CloudServer
import Foundation
import PostgresTestSupport
import Testing

/// The web-client conformance tests run again on the memory store and on PostgreSQL (SQLite runs them in their own
/// suites). Each run gets a fresh store; PostgreSQL prints `skipped: …` where it cannot start.
@Suite("Web clients on every store", .serialized)
struct WebClientStoreTests {
    static let stores = ["memory", "postgres"]

    /// Runs `body` with every `TestCloud` it makes on a fresh store of the kind named.
    private func on(_ store: String, _ test: String = #function, _ body: () async throws -> Void) async throws {
        switch store {
        case "memory":
            try await TestStorage.$current.withValue(.memory) { try await body() }
        default:
            try await PostgresTestDatabase.with("\(test) on PostgreSQL") { database in
                try await TestStorage.$current.withValue(.postgres(database.url)) { try await body() }
            }
        }
    }

    @Test(arguments: stores) func push(_ store: String) async throws {
        let suite = WebPushTests()
        try await on(store) { try await suite.aCreatedTokenGetsFetAndQryPushesWithoutRegistering() }
        try await on(store) { try await suite.databaseSubscriptionsCarryMetAndFet() }
        try await on(store) { try await suite.publicQuerySubscriptionsNameTheirZoneAndReason() }
        try await on(store) { try await suite.theSharedDatabaseRefusesQuerySubscriptionsInWords() }
        try await on(store) { try await suite.subscriptionsAreLookedUpAndDeletedByIDAlone() }
    }

    @Test(arguments: stores) func urls(_ store: String) async throws {
        let suite = WebURLTests()
        try await on(store) { try await suite.handedOutURLsWorkWithoutTheAPIToken() }
    }

    @Test(arguments: stores) func values(_ store: String) async throws {
        let suite = WebValuesTests()
        try await on(store) { try await suite.untypedAssetsAssetListsAndRereferencedAssets() }
        try await on(store) { try await suite.untypedValuesTakeTheSchemaTypeAndOddValuesAreRefusedPerRecord() }
    }

    @Test(arguments: stores) func queries(_ store: String) async throws {
        let suite = WebQueryTests()
        try await on(store) { try await suite.listComparatorsNumbersAsStringsAndSystemFieldMarks() }
        try await on(store) { try await suite.nearWithDistanceAndSortingByRelativeLocation() }
        try await on(store) { try await suite.zoneWideQueriesPageAcrossTheCallersZones() }
        try await on(store) { try await suite.discoveryByPhoneFindsNoOneAndDiscoverAllListsSharingPartners() }
    }

    @Test(arguments: stores) func shareLinks(_ store: String) async throws {
        try await on(store) { try await WebShareTests().resolveAndAcceptByShortGUIDThenSeeTheSharedRecords() }
        try await on(store) { try await WebShareTests().aShareRecordSavedTheCloudKitJSWayIsTheDevicesShare() }
    }
}

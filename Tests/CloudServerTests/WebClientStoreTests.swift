@testable import CloudServer
import Foundation
import PostgresTestSupport
import Testing

/// The web-client conformance tests run again on the memory store and on PostgreSQL (SQLite runs them in their own
/// suites). Each run gets a fresh store; PostgreSQL prints `skipped: …` where it cannot start.
@Suite("Web clients on every store")
struct WebClientStoreTests {
    static let stores = ["memory", "postgres"]

    @Test(arguments: stores) func aCreatedTokenGetsFetAndQryPushesWithoutRegistering(_ store: String) async throws {
        try await onStore(store, #function) { try await WebPushTests().aCreatedTokenGetsFetAndQryPushesWithoutRegistering() }
    }

    @Test(arguments: stores) func databaseSubscriptionsCarryMetAndFet(_ store: String) async throws {
        try await onStore(store, #function) { try await WebPushTests().databaseSubscriptionsCarryMetAndFet() }
    }

    @Test(arguments: stores) func publicQuerySubscriptionsNameTheirZoneAndReason(_ store: String) async throws {
        try await onStore(store, #function) { try await WebPushTests().publicQuerySubscriptionsNameTheirZoneAndReason() }
    }

    @Test(arguments: stores) func theSharedDatabaseRefusesQuerySubscriptionsInWords(_ store: String) async throws {
        try await onStore(store, #function) { try await WebPushTests().theSharedDatabaseRefusesQuerySubscriptionsInWords() }
    }

    @Test(arguments: stores) func subscriptionsAreLookedUpAndDeletedByIDAlone(_ store: String) async throws {
        try await onStore(store, #function) { try await WebPushTests().subscriptionsAreLookedUpAndDeletedByIDAlone() }
    }

    @Test(arguments: stores) func aParticipantsWritesFireTheOwnersSubscriptions(_ store: String) async throws {
        try await onStore(store, #function) { try await WebPushSharingTests().aParticipantsWritesFireTheOwnersSubscriptions() }
    }

    @Test(arguments: stores) func recordsModifyAnswersNumbersAsStrings(_ store: String) async throws {
        try await onStore(store, #function) { try await WebNumbersAsStringsTests().recordsModifyAnswersNumbersAsStrings() }
    }

    @Test(arguments: stores) func recordsLookupAnswersNumbersAsStrings(_ store: String) async throws {
        try await onStore(store, #function) { try await WebNumbersAsStringsTests().recordsLookupAnswersNumbersAsStrings() }
    }

    @Test(arguments: stores) func recordsChangesAnswersNumbersAsStrings(_ store: String) async throws {
        try await onStore(store, #function) { try await WebNumbersAsStringsTests().recordsChangesAnswersNumbersAsStrings() }
    }

    @Test(arguments: stores) func zoneChangesAnswerNumbersAsStringsForTheRequestOrOneZone(_ store: String) async throws {
        try await onStore(store, #function) { try await WebNumbersAsStringsTests().zoneChangesAnswerNumbersAsStringsForTheRequestOrOneZone() }
    }

    @Test(arguments: stores) func nearAndNearestAcrossTheAntimeridian(_ store: String) async throws {
        try await onStore(store, #function) { try await WebNearTests().nearAndNearestAcrossTheAntimeridian() }
    }

    @Test(arguments: stores) func nearAndNearestAroundThePoles(_ store: String) async throws {
        try await onStore(store, #function) { try await WebNearTests().nearAndNearestAroundThePoles() }
    }

    @Test(arguments: stores) func aZoneWideShareSharesEveryRecordOfTheZoneWithItsParticipants(_ store: String) async throws {
        try await onStore(store, #function) { try await WebZoneShareTests().aZoneWideShareSharesEveryRecordOfTheZoneWithItsParticipants() }
    }

    @Test(arguments: stores) func aZoneWithSharedRecordsIsNotSharedWholeAndPublicSharesAreRefusedInWords(_ store: String) async throws {
        try await onStore(store, #function) { try await WebZoneShareTests().aZoneWithSharedRecordsIsNotSharedWholeAndPublicSharesAreRefusedInWords() }
    }

    @Test(arguments: stores) func aParticipantsDatabaseSubscriptionFiresForWritesInTheSharedZone(_ store: String) async throws {
        try await onStore(store, #function) { try await WebZoneShareTests().aParticipantsDatabaseSubscriptionFiresForWritesInTheSharedZone() }
    }

    @Test(arguments: stores) func handedOutURLsWorkWithoutTheAPIToken(_ store: String) async throws {
        try await onStore(store, #function) { try await WebURLTests().handedOutURLsWorkWithoutTheAPIToken() }
    }

    @Test(arguments: stores) func untypedAssetsAssetListsAndRereferencedAssets(_ store: String) async throws {
        try await onStore(store, #function) { try await WebValuesTests().untypedAssetsAssetListsAndRereferencedAssets() }
    }

    @Test(arguments: stores) func untypedValuesTakeTheSchemaTypeAndOddValuesAreRefusedPerRecord(_ store: String) async throws {
        try await onStore(store, #function) { try await WebValuesTests().untypedValuesTakeTheSchemaTypeAndOddValuesAreRefusedPerRecord() }
    }

    @Test(arguments: stores) func listComparatorsNumbersAsStringsAndSystemFieldMarks(_ store: String) async throws {
        try await onStore(store, #function) { try await WebQueryTests().listComparatorsNumbersAsStringsAndSystemFieldMarks() }
    }

    @Test(arguments: stores) func nearWithDistanceAndSortingByRelativeLocation(_ store: String) async throws {
        try await onStore(store, #function) { try await WebQueryTests().nearWithDistanceAndSortingByRelativeLocation() }
    }

    @Test(arguments: stores) func zoneWideQueriesPageAcrossTheCallersZones(_ store: String) async throws {
        try await onStore(store, #function) { try await WebQueryTests().zoneWideQueriesPageAcrossTheCallersZones() }
    }

    @Test(arguments: stores) func discoveryByPhoneFindsNoOneAndDiscoverAllListsSharingPartners(_ store: String) async throws {
        try await onStore(store, #function) { try await WebQueryTests().discoveryByPhoneFindsNoOneAndDiscoverAllListsSharingPartners() }
    }

    @Test(arguments: stores) func resolveAndAcceptByShortGUIDThenSeeTheSharedRecords(_ store: String) async throws {
        try await onStore(store, #function) { try await WebShareTests().resolveAndAcceptByShortGUIDThenSeeTheSharedRecords() }
    }

    @Test(arguments: stores) func aShareRecordSavedTheCloudKitJSWayIsTheDevicesShare(_ store: String) async throws {
        try await onStore(store, #function) { try await WebShareTests().aShareRecordSavedTheCloudKitJSWayIsTheDevicesShare() }
    }
}

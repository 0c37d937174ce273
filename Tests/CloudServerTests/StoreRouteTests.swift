@testable import CloudServer
import Foundation
import PostgresTestSupport
import Testing

/// The cloud's route tests (records, change feeds, sharing, permissions, queries) run again on the memory store and on
/// PostgreSQL: the conformance suite checks each store method by method, these check that the service's rules hold on
/// every store. Each run gets a fresh store; PostgreSQL prints `skipped: …` where it cannot start. Each route test is
/// a test case of its own, and they run side by side.
@Suite("The cloud's routes on every store")
struct StoreRouteTests {
    /// The stores besides SQLite, on which the route suites run by default.
    static let stores = ["memory", "postgres"]

    @Test(arguments: stores) func createUpdateConflictDelete(_ store: String) async throws {
        try await onStore(store, #function) { try await RecordTests().createUpdateConflictDelete() }
    }

    @Test(arguments: stores) func unknownFieldTypesAndTypelessValuesSurvive(_ store: String) async throws {
        try await onStore(store, #function) { try await RecordTests().unknownFieldTypesAndTypelessValuesSurvive() }
    }

    @Test(arguments: stores) func atomicBatchesAreAllOrNothing(_ store: String) async throws {
        try await onStore(store, #function) { try await RecordTests().atomicBatchesAreAllOrNothing() }
    }

    @Test(arguments: stores) func limitsAreEnforcedWithClearErrors(_ store: String) async throws {
        try await onStore(store, #function) { try await RecordTests().limitsAreEnforcedWithClearErrors() }
    }

    @Test(arguments: stores) func queryFiltersSortsAndPages(_ store: String) async throws {
        try await onStore(store, #function) { try await RecordTests().queryFiltersSortsAndPages() }
    }

    @Test(arguments: stores) func pagingOver450RecordsThenIncremental(_ store: String) async throws {
        try await onStore(store, #function) { try await ChangeFeedTests().pagingOver450RecordsThenIncremental() }
    }

    @Test(arguments: stores) func databaseFeedReportsChangedAndDeletedZones(_ store: String) async throws {
        try await onStore(store, #function) { try await ChangeFeedTests().databaseFeedReportsChangedAndDeletedZones() }
    }

    @Test(arguments: stores) func tokensExpireAfterCompaction(_ store: String) async throws {
        try await onStore(store, #function) { try await ChangeFeedTests().tokensExpireAfterCompaction() }
    }

    @Test(arguments: stores) func aDeletionRacingCompactionsIsKeptOrExpiresTheTokensBeforeIt(_ store: String) async throws {
        try await onStore(store, #function) { try await ChangeFeedTests().aDeletionRacingCompactionsIsKeptOrExpiresTheTokensBeforeIt() }
    }

    @Test(arguments: stores) func garbageTokensAreBadRequests(_ store: String) async throws {
        try await onStore(store, #function) { try await ChangeFeedTests().garbageTokensAreBadRequests() }
    }

    @Test(arguments: stores) func inviteAcceptAndSeeExactlyTheSharedList(_ store: String) async throws {
        try await onStore(store, #function) { try await SharingTests().inviteAcceptAndSeeExactlyTheSharedList() }
    }

    @Test(arguments: stores) func participantEditsReachTheOwnerAndPushesSkipTheWriter(_ store: String) async throws {
        try await onStore(store, #function) { try await SharingTests().participantEditsReachTheOwnerAndPushesSkipTheWriter() }
    }

    @Test(arguments: stores) func participantRulesReadOnlyRootShareAndHierarchy(_ store: String) async throws {
        try await onStore(store, #function) { try await SharingTests().participantRulesReadOnlyRootShareAndHierarchy() }
    }

    @Test(arguments: stores) func recordsLeavingTheSharedListBecomeTombstones(_ store: String) async throws {
        try await onStore(store, #function) { try await SharingTests().recordsLeavingTheSharedListBecomeTombstones() }
    }

    @Test(arguments: stores) func acceptingASecondShareInTheZoneExpiresOldTokens(_ store: String) async throws {
        try await onStore(store, #function) { try await SharingTests().acceptingASecondShareInTheZoneExpiresOldTokens() }
    }

    @Test(arguments: stores) func revokeLeaveRootDeleteAndZoneDeleteEndAccess(_ store: String) async throws {
        try await onStore(store, #function) { try await SharingTests().revokeLeaveRootDeleteAndZoneDeleteEndAccess() }
    }

    @Test(arguments: stores) func nothingUnsharedLeaksToParticipantsOrStrangers(_ store: String) async throws {
        try await onStore(store, #function) { try await SharingTests().nothingUnsharedLeaksToParticipantsOrStrangers() }
    }

    @Test(arguments: stores) func zonesOfTwoOwnersWithOneNameStayApart(_ store: String) async throws {
        try await onStore(store, #function) { try await SharingTests().zonesOfTwoOwnersWithOneNameStayApart() }
    }

    @Test(arguments: stores) func shareRequestsGetClearErrors(_ store: String) async throws {
        try await onStore(store, #function) { try await SharingTests().shareRequestsGetClearErrors() }
    }

    @Test(arguments: stores) func publicBoard(_ store: String) async throws {
        try await onStore(store, #function) { try await PermissionTests().publicBoard() }
    }

    @Test(arguments: stores) func privateDataStaysPrivate(_ store: String) async throws {
        try await onStore(store, #function) { try await PermissionTests().privateDataStaysPrivate() }
    }

    @Test(arguments: stores) func keysetPagingUnderConcurrentInsertsUnsorted(_ store: String) async throws {
        try await onStore(store, #function) { try await QueryTests().keysetPagingUnderConcurrentInserts(sortedBy: nil) }
    }

    @Test(arguments: stores) func keysetPagingUnderConcurrentInsertsSorted(_ store: String) async throws {
        try await onStore(store, #function) { try await QueryTests().keysetPagingUnderConcurrentInserts(sortedBy: "modifiedTimestamp") }
    }

    @Test(arguments: stores) func sqlMatchesTheEvaluator(_ store: String) async throws {
        try await onStore(store, #function) { try await QueryTests().sqlMatchesTheEvaluator() }
    }

    @Test(arguments: stores) func aRareFieldMatchIsReachedThroughBoundedPages(_ store: String) async throws {
        try await onStore(store, #function) { try await QueryTests().aRareFieldMatchIsReachedThroughBoundedPages() }
    }

    @Test(arguments: stores) func markersOfAnotherQueryOrForgedAreRefused(_ store: String) async throws {
        try await onStore(store, #function) { try await QueryTests().markersOfAnotherQueryOrForgedAreRefused() }
    }
}

/// Runs `body` with every `TestCloud` it makes on a fresh store of the kind named (`memory` or `postgres`; PostgreSQL
/// prints `skipped: …` naming `test` where it cannot start).
func onStore(_ store: String, _ test: String, _ body: () async throws -> Void) async throws {
    switch store {
    case "memory":
        try await TestStorage.$current.withValue(.memory) { try await body() }
    default:
        try await PostgresTestDatabase.with("\(test) on PostgreSQL") { database in
            try await TestStorage.$current.withValue(.postgres(database.url)) { try await body() }
        }
    }
}

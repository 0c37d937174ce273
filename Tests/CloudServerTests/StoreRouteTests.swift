@testable import CloudServer
import Foundation
import PostgresTestSupport
import Testing

/// The cloud's route tests (records, change feeds, sharing, permissions, queries) run again on the memory store and on
/// PostgreSQL: the conformance suite checks each store method by method, these check that the service's rules hold on
/// every store. Each run gets a fresh store; PostgreSQL prints `skipped: …` where it cannot start.
@Suite("The cloud's routes on every store", .serialized)
struct StoreRouteTests {
    /// The stores besides SQLite, on which the route suites run by default.
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

    @Test(arguments: stores) func records(_ store: String) async throws {
        let suite = RecordTests()
        try await on(store) { try await suite.createUpdateConflictDelete() }
        try await on(store) { try await suite.unknownFieldTypesAndTypelessValuesSurvive() }
        try await on(store) { try await suite.atomicBatchesAreAllOrNothing() }
        try await on(store) { try await suite.limitsAreEnforcedWithClearErrors() }
        try await on(store) { try await suite.queryFiltersSortsAndPages() }
    }

    @Test(arguments: stores) func changeFeeds(_ store: String) async throws {
        let suite = ChangeFeedTests()
        try await on(store) { try await suite.pagingOver450RecordsThenIncremental() }
        try await on(store) { try await suite.databaseFeedReportsChangedAndDeletedZones() }
        try await on(store) { try await suite.tokensExpireAfterCompaction() }
        try await on(store) { try await suite.garbageTokensAreBadRequests() }
    }

    @Test(arguments: stores) func sharing(_ store: String) async throws {
        let suite = SharingTests()
        try await on(store) { try await suite.inviteAcceptAndSeeExactlyTheSharedList() }
        try await on(store) { try await suite.participantEditsReachTheOwnerAndPushesSkipTheWriter() }
        try await on(store) { try await suite.participantRulesReadOnlyRootShareAndHierarchy() }
        try await on(store) { try await suite.recordsLeavingTheSharedListBecomeTombstones() }
        try await on(store) { try await suite.acceptingASecondShareInTheZoneExpiresOldTokens() }
        try await on(store) { try await suite.revokeLeaveRootDeleteAndZoneDeleteEndAccess() }
        try await on(store) { try await suite.nothingUnsharedLeaksToParticipantsOrStrangers() }
        try await on(store) { try await suite.zonesOfTwoOwnersWithOneNameStayApart() }
        try await on(store) { try await suite.shareRequestsGetClearErrors() }
    }

    @Test(arguments: stores) func permissions(_ store: String) async throws {
        let suite = PermissionTests()
        try await on(store) { try await suite.publicBoard() }
        try await on(store) { try await suite.privateDataStaysPrivate() }
    }

    @Test(arguments: stores) func queries(_ store: String) async throws {
        let suite = QueryTests()
        try await on(store) { try await suite.keysetPagingUnderConcurrentInserts(sortedBy: nil) }
        try await on(store) { try await suite.keysetPagingUnderConcurrentInserts(sortedBy: "modifiedTimestamp") }
        try await on(store) { try await suite.sqlMatchesTheEvaluator() }
        try await on(store) { try await suite.aRareFieldMatchIsReachedThroughBoundedPages() }
        try await on(store) { try await suite.markersOfAnotherQueryOrForgedAreRefused() }
    }
}

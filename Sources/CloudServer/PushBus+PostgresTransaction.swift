import PostgresNIO

/// A PostgreSQL write carries its notices: `pg_notify` inside the transaction, delivered to every instance's
/// listener when it commits, dropped when it rolls back.
extension PostgresStoreTransaction: NoticeCarryingTransaction {
    func sendNotice(channel: String, payload: String) async throws {
        try await run("SELECT pg_notify(\(channel), \(payload))")
    }
}

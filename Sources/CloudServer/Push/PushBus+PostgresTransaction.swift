import PostgresNIO

/// A PostgreSQL write carries its notices: `pg_notify` inside the transaction (sent with the feed counters, in the
/// statement before COMMIT: see `finish`), delivered to every instance's listener when it commits, dropped when it
/// rolls back.
extension PostgresStoreTransaction: NoticeCarryingTransaction {
    func sendNotice(channel: String, payload: String) async throws {
        notices.append((channel, payload))
    }
}

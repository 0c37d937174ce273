/// A storage transaction that carries notices to every cloud instance: on PostgreSQL, `pg_notify` inside the
/// transaction (delivered when it commits, dropped when it rolls back). Stores of one process do not conform.
protocol NoticeCarryingTransaction {
    /// Queues `payload` on `channel` for the listeners of every instance, with this transaction.
    func sendNotice(channel: String, payload: String) async throws
}

/// A store that caches which zones have shares: told when another instance may have changed them.
protocol ShareCacheHolding: Sendable {
    /// Forgets what is cached about the shares of one zone.
    func forgetShares(zonePK: Int64) async
}

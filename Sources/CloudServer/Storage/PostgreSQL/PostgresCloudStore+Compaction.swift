import PostgresNIO

/// Compaction of the feeds in PostgreSQL, elected: one instance at a time.
extension PostgresStoreTransaction {
    /// Drops tombstones, deleted-zone entries and root exits older than `before`, moving the horizons past them. One
    /// compaction at a time: one that finds another under way waits for it, then finds little left to do. (The bus
    /// elects the instance that compacts, with a session lock on its listener connection; that lock goes when the
    /// listener reconnects, and another instance may be elected while this transaction still runs on a pool
    /// connection, so the transaction takes a lock of its own too.) Waiting, not giving up: an operator's compaction
    /// that met the cloud's own every-second one under a zero retention answered done while it had dropped nothing.
    ///
    /// Each feed's drop and its horizon are ONE statement: the rows deleted are the rows the horizon is taken from.
    /// At READ COMMITTED every statement sees what was committed when it began, so a horizon taken by one statement
    /// and a DELETE by the next also dropped a deletion committed between them, leaving the tokens from before it
    /// valid: a device never heard of that deletion.
    func compact(before: Int64) async throws {
        // The lock first, so two compactions never hold each other's rows while they wait.
        try await run("SELECT pg_advisory_xact_lock(\(PostgresSchema.migrationLock + 1))")
        try await flushZoneChanges()
        try await run(
            """
            WITH gone AS (DELETE FROM records WHERE deleted AND modified_ts < \(before) RETURNING zone_pk, seq)
            UPDATE zones z SET compacted_seq = GREATEST(z.compacted_seq, t.horizon)
            FROM (SELECT zone_pk, MAX(seq) AS horizon FROM gone GROUP BY zone_pk) t
            WHERE z.pk = t.zone_pk
            """)
        try await run(
            """
            WITH gone AS (
                DELETE FROM zone_changes WHERE kind <> 0 AND changed_at < \(before) RETURNING container, scope, owner, seq
            )
            INSERT INTO databases(container, scope, owner, compacted_seq)
            SELECT container, scope, owner, MAX(seq) FROM gone GROUP BY container, scope, owner
            ON CONFLICT (container, scope, owner) DO UPDATE SET compacted_seq = GREATEST(databases.compacted_seq, excluded.compacted_seq)
            """)
        try await run(
            """
            WITH gone AS (DELETE FROM root_exits WHERE changed_at < \(before) RETURNING zone_pk, seq)
            UPDATE zones z SET compacted_seq = GREATEST(z.compacted_seq, t.horizon)
            FROM (SELECT zone_pk, MAX(seq) AS horizon FROM gone GROUP BY zone_pk) t
            WHERE z.pk = t.zone_pk
            """)
    }
}

import CloudModel
import Foundation
import Logging
import PostgresNIO
import PostgresTestSupport
import SQLiteDB
import TestSupport
import Testing

@testable import CloudServer

/// `todo server migrate`, its SQLite side: every table and column of the cloud is read, in pages that add up to the
/// whole, and a running cloud is refused.
@Suite("migrate: reading the SQLite cloud")
struct SQLiteCloudSourceTests {
    @Test func theCopiedTablesAreExactlyTheSQLiteCloudsTablesAndColumns() async throws {
        let directory = ScratchDirectory.path("source")
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await SQLiteCloudStore.open(directory: directory)
        // Read here, on the test's task: a test may block (see `SQLiteDatabase.allowBlocking`).
        try SQLiteDatabase.allowBlocking {
            let database = try SQLiteDatabase(path: directory.appendingPathComponent("cloud.sqlite").path, readOnly: true)
            let tables = try database.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name") { $0.text(0) }
            // counters travel as the sequence and the compaction floor, not as rows; record_locations is derived
            // from the records, and PostgreSQL's triggers fill it as they are copied.
            #expect(Set(tables) == Set(CloudTable.all.map(\.name) + ["counters", "record_locations"]))
            for table in CloudTable.all {
                let columns = try database.query("SELECT name, \"notnull\", pk FROM pragma_table_info(?1)", [.text(table.name)]) {
                    (name: $0.text(0), notNull: $0.int(1) != 0, key: $0.int(2))
                }
                #expect(columns.map(\.name).sorted() == table.columns.map(\.name).sorted(), "columns of \(table.name)")
                for column in columns {
                    let copied = table.columns.first { $0.name == column.name }
                    #expect(copied?.optional == !column.notNull || column.key > 0, "\(table.name).\(column.name) NULL-ability")
                }
                let key = columns.filter { $0.key > 0 }.sorted { $0.key < $1.key }.map(\.name)
                #expect(key == table.key, "primary key of \(table.name)")
            }
        }
    }

    @Test func pagesAfterTheLastKeyAddUpToEveryRowOnce() async throws {
        let directory = ScratchDirectory.path("source")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cloud = try await TestCloud(directory: directory)
        let device = try await cloud.signIn("pager")
        try await cloud.createTodosZone(device)
        for batch in 0..<3 {
            _ = try await cloud.modify(device, (0..<50).map { .init(.create, todo("r\(batch)-\($0)", "Row \($0)")) }, zone: todos)
        }
        _ = try await cloud.modify(device, [.init(.forceDelete, todo("r1-7", ""))], zone: todos)
        await cloud.server.shutdown()

        try SQLiteDatabase.allowBlocking {
            let source = try SQLiteCloudSource(directory: directory)
            defer { source.close() }
            let records = try #require(CloudTable.all.first { $0.name == "records" })
            var after: [SQLValue]?
            var keys: [[SQLValue]] = []
            while case let page = try source.rows(records, after: after, limit: 7), let last = page.last {
                keys += page.map { row in records.keyPositions.map { row[$0] } }
                after = records.keyPositions.map { last[$0] }
            }
            #expect(keys.count == 150)
            #expect(keys.count == (try source.count(records)))
            #expect(Set(keys.map { "\($0)" }).count == keys.count, "a row came twice")
            #expect(try source.sequence() >= 151)
        }
    }

    @Test func aRunningCloudIsRefusedAndNoneStartsWhileItIsRead() async throws {
        let directory = ScratchDirectory.path("source")
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await SQLiteCloudStore.open(directory: directory)
        try SQLiteDatabase.allowBlocking {
            let running = try ServerLockFile.acquire(in: directory)
            try running.publish(.init(pid: 4242, url: "http://127.0.0.1:8787", started: 0))
            #expect(throws: MigrationError.self) { try SQLiteCloudSource(directory: directory) }
            do {
                _ = try SQLiteCloudSource(directory: directory)
            } catch {
                #expect("\(error)".contains("is running (pid 4242"))
            }
            running.release()

            let source = try SQLiteCloudSource(directory: directory)
            #expect(throws: (any Error).self) { try ServerLockFile.acquire(in: directory) }
            source.close()
            try ServerLockFile.acquire(in: directory).release()
        }
    }

    @Test func aDirectoryWithoutACloudIsRefused() throws {
        let directory = ScratchDirectory.path("source")
        #expect(throws: MigrationError.self) { try SQLiteCloudSource(directory: directory) }
    }
}

/// `todo server migrate` into a real PostgreSQL: every row and identity a token or a session names arrives, every
/// feed counts on above the SQLite cloud's sequence, and a database that holds anything is refused.
@Suite("migrate: SQLite into PostgreSQL")
struct SQLiteToPostgresTests {
    @Test func rowsKeysAndFeedPositionsArriveAndEveryFeedContinuesAboveTheSQLiteSequence() async throws {
        try await PostgresTestDatabase.with { database in
            let directory = ScratchDirectory.path("move")
            defer { try? FileManager.default.removeItem(at: directory) }
            let cloud = try await TestCloud(directory: directory)
            let amy = try await cloud.signIn("amy")
            let ben = try await cloud.signIn("ben", device: "phone")
            try await cloud.createTodosZone(amy)
            try await cloud.createTodosZone(ben)
            for batch in 0..<3 {
                _ = try await cloud.modify(amy, (0..<100).map { .init(.create, todo("a\(batch)-\($0)", "Amy \($0)")) }, zone: todos)
            }
            _ = try await cloud.modify(amy, [.init(.forceDelete, todo("a0-0", ""))], zone: todos)
            _ = try await cloud.modify(ben, [.init(.create, todo("b-1", "Ben"))], zone: todos)
            try await cloud.subscribe(amy)
            _ = try await cloud.registerPush(amy)
            await cloud.server.shutdown()

            let (sequence, zoneKeys) = try SQLiteDatabase.allowBlocking {
                let source = try SQLiteCloudSource(directory: directory)
                defer { source.close() }
                return (try source.sequence(), try source.rows(CloudTable.all.first { $0.name == "zones" }!, after: nil, limit: 100).map { $0[0] })
            }

            let summary = try await SQLiteToPostgres.migrate(from: directory, databaseURL: database.url)
            #expect(summary.count("records") == 301)
            #expect(summary.count("users") == 2)
            #expect(summary.sequence == sequence)

            try await Self.query(database) { connection, logger in
                let zones = try await connection.query("SELECT pk, seq FROM zones ORDER BY pk", logger: logger)
                var keys: [SQLValue] = []
                for try await (pk, seq) in zones.decode((Int64, Int64).self) {
                    keys.append(.int(pk))
                    #expect(seq == sequence, "zone \(pk) counts on from \(seq)")
                }
                #expect(keys == zoneKeys)
                let databases = try await connection.query(
                    "SELECT count(*), min(seq) FROM databases WHERE container LIKE '%development'", logger: logger)
                for try await (count, lowest) in databases.decode((Int64, Int64).self) {
                    // amy's and ben's private and shared databases, and the public one.
                    #expect(count == 5)
                    #expect(lowest == sequence)
                }
                let records = try await connection.query(
                    "SELECT count(*), count(*) FILTER (WHERE deleted), max(seq) FROM records", logger: logger)
                for try await (count, tombstones, highest) in records.decode((Int64, Int64, Int64).self) {
                    #expect(count == 301)
                    #expect(tombstones == 1)
                    #expect(highest <= sequence)
                }
                let sessions = try await connection.query("SELECT count(*) FROM sessions", logger: logger)
                for try await count in sessions.decode(Int64.self) { #expect(count == 2) }
                // A zone made now takes a key no copied zone has.
                let made = try await connection.query(
                    "INSERT INTO zones(container, scope, owner, name) VALUES ('c/development', 'private', 'x', 'New') RETURNING pk",
                    logger: logger)
                for try await pk in made.decode(Int64.self) { #expect(!keys.contains(.int(pk))) }
            }

            await #expect(throws: MigrationError.self) { _ = try await SQLiteToPostgres.migrate(from: directory, databaseURL: database.url) }
        }
    }

    @Test func aDeviceThatSyncedAgainstSQLiteGoesOnFromItsTokensAndGetsOnlyWhatChangedSince() async throws {
        try await PostgresTestDatabase.with { database in
            let directory = ScratchDirectory.path("move")
            defer { try? FileManager.default.removeItem(at: directory) }
            let sqlite = try await TestCloud(directory: directory)
            let laptop = try await sqlite.signIn("amy")
            let phone = try await sqlite.signIn("amy", device: "phone")
            try await sqlite.createTodosZone(laptop)
            _ = try await sqlite.modify(laptop, (0..<50).map { .init(.create, todo("t\($0)", "Before \($0)")) }, zone: todos)
            // The phone syncs to the end of both feeds on the SQLite cloud.
            let databaseBefore: DatabaseChangesResponse = try await sqlite.post(.private, "changes/database", DatabaseChangesRequest(), token: phone.token)
            #expect(databaseBefore.zones.map(\.zoneID.zoneName) == ["Todos"])
            let zoneBefore: ZoneChangesResponse = try await sqlite.post(
                .private, "changes/zone", ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: todos)]), token: phone.token)
            let before = try #require(zoneBefore.zones.first)
            #expect(before.records.count == 50 && !before.moreComing)
            let zoneToken = try #require(before.syncToken)
            await sqlite.server.shutdown()

            _ = try await SQLiteToPostgres.migrate(from: directory, databaseURL: database.url)
            let cloud = try await TestCloud(storage: .postgres(database.url))
            do {
                try await Self.goOn(cloud, laptop: laptop, phone: phone, before: before, zoneToken: zoneToken, databaseToken: databaseBefore.syncToken)
            } catch {
                await cloud.close()
                throw error
            }
            await cloud.close()
        }
    }

    /// On the PostgreSQL cloud: the laptop writes with its old session, the phone fetches with its SQLite tokens.
    private static func goOn(
        _ cloud: TestCloud, laptop: Device, phone: Device, before: ZoneChanges, zoneToken: ChangeToken, databaseToken: ChangeToken
    ) async throws {
        // Sessions came along: the laptop writes on the PostgreSQL cloud without signing in again.
        let old = try #require(before.records.first { $0.recordName == "t7" })
        _ = try await cloud.modify(
            laptop,
            [
                .init(.create, todo("after-1", "After 1")), .init(.create, todo("after-2", "After 2")),
                .init(.update, todo("t7", "Edited after the move", tag: old.recordChangeTag)),
                .init(.forceDelete, todo("t9", "")),
            ], zone: todos)

        // The phone's SQLite tokens: only what changed since, nothing from before, no expiry.
        let zoneAfter: ZoneChangesResponse = try await cloud.post(
            .private, "changes/zone", ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: todos, syncToken: zoneToken)]), token: phone.token)
        let after = try #require(zoneAfter.zones.first)
        #expect(after.serverErrorCode == nil, "\(after.reason ?? "")")
        #expect(Set(after.records.map(\.recordName)) == ["after-1", "after-2", "t7", "t9"])
        #expect(after.records.first { $0.recordName == "t9" }?.deleted == true)
        let databaseAfter: DatabaseChangesResponse = try await cloud.post(
            .private, "changes/database", DatabaseChangesRequest(syncToken: databaseToken), token: phone.token)
        #expect(databaseAfter.zones.map(\.zoneID.zoneName) == ["Todos"])
        // And from the newest tokens, nothing more.
        let settled: ZoneChangesResponse = try await cloud.post(
            .private, "changes/zone", ZoneChangesRequest(zones: [ZoneChangesQuery(zoneID: todos, syncToken: after.syncToken)]), token: phone.token)
        #expect(settled.zones.first?.records.isEmpty == true)
    }

    @Test func aCopyThatFailsHalfWayLeavesTheDatabaseEmptyAndASecondRunCopiesEverything() async throws {
        try await PostgresTestDatabase.with { database in
            let directory = ScratchDirectory.path("move")
            defer { try? FileManager.default.removeItem(at: directory) }
            let cloud = try await TestCloud(directory: directory)
            let amy = try await cloud.signIn("amy")
            try await cloud.createTodosZone(amy)
            _ = try await cloud.modify(amy, (0..<150).map { .init(.create, todo("a\($0)", "Amy \($0)")) }, zone: todos)
            await cloud.server.shutdown()

            // The schema as the real migration makes it, then a trigger that refuses the 100th record mid-copy
            // (after users, sessions and zones went in).
            let failing = try await #require(throws: MigrationError.self) {
                _ = try await SQLiteToPostgres.migrate(
                    from: directory, to: try database.url.connectionConfiguration(), target: database.url.description,
                    prepareSchema: { connection, logger in
                        try await PostgresSchema.migrate(connection, logger: logger)
                        try await connection.query(
                            """
                            CREATE FUNCTION refuse_late_records() RETURNS trigger LANGUAGE plpgsql AS $$
                            BEGIN
                                IF (SELECT count(*) FROM records) >= 99 THEN RAISE EXCEPTION 'disk trouble (test)'; END IF;
                                RETURN NEW;
                            END $$
                            """, logger: logger)
                        try await connection.query(
                            "CREATE TRIGGER refuse_late BEFORE INSERT ON records FOR EACH ROW EXECUTE FUNCTION refuse_late_records()",
                            logger: logger)
                    }, progress: { _ in })
            }
            #expect(failing.description.contains("nothing was kept"), "\(failing)")
            try await Self.query(database) { connection, logger in
                for table in ["users", "sessions", "zones", "records", "databases"] {
                    let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(table)"), logger: logger)
                    for try await count in rows.decode(Int64.self) { #expect(count == 0, "\(table) kept \(count) rows of the failed copy") }
                }
                try await connection.query("DROP TRIGGER refuse_late ON records", logger: logger)
            }

            // The database is as the failed run found it: the next run is accepted and copies everything.
            let summary = try await SQLiteToPostgres.migrate(from: directory, databaseURL: database.url)
            #expect(summary.count("records") == 150)
            #expect(summary.count("users") == 1)
        }
    }

    private static func query(_ database: PostgresTestDatabase, _ body: (PostgresConnection, Logger) async throws -> Void) async throws {
        let logger = Logger(label: "cloudtodo.test.migrate")
        let connection = try await PostgresConnection.connect(configuration: try database.url.connectionConfiguration(), id: 1, logger: logger)
        do {
            try await body(connection, logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }
}

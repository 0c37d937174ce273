import CloudModel
import Foundation
import SQLiteDB
import Testing

@testable import CloudServer

/// `todo server migrate`, its SQLite side: every table and column of the cloud is read, in pages that add up to the
/// whole, and a running cloud is refused.
@Suite("migrate: reading the SQLite cloud")
struct SQLiteCloudSourceTests {
    @Test func theCopiedTablesAreExactlyTheSQLiteCloudsTablesAndColumns() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cloudtodo-source-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try SQLiteCloudStore(directory: directory)
        let database = try SQLiteDatabase(path: directory.appendingPathComponent("cloud.sqlite").path, readOnly: true)
        let tables = try database.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name") { $0.text(0) }
        // counters travel as the sequence and the compaction floor, not as rows.
        #expect(Set(tables) == Set(CloudTable.all.map(\.name) + ["counters"]))
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

    @Test func pagesAfterTheLastKeyAddUpToEveryRowOnce() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cloudtodo-source-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cloud = try await TestCloud(directory: directory)
        let device = try await cloud.signIn("pager")
        try await cloud.createTodosZone(device)
        for batch in 0..<3 {
            _ = try await cloud.modify(device, (0..<50).map { .init(.create, todo("r\(batch)-\($0)", "Row \($0)")) }, zone: todos)
        }
        _ = try await cloud.modify(device, [.init(.forceDelete, todo("r1-7", ""))], zone: todos)
        await cloud.server.shutdown()

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

    @Test func aRunningCloudIsRefusedAndNoneStartsWhileItIsRead() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cloudtodo-source-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try SQLiteCloudStore(directory: directory)
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

    @Test func aDirectoryWithoutACloudIsRefused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cloudtodo-source-\(UUID().uuidString)")
        #expect(throws: MigrationError.self) { try SQLiteCloudSource(directory: directory) }
    }
}

import Foundation
import SQLiteDB
import TestSupport
import Testing
import TodoStore

@Suite("WAL checkpoints", .onThreadOfItsOwn) struct CheckpointTests {
    static func size(_ path: String) -> Int? { (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int }

    @Test func closingLeavesTheFileWholeAndNoWAL() async throws {
        try await withTemporaryStore { first, url in
            await first.close()
            let notes = String(repeating: "n", count: 2_000)
            // Each round leaves more than the 1,000 pages after which the background thread checkpoints, and closes
            // at once: often while that thread is still copying.
            for round in 0..<3 {
                let store = try await TodoStore(url: url)
                let items = (0..<1_500).map { TodoItem(key: .privateTodo("r\(round)-\($0)"), title: "t", notes: notes) }
                try await store.saveLocalEdits(items, at: 1)
                await store.close()
                #expect(Self.size(url.path + "-wal") == nil, "round \(round): the WAL was left behind")
                // Readable without the WAL: everything is in the file itself.
                let count = try SQLiteDatabase.allowBlocking {
                    try SQLiteDatabase(path: url.path, readOnly: true).first("SELECT count(*) FROM records") { $0.int(0) }
                }
                #expect(count == Int64(1_500 * (round + 1)))
            }
        }
    }

    /// A WAL database with one table `t (id, body)` in a directory of its own, checkpointed in the background every
    /// `pages` pages after `quietPeriod` seconds without writes; removed after `body`, which runs on a thread of its own
    /// (SQLite may block there).
    private func withWALTable(
        everyPages pages: Int32, quietPeriod: Double, _ body: (SQLiteDatabase, _ path: String) async throws -> Void
    ) async throws {
        let directory = ScratchDirectory.make("wal")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("wal.sqlite").path
        let thread = ThreadTaskExecutor(name: "wal-test")
        defer { thread.stop() }
        try await withTaskExecutorPreference(thread) {
            let database = try SQLiteDatabase(path: path)
            try database.configureForDurableWAL()
            try database.checkpointInBackground(everyPages: pages, quietPeriod: quietPeriod)
            try database.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            try await body(database, path)
        }
    }

    @Test func aQuietPeriodHoldsTheCheckpointUntilTheWritesPause() async throws {
        let quiet = 1.0
        try await withWALTable(everyPages: 20, quietPeriod: quiet) { database, path in
            let before = try #require(Self.size(path))
            // A burst past the 20 pages a checkpoint waits for (but short of the 80 that would press for one).
            let body = String(repeating: "b", count: 3_000)
            // The burst's commits come one after another; the checkpointer is woken by each (past 20 pages) and must
            // hold off while they come. A machine so loaded that it stalled a whole quiet period between two commits
            // may rightly have checkpointed between them: the gap is read (not asserted) to tell.
            var longestGap = 0.0
            var lastStart = Date()
            for index in 0..<16 {
                let start = Date()
                if index > 0 { longestGap = max(longestGap, start.timeIntervalSince(lastStart)) }
                lastStart = start
                try database.run("INSERT INTO t (id, body) VALUES (?1, ?2)", [.int(Int64(index)), .text(body)])
            }
            #expect(try #require(Self.size(path + "-wal")) > 20 * 4_096)
            if longestGap < quiet * 0.9 {
                #expect(Self.size(path) == before, "no checkpoint while the writes come")
            }
            // Then the pause ends the hold: the copy comes without another write or a request.
            let copied = await eventually { (Self.size(path) ?? 0) > before + 16 * 3_000 }
            #expect(copied, "checkpointed after the pause: \(Self.size(path) ?? 0) bytes, \(before) before")
        }
    }

    @Test func checkpointSoonCopiesABurstAtOnceAndLeavesASmallWALAlone() async throws {
        // A quiet period longer than the test: only `checkpointSoon` can make the copy happen now.
        try await withWALTable(everyPages: 1_000, quietPeriod: 60) { database, path in
            let before = try #require(Self.size(path))
            // A few pages: asked to, it still waits (an fsync per small send is not worth it).
            try database.run("INSERT INTO t (id, body) VALUES (1, 'small')")
            database.checkpointSoon(minimumPages: 64)
            // Absence has no event: the file stays as it was for a span the asked-for copy would have needed.
            #expect(await holdsThroughout(0.3) { Self.size(path) == before }, "a WAL of a few pages is left for later")
            // A burst of about 150 pages, below the 1,000 the thread waits for: copied at once when asked.
            let body = String(repeating: "b", count: 3_500)
            for index in 2..<152 { try database.run("INSERT INTO t (id, body) VALUES (?1, ?2)", [.int(Int64(index)), .text(body)]) }
            database.checkpointSoon(minimumPages: 64)
            // The quiet period is a minute: a copy before it can only be the one asked for. The file grows page by
            // page while the copy runs, so the wait is for the whole burst, not the first page of it.
            let copied = await eventually { (Self.size(path) ?? 0) > before + 150 * 3_500 }
            #expect(copied, "the burst was copied into the file: \(Self.size(path) ?? 0) bytes, \(before) before")
        }
    }
}

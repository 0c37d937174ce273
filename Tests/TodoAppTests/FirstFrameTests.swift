import CloudModel
import Foundation
import TestSupport
import Testing
import TodoApp
import TodoStore
import TodoSync
import TodoUI

/// The app's first frames: the cache read in chunks before any network, each chunk posted as it comes.
@Suite("First frames from the cache")
struct FirstFrameTests {
    /// Options for a device whose cache and kept session live in a fresh directory (the cloud is never asked).
    static func options() throws -> DeviceOptions {
        let directory = ScratchDirectory.path("firstframe")
        let options = DeviceOptions(
            account: "alice", device: "laptop", server: URL(string: "http://127.0.0.1:9"), dataDirectory: directory,
            startsLocalServer: false)
        let session: [String: String] = [
            "server": options.server.absoluteString, "account": "alice", "deviceName": "laptop", "userRecordName": "_alice",
            "deviceID": "device-1", "ckWebAuthToken": "token",
        ]
        try FileManager.default.createDirectory(at: options.credentialsFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: session).write(to: options.credentialsFile)
        return options
    }

    @Test func rowsAreReadInTakesSortedOffTheKeyLoopThenTheLoadingLineGoes() async throws {
        let options = try Self.options()
        defer { try? FileManager.default.removeItem(at: options.resolvedDataDirectory) }
        let store = try await TodoStore(url: options.cacheFile)
        let items = (0..<2_345).map { TodoItem(key: .privateTodo(String(format: "todo-%05d", $0)), title: "Todo \($0)", priority: $0 % 4) }
        try await store.addLocalRecords(items, at: 1_790_000_000_000)
        await store.close()

        let inbox = UpdateInbox()
        let context = await TerminalApp.loadCachedRows(options, into: inbox, firstChunk: 100, laterChunk: 1_000)
        #expect(context != nil, "the rows' context, for the connected engine's reader")
        var state = AppState(status: SyncStatus(account: "alice", device: "laptop", connection: .connecting))
        state.showLoading(TodoUI.FetchProgress(fetched: 0))
        var loaded: [Int] = []
        var progress: [TodoUI.FetchProgress?] = []
        var order: [String] = []
        for update in inbox.drain() {
            switch update {
            case .loaded(let rows, _):
                loaded.append(rows.count)
                order.append("rows")
            case .loading(let value):
                progress.append(value)
                order.append(value == nil ? "done" : "progress")
            default:
                Issue.record("the loader posts rows and progress only")
            }
            state.receive(update)
        }
        // The first take's rows were posted too, but the inbox keeps only the newest rows still waiting to be drained.
        #expect(loaded == [2_345], "every row read, sorted, swapped in whole")
        #expect(progress.dropLast().map { $0?.fetched } == [100, 1_100, 2_100, 2_345], "counted take by take")
        #expect(progress.dropLast(2).allSatisfy { $0?.total == 2_345 })
        #expect(order == ["progress", "progress", "progress", "progress", "rows", "done"],
                "the header says all are read before they are sorted, and the loading line goes once they are in")
        #expect(progress.last.map { $0 == nil } == true, "the last update ends the loading line")
        #expect(state.loading == nil)
        #expect(state.rows(in: .todos).count == 2_345)
        #expect(Set(state.rows(in: .todos).map(\.id)).count == 2_345)
        #expect(state.selection == 0 && state.selectedRow?.id == state.rows(in: .todos).first?.id)
    }

    @Test func noCacheMeansNothingToLoad() async throws {
        let options = try Self.options()
        defer { try? FileManager.default.removeItem(at: options.resolvedDataDirectory) }
        let inbox = UpdateInbox()
        #expect(await TerminalApp.loadCachedRows(options, into: inbox) == nil)
        let updates = inbox.drain()
        #expect(updates.count == 1)
        if case .loading(let value)? = updates.first { #expect(value == nil) } else { Issue.record("expected the end of loading") }
    }
}

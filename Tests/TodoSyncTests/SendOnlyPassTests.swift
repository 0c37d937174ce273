import CloudClient
import CloudModel
import Foundation
import TestSupport
import Testing
import TodoStore
import TodoSync

/// A pass that only has something to send (`todo import`, an edit in the app) goes straight to `records/modify`: no
/// account check, feed fetch, board poll or invitations read waits in front of its requests, counted at the device's
/// transport.
@Suite("A pass that only sends")
struct SendOnlyPassTests {
    @Test func anImportIsSentWithoutAFetchBeforeIt() async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let device = try await cloud.device("laptop", sendsAutomatically: false)
        // More than two requests' worth, imported in one transaction as `todo import` does.
        let todos = (0..<450).map { NewTodo(title: "Imported \($0)") }
        _ = try await device.engine.importTodos(todos)
        let before = device.transport.sentPaths.count
        await device.engine.sync(.localEdit)
        let spent = Array(device.transport.sentPaths.dropFirst(before))
        #expect(spent.count == 3, "\(spent)")
        #expect(spent.allSatisfy { $0.hasSuffix("records/modify") }, "\(spent)")
        #expect(try await device.store.pendingCount() == 0)
    }

    @Test func aRefreshWithNothingToSendStillFetches() async throws {
        let cloud = try await TestCloud.start()
        defer { Task { await cloud.shutdown() } }
        let device = try await cloud.device("laptop", sendsAutomatically: false)
        let before = device.transport.sentPaths.count
        await device.engine.sync(.manualRefresh)
        let spent = Array(device.transport.sentPaths.dropFirst(before))
        #expect(spent.contains { $0.hasSuffix("changes/database") }, "\(spent)")
        #expect(!spent.contains { $0.hasSuffix("records/modify") }, "\(spent)")
    }
}

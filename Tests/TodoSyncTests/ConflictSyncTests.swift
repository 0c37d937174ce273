import CloudModel
import Foundation
import TestSupport
import Testing
import TodoStore
import TodoSync

/// One row of the conflict table: what the earlier and the later edit do, who syncs first, and how the clocks are off.
struct ConflictCase: Sendable, CustomTestStringConvertible {
    enum Kind: String, Sendable, CaseIterable {
        case sameField, differentFields, trashThenEdit, editThenTrash
    }

    var kind: Kind
    var laterSyncsFirst: Bool
    /// Seconds the clocks of the earlier and the later editor are off.
    var skews: (earlier: Double, later: Double)

    var testDescription: String {
        "\(kind.rawValue), \(laterSyncsFirst ? "later" : "earlier") edit syncs first, clocks \(Int(skews.earlier))s / \(Int(skews.later))s"
    }

    static let table: [ConflictCase] = Kind.allCases.flatMap { kind in
        [false, true].flatMap { laterFirst in
            [(600.0, -600.0), (-600.0, 600.0)].map { ConflictCase(kind: kind, laterSyncsFirst: laterFirst, skews: $0) }
        }
    }
}

@Suite("Conflicts decided by when people edited, on three devices through the real cloud")
struct ConflictSyncTests {
    /// Device A edits, then device B edits the same todo 1.5 s later by its own clock (advanced, not waited for),
    /// both before syncing; they sync in the case's order; C only watches. Every device must end with the later edit, and the loser must be told.
    @Test(arguments: ConflictCase.table) func theLaterEditWinsEverywhere(_ row: ConflictCase) async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A", sendsAutomatically: false, clockSkew: row.skews.earlier)
        let b = try await cloud.device("B", sendsAutomatically: false, clockSkew: row.skews.later)
        let c = try await cloud.device("C", sendsAutomatically: false)
        let key = try await a.engine.add(title: "Milk", priority: 0).key
        await a.engine.sync(.localEdit)
        await b.engine.sync(.manualRefresh)
        await c.engine.sync(.manualRefresh)
        #expect(try await b.store.todo(key)?.title == "Milk")

        switch row.kind {
        case .sameField:
            try await a.engine.edit(key, TodoEdit(priority: 1))
            b.clock.advance(by: 1.5)
            try await b.engine.edit(key, TodoEdit(priority: 3))
        case .differentFields:
            try await a.engine.edit(key, TodoEdit(title: "Oat milk"))
            b.clock.advance(by: 1.5)
            try await b.engine.edit(key, TodoEdit(priority: 2))
        case .trashThenEdit:
            #expect(try await a.engine.trash(key) == .delete)
            b.clock.advance(by: 1.5)
            try await b.engine.edit(key, TodoEdit(title: "Oat milk"))
        case .editThenTrash:
            try await a.engine.edit(key, TodoEdit(title: "Oat milk"))
            b.clock.advance(by: 1.5)
            #expect(try await b.engine.trash(key) == .delete)
        }
        let order = row.laterSyncsFirst ? [b, a] : [a, b]
        for device in order { await device.engine.sync(.manualRefresh) }
        for device in [a, b, c, a, b, c] { await device.engine.sync(.manualRefresh) }

        var seen: [String] = []
        for device in [a, b, c] {
            #expect(try await device.store.pendingCount() == 0, "\(device.name) sent everything")
            let item = try #require(try await device.store.todo(key))
            seen.append("\(item.title)|\(item.priority)|\(item.isTrashed)|\(item.system.changeTag ?? "-")")
            switch row.kind {
            case .sameField: #expect(item.priority == 3, "\(device.name)")
            case .differentFields: #expect(item.title == "Oat milk" && item.priority == 2, "\(device.name)")
            case .trashThenEdit: #expect(!item.isTrashed && item.title == "Oat milk", "\(device.name)")
            case .editThenTrash: #expect(item.isTrashed && item.title == "Oat milk", "\(device.name)")
            }
        }
        #expect(Set(seen).count == 1, "the three devices agree: \(seen)")

        // The loser's notice: on A as its own loss, on B and C as a loss elsewhere; none when nothing was lost.
        for device in [a, b, c] {
            let notices = try await device.engine.conflicts()
            if row.kind == .differentFields {
                #expect(notices.isEmpty, "\(device.name): \(notices.map(\.sentence))")
                continue
            }
            let notice = try #require(notices.first, "\(device.name) shows the loss")
            #expect(notices.count == 1)
            #expect(notice.isMine == (device.name == "A"), "\(device.name): \(notice.sentence)")
            #expect(notice.key == key)
            switch row.kind {
            case .sameField:
                #expect(notice.edit.field == "priority" && notice.edit.lost == .int64(1) && notice.edit.won == .int64(3))
                #expect(
                    notice.sentence
                        == (device.name == "A" ? "'Milk': your priority 1 lost to 3, set later on another device" : "'Milk': priority 1 lost to 3, set later"))
            case .trashThenEdit:
                #expect(notice.edit.field == "isTrashed" && notice.edit.lost == .int64(1))
                #expect(notice.sentence.hasPrefix("'Oat milk': \(device.name == "A" ? "your" : "a") trash lost to a later edit"))
            case .editThenTrash:
                #expect(notice.edit.field == "isTrashed" && notice.edit.lost == .int64(0))
            case .differentFields:
                break
            }
        }
        await cloud.shutdown()
    }

    /// Two devices of one account that both hold the todo "Milk", sending only when told.
    static func milkOnTwoDevices() async throws -> (TestCloud, TestDevice, TestDevice, RecordKey) {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A", sendsAutomatically: false)
        let b = try await cloud.device("B", sendsAutomatically: false)
        let key = try await a.engine.add(title: "Milk").key
        await a.engine.sync(.localEdit)
        await b.engine.sync(.manualRefresh)
        return (cloud, a, b, key)
    }

    @Test func theLosingSideRestoresItsValueAndEveryDeviceSeesItResolved() async throws {
        let (cloud, a, b, key) = try await Self.milkOnTwoDevices()
        try await a.engine.edit(key, TodoEdit(priority: 1))
        b.clock.advance(by: 1.2)
        try await b.engine.edit(key, TodoEdit(priority: 3))
        await b.engine.sync(.manualRefresh)
        await a.engine.sync(.manualRefresh)  // A conflicts, loses, and keeps its value in the record
        #expect(try await a.store.todo(key)?.priority == 3)
        let unannounced = try await a.engine.conflicts(unannounced: true)
        #expect(unannounced.count == 1 && unannounced.first?.isMine == true)
        try await a.engine.markAnnounced(unannounced)
        #expect(try await a.engine.conflicts(unannounced: true).isEmpty)
        #expect(try await a.engine.conflicts().count == 1)

        try await a.engine.restore(try #require(unannounced.first))
        await a.engine.sync(.manualRefresh)
        await b.engine.sync(.manualRefresh)
        for device in [a, b] {
            #expect(try await device.store.todo(key)?.priority == 1, "\(device.name) has the restored value")
            #expect(try await device.engine.conflicts().isEmpty, "\(device.name) lists it no more")
        }
        await cloud.shutdown()
    }

    @Test func anEditOfATodoTrashedElsewhereBringsItBack() async throws {
        let (cloud, a, b, key) = try await Self.milkOnTwoDevices()
        #expect(try await b.engine.trash(key) == .delete)
        await b.engine.sync(.manualRefresh)
        await a.engine.sync(.manualRefresh)
        #expect(try await a.titles().isEmpty)
        // A's form was open on it: saving is the later action.
        try await a.engine.edit(key, TodoEdit(title: "Oat milk"))
        await a.engine.sync(.manualRefresh)
        await b.engine.sync(.manualRefresh)
        for device in [a, b] { #expect(try await device.titles() == ["Oat milk"], "\(device.name)") }
        await cloud.shutdown()
    }
}

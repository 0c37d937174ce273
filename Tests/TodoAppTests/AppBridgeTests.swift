import CloudModel
import Foundation
import Testing
import TodoApp
import TodoStore
import TodoSync
import TodoUI

@Suite("Sync snapshot → UI rows")
struct AppBridgeTests {
    @Test func rowIDsRoundTripEveryKey() {
        let keys = [
            RecordKey.privateTodo("a/b c"), RecordKey.publicRecord("牛奶-1"),
            RecordKey(scope: .shared, zoneName: "Todos", zoneOwner: "_owner", recordName: "x|y"),
        ]
        for key in keys { #expect(AppBridge.recordKey(AppBridge.rowID(key)) == key) }
        #expect(AppBridge.recordKey("plain-uuid") == .privateTodo("plain-uuid"))
        #expect(AppBridge.recordKey("") == nil)
        // A private and a public record of the same name stay apart.
        #expect(AppBridge.rowID(.privateTodo("same")) != AppBridge.rowID(.publicRecord("same")))
    }

    @Test func permissionsReachTheRows() {
        var snapshot = SyncSnapshot(deviceName: "laptop")
        snapshot.connection = .online
        snapshot.account = "alice"
        snapshot.permissionContext = PermissionContext(isSignedIn: true, userRecordName: "_alice")
        var own = TodoItem(key: .privateTodo("mine"), title: "Mine")
        own.system = SystemFields(changeTag: "1", created: RecordStamp(timestamp: 1, userRecordName: "_alice"))
        var board = TodoItem(key: .publicRecord("board-mine"), title: "Board, mine")
        board.system = SystemFields(changeTag: "2", created: RecordStamp(timestamp: 1, userRecordName: "_alice"))
        var others = TodoItem(key: .publicRecord("board-bob"), title: "Board, Bob's")
        others.system = SystemFields(changeTag: "3", created: RecordStamp(timestamp: 1, userRecordName: "_bob"))
        let context = RowContext(permissions: snapshot.permissionContext, hidesPrivateData: false)
        let rows = Dictionary(uniqueKeysWithValues: [own, board, others].compactMap { AppBridge.row($0, context) }.map { ($0.title, $0) })
        #expect(rows["Mine"]?.trashBehaviour == .delete)
        #expect(rows["Mine"]?.canUpdate == true)
        #expect(rows["Board, mine"]?.trashBehaviour == .markTrashed)
        #expect(rows["Board, mine"]?.canDelete == false)
        #expect(rows["Board, Bob's"]?.canUpdate == false)
        #expect(rows["Board, Bob's"]?.lockReason?.isEmpty == false)
        if case .refuse(let reason)? = rows["Board, Bob's"]?.trashBehaviour {
            #expect(!reason.isEmpty)
        } else {
            Issue.record("someone else's public record must refuse trash")
        }
        #expect(AppBridge.status(from: snapshot).connection == .online)
    }
}

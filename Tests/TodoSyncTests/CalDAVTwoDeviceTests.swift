import CloudClient
import CloudModel
import CloudServer
import Foundation
import TestSupport
import Testing
import TodoStore
import TodoSync

/// Two devices and a phone on CalDAV, one account, one real cloud: a todo completed through CalDAV is shown done on
/// both open devices by push, and an edit on a device is what the phone's next sync-collection returns.
@Suite("Two devices and CalDAV", .serialized) struct CalDAVTwoDeviceTests {
    @Test func aCompletionThroughCalDAVReachesBothDevicesAndADeviceEditIsTheNextSync() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A", listen: true)
        let b = try await cloud.device("B", listen: true)
        let created = try await a.engine.add(title: "Water the plants", priority: 2)
        await a.engine.waitUntilIdle()
        #expect(try await eventually { try await b.store.todo(created.key)?.title == "Water the plants" })
        let phone = CalDAVPhone(baseURL: cloud.baseURL, account: "alice", password: try await a.client.createAppPassword(label: "phone").password)
        func sync(_ token: String) async throws -> (hrefs: [String], text: String, token: String) {
            let answer = try await phone.sync(token: token)
            #expect(answer.status == 207)
            return (answer.hrefs, answer.text, answer.token)
        }

        let first = try await sync("")
        let href = "/dav/calendars/alice/todos/\(created.key.recordName).ics"
        #expect(first.hrefs == [href])
        #expect(first.text.contains("SUMMARY:Water the plants"))

        // The phone ticks it off.
        let current = try await phone.request("GET", href)
        let done = current.text.replacingOccurrences(of: "STATUS:NEEDS-ACTION", with: "STATUS:COMPLETED\r\nPERCENT-COMPLETE:100")
        let put = try await phone.request("PUT", href, done, headers: ["If-Match": try #require(current.etag)])
        #expect(put.status == 204)
        #expect(try await eventually { try await a.store.todo(created.key)?.isCompleted == true })
        #expect(try await eventually { try await b.store.todo(created.key)?.isCompleted == true })
        let afterPhone = try await sync(first.token)
        #expect(afterPhone.hrefs == [href])

        // A device renames it: exactly that is what the phone's next sync brings.
        try await b.engine.edit(created.key, TodoEdit(title: "Water the plants and the herbs"))
        await b.engine.waitUntilIdle()
        let next = try await sync(afterPhone.token)
        #expect(next.hrefs == [href])
        #expect(next.text.contains("SUMMARY:Water the plants and the herbs"))
        #expect(next.text.contains("STATUS:COMPLETED"))
        let unchanged = try await sync(next.token)
        #expect(unchanged.hrefs.isEmpty)
        #expect(unchanged.token == next.token)

        await a.engine.stop()
        await b.engine.stop()
        await cloud.shutdown()
    }
}

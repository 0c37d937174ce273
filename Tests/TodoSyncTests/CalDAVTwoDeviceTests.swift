import CloudClient
import CloudModel
import CloudServer
import Foundation
import TestSupport
import Testing
import TodoStore
import TodoSync

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Two devices and a phone on CalDAV, one account, one real cloud: a todo completed through CalDAV is shown done on
/// both open devices by push, and an edit on a device is what the phone's next sync-collection returns.
@Suite("Two devices and CalDAV", .serialized) struct CalDAVTwoDeviceTests {
    /// One CalDAV request as the phone sends it; status, body, ETag.
    static func dav(_ cloud: TestCloud, _ method: String, _ path: String, _ body: String?, password: String, headers: [String: String] = [:])
        async throws -> (status: Int, text: String, etag: String?)
    {
        var request = URLRequest(url: URL(string: cloud.baseURL.absoluteString + path)!)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        request.setValue(method == "PUT" ? "text/calendar" : "application/xml", forHTTPHeaderField: "Content-Type")
        request.setValue("Basic " + Data("alice:\(password)".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        return (http.statusCode, String(decoding: data, as: UTF8.self), http.value(forHTTPHeaderField: "ETag"))
    }

    static func sync(_ cloud: TestCloud, token: String, password: String) async throws -> (hrefs: [String], text: String, token: String) {
        let body = """
            <d:sync-collection xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:sync-token>\(token)</d:sync-token>\
            <d:sync-level>1</d:sync-level><d:prop><d:getetag/><c:calendar-data/></d:prop></d:sync-collection>
            """
        let answer = try await dav(cloud, "REPORT", "/dav/calendars/alice/todos/", body, password: password)
        #expect(answer.status == 207)
        func between(_ open: String, _ close: String) -> [String] {
            answer.text.components(separatedBy: open).dropFirst().compactMap { $0.components(separatedBy: close).first }
        }
        return (between("<d:href>", "</d:href>"), answer.text, between("<d:sync-token>", "</d:sync-token>").first ?? "")
    }

    @Test func aCompletionThroughCalDAVReachesBothDevicesAndADeviceEditIsTheNextSync() async throws {
        let cloud = try await TestCloud.start()
        let a = try await cloud.device("A", listen: true)
        let b = try await cloud.device("B", listen: true)
        let created = try await a.engine.add(title: "Water the plants", priority: 2)
        await a.engine.waitUntilIdle()
        #expect(try await eventually { try await b.store.todo(created.key)?.title == "Water the plants" })
        let password = try await a.client.createAppPassword(label: "phone").password

        let first = try await Self.sync(cloud, token: "", password: password)
        let href = "/dav/calendars/alice/todos/\(created.key.recordName).ics"
        #expect(first.hrefs == [href])
        #expect(first.text.contains("SUMMARY:Water the plants"))

        // The phone ticks it off.
        let current = try await Self.dav(cloud, "GET", href, nil, password: password)
        let done = current.text.replacingOccurrences(of: "STATUS:NEEDS-ACTION", with: "STATUS:COMPLETED\r\nPERCENT-COMPLETE:100")
        let put = try await Self.dav(cloud, "PUT", href, done, password: password, headers: ["If-Match": try #require(current.etag)])
        #expect(put.status == 204)
        #expect(try await eventually { try await a.store.todo(created.key)?.isCompleted == true })
        #expect(try await eventually { try await b.store.todo(created.key)?.isCompleted == true })
        let afterPhone = try await Self.sync(cloud, token: first.token, password: password)
        #expect(afterPhone.hrefs == [href])

        // A device renames it: exactly that is what the phone's next sync brings.
        try await b.engine.edit(created.key, TodoEdit(title: "Water the plants and the herbs"))
        await b.engine.waitUntilIdle()
        let next = try await Self.sync(cloud, token: afterPhone.token, password: password)
        #expect(next.hrefs == [href])
        #expect(next.text.contains("SUMMARY:Water the plants and the herbs"))
        #expect(next.text.contains("STATUS:COMPLETED"))
        let unchanged = try await Self.sync(cloud, token: next.token, password: password)
        #expect(unchanged.hrefs.isEmpty)
        #expect(unchanged.token == next.token)

        await a.engine.stop()
        await b.engine.stop()
        await cloud.shutdown()
    }
}

import CloudClient
import CloudModel
import CloudServer
import Foundation
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Two terminals and a phone on CalDAV, one account, one cloud: a todo the phone completes shows done in both open
/// apps by push, and an edit typed in an app is exactly what the phone's next `sync-collection` returns.
final class CalDAVTerminalTests: XCTestCase {
    /// One CalDAV request as a phone sends it, with HTTP Basic and the app password: status, body and ETag.
    private static func dav(
        _ stage: E2EStage, _ method: String, _ path: String, _ body: String?, password: String, headers: [String: String] = [:]
    ) async throws -> (status: Int, text: String, etag: String?) {
        var request = URLRequest(url: URL(string: stage.server.baseURL.absoluteString + path)!)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        request.setValue(method == "PUT" ? "text/calendar" : "application/xml", forHTTPHeaderField: "Content-Type")
        request.setValue("Basic " + Data("alice:\(password)".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try XCTUnwrap(response as? HTTPURLResponse)
        return (http.statusCode, String(decoding: data, as: UTF8.self), http.value(forHTTPHeaderField: "ETag"))
    }

    /// The phone's `sync-collection` of the default collection from `token`: the hrefs it names, its text, the new token.
    private static func sync(_ stage: E2EStage, token: String, password: String) async throws -> (hrefs: [String], text: String, token: String) {
        let body = """
            <d:sync-collection xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:sync-token>\(token)</d:sync-token>\
            <d:sync-level>1</d:sync-level><d:prop><d:getetag/><c:calendar-data/></d:prop></d:sync-collection>
            """
        let answer = try await dav(stage, "REPORT", "/dav/calendars/alice/todos/", body, password: password)
        XCTAssertEqual(answer.status, 207, answer.text)
        func between(_ open: String, _ close: String) -> [String] {
            answer.text.components(separatedBy: open).dropFirst().compactMap { $0.components(separatedBy: close).first }
        }
        return (between("<d:href>", "</d:href>"), answer.text, between("<d:sync-token>", "</d:sync-token>").first ?? "")
    }

    func testACompletionOnThePhoneShowsInBothAppsAndAnEditInAnAppIsThePhonesNextSync() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let tmux = stage.tmux
        func device(_ name: String) -> String { stage.app(account: "alice", device: name) + "; echo EXIT=$?; sleep 600" }
        tmux.run(["new-session", "-d", "-s", "e2e", "-x", "160", "-y", "20", device("laptop")])
        let laptop = "e2e:0.0"
        try await tmux.wait(laptop, "synced")
        tmux.run(["split-window", "-h", "-t", "e2e", device("tablet")])
        let tablet = "e2e:0.1"
        try await tmux.wait(tablet, "synced")

        // The phone's app password, made by a signed-in device as `todo app-password add` does.
        let client = CloudClient(baseURL: stage.server.baseURL)
        _ = try await client.signIn(account: "alice", password: "e2e-password-alice", deviceName: "setup")
        let password = try await client.createAppPassword(label: "phone").password

        try await tmux.submit(laptop, key: "a", opens: "New todo", text: "Water the plants")
        try await tmux.wait(tablet, "Water the plants")
        let first = try await Self.sync(stage, token: "", password: password)
        XCTAssertEqual(first.hrefs.count, 1, first.text)
        let href = try XCTUnwrap(first.hrefs.first)
        XCTAssert(first.text.contains("SUMMARY:Water the plants"), first.text)

        // The phone ticks it off: both open apps show it done, pushed to them, without a key pressed.
        let current = try await Self.dav(stage, "GET", href, nil, password: password)
        let done = current.text.replacingOccurrences(of: "STATUS:NEEDS-ACTION", with: "STATUS:COMPLETED\r\nPERCENT-COMPLETE:100")
        let put = try await Self.dav(stage, "PUT", href, done, password: password, headers: ["If-Match": try XCTUnwrap(current.etag)])
        XCTAssertEqual(put.status, 204, put.text)
        let answered = ContinuousClock.now
        try await tmux.wait(laptop, "[x] Water the plants")
        let onLaptop = ContinuousClock.now - answered
        try await tmux.wait(tablet, "[x] Water the plants")
        let onTablet = ContinuousClock.now - answered
        // A figure for the record, not a bound: how fast is for the benchmarks.
        print("CalDAV completion shown in the open apps \(onLaptop) and \(onTablet) after the PUT was answered")
        let afterPhone = try await Self.sync(stage, token: first.token, password: password)
        XCTAssertEqual(afterPhone.hrefs, [href])

        // An edit typed in the tablet's app is exactly what the phone's next sync brings.
        tmux.keys(tablet, "e")
        try await tmux.wait(tablet, "Edit todo")
        tmux.keys(tablet, "C-u")
        tmux.type(tablet, "Water the plants and the herbs")
        tmux.keys(tablet, "Enter")
        try await tmux.wait(laptop, "Water the plants and the herbs")
        let next = try await Self.sync(stage, token: afterPhone.token, password: password)
        XCTAssertEqual(next.hrefs, [href])
        XCTAssert(next.text.contains("SUMMARY:Water the plants and the herbs"), next.text)
        XCTAssert(next.text.contains("STATUS:COMPLETED"), next.text)
        let unchanged = try await Self.sync(stage, token: next.token, password: password)
        XCTAssertEqual(unchanged.hrefs, [])

        tmux.keys(laptop, "q")
        tmux.keys(tablet, "q")
        for pane in [laptop, tablet] { try await tmux.wait(pane, "EXIT=0") }
        await stage.server.shutdown()
    }
}

import CloudClient
import CloudModel
import CloudServer
import Foundation
import TestSupport
import XCTest

/// Two terminals and a phone on CalDAV, one account, one cloud: a todo the phone completes shows done in both open
/// apps by push, and an edit typed in an app is exactly what the phone's next `sync-collection` returns.
final class CalDAVTerminalTests: XCTestCase {
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
        let phone = CalDAVPhone(baseURL: stage.server.baseURL, account: "alice", password: try await client.createAppPassword(label: "phone").password)
        func sync(_ token: String) async throws -> (hrefs: [String], text: String, token: String) {
            let answer = try await phone.sync(token: token)
            XCTAssertEqual(answer.status, 207, answer.text)
            return (answer.hrefs, answer.text, answer.token)
        }

        try await tmux.submit(laptop, key: "a", opens: "New todo", text: "Water the plants")
        try await tmux.wait(tablet, "Water the plants")
        let first = try await sync("")
        XCTAssertEqual(first.hrefs.count, 1, first.text)
        let href = try XCTUnwrap(first.hrefs.first)
        XCTAssert(first.text.contains("SUMMARY:Water the plants"), first.text)

        // The phone ticks it off: both open apps show it done, pushed to them, without a key pressed.
        let current = try await phone.request("GET", href)
        let done = current.text.replacingOccurrences(of: "STATUS:NEEDS-ACTION", with: "STATUS:COMPLETED\r\nPERCENT-COMPLETE:100")
        let put = try await phone.request("PUT", href, done, headers: ["If-Match": try XCTUnwrap(current.etag)])
        XCTAssertEqual(put.status, 204, put.text)
        let answered = ContinuousClock.now
        try await tmux.wait(laptop, "[x] Water the plants")
        let onLaptop = ContinuousClock.now - answered
        try await tmux.wait(tablet, "[x] Water the plants")
        let onTablet = ContinuousClock.now - answered
        // A figure for the record, not a bound: how fast is for the benchmarks.
        print("CalDAV completion shown in the open apps \(onLaptop) and \(onTablet) after the PUT was answered")
        let afterPhone = try await sync(first.token)
        XCTAssertEqual(afterPhone.hrefs, [href])

        // An edit typed in the tablet's app is exactly what the phone's next sync brings.
        try await tmux.retitle(tablet, to: "Water the plants and the herbs")
        try await tmux.wait(laptop, "Water the plants and the herbs")
        let next = try await sync(afterPhone.token)
        XCTAssertEqual(next.hrefs, [href])
        XCTAssert(next.text.contains("SUMMARY:Water the plants and the herbs"), next.text)
        XCTAssert(next.text.contains("STATUS:COMPLETED"), next.text)
        let unchanged = try await sync(next.token)
        XCTAssertEqual(unchanged.hrefs, [])

        tmux.keys(laptop, "q")
        tmux.keys(tablet, "q")
        for pane in [laptop, tablet] { try await tmux.wait(pane, "EXIT=0") }
        await stage.server.shutdown()
    }
}

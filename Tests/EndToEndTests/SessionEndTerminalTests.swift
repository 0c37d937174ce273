import CloudServer
import Foundation
import XCTest

/// The real app in tmux, signed in with a saved login (no password to sign in again by itself), whose session the
/// cloud ends from another process: the header says so with the way back, the cached todos stay and refuse edits,
/// and `L` signs in again.
final class SessionEndTerminalTests: XCTestCase {
    func testARevokedDeviceSaysSoKeepsItsTodosAndSignsInAgainWithL() async throws {
        try await sessionEnds(byPasswordChange: false)
    }

    func testAChangedPasswordSaysSoKeepsItsTodosAndSignsInAgainWithL() async throws {
        try await sessionEnds(byPasswordChange: true)
    }

    /// A stale app whose session another shell replaced (`todo login` again) takes up the fresh session instead of
    /// removing its file: its edits still reach the cloud, and the file stays what the other shell wrote.
    func testAStaleAppAdoptsTheSessionAnotherShellWroteAndNeverRemovesIt() async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let cli = TodoCommandLine(stage: stage)
        let url = stage.server.baseURL.absoluteString
        let data = stage.directory.appendingPathComponent("laptop2").path
        let password = ["TODO_PASSWORD": "e2e-password-alice"]
        let first = try await cli.run(["login", url, "--account", "alice", "--device", "laptop2", "--data-dir", data], environment: password)
        XCTAssertEqual(first.status, 0, first.allText)
        let tmux = stage.tmux
        tmux.run(["new-session", "-d", "-s", "stale", "-x", "150", "-y", "20", Self.app(stage, data: data) + "; echo EXIT=$?; sleep 600"])
        let pane = "stale:0.0"
        try await tmux.wait(pane, "alice · laptop2 · online")

        // Another shell signs this device in afresh: the app's session ends at the cloud, the file holds the new one.
        let again = try await cli.run(["login", url, "--account", "alice", "--device", "laptop2", "--data-dir", data], environment: password)
        XCTAssertEqual(again.status, 0, again.allText)
        let sessionFile = try XCTUnwrap(Self.sessionFile(in: data))
        let fresh = try Data(contentsOf: sessionFile)

        // The stale app refreshes (the issue's `r`), meets the refusal, and carries on with the fresh session. A key
        // typed before the refresh has answered may still meet the app signed out: the cloud ends the old session
        // before the other shell has written its new one, and the app takes that one up at its next look (within a
        // fifth of a second, or at the refresh). So `a` waits for the refresh's answer, as a person reads it.
        tmux.keys(pane, "r")
        try await tmux.wait(pane, "Up to date.")
        try await tmux.submit(pane, key: "a", opens: "New todo", text: "Made by the stale app")
        var listed = ""
        for _ in 0..<40 where !listed.contains("Made by the stale app") {
            listed = try await cli.run(["list", "--data-dir", data], environment: ["TODO_PASSWORD": ""]).output
        }
        XCTAssert(listed.contains("Made by the stale app"), "the stale app's todo never reached the cloud:\n\(listed)\n\(tmux.capture(pane))")
        XCTAssertEqual(try Data(contentsOf: sessionFile), fresh, "the session file another shell wrote was changed or removed")
        XCTAssertFalse(tmux.capture(pane).contains("session ended"), tmux.capture(pane))
        tmux.keys(pane, "q")
        try await tmux.wait(pane, "EXIT=0")
        await stage.server.shutdown()
    }

    private func sessionEnds(byPasswordChange: Bool) async throws {
        let stage = try await E2EStage.start()
        defer { stage.tearDown() }
        let cli = TodoCommandLine(stage: stage)
        let url = stage.server.baseURL.absoluteString
        let data = stage.directory.appendingPathComponent("laptop2").path
        let login = try await cli.run(
            ["login", url, "--account", "alice", "--device", "laptop2", "--data-dir", data], environment: ["TODO_PASSWORD": "e2e-password-alice"])
        XCTAssertEqual(login.status, 0, login.allText)
        let added = try await cli.run(["add", "Buy milk", "--data-dir", data], environment: ["TODO_PASSWORD": ""])
        XCTAssertEqual(added.status, 0, added.allText)

        let tmux = stage.tmux
        tmux.run(["new-session", "-d", "-s", "end", "-x", "150", "-y", "20", Self.app(stage, data: data) + "; echo EXIT=$?; sleep 600"])
        let pane = "end:0.0"
        try await tmux.wait(pane, "alice · laptop2 · online")
        try await tmux.wait(pane, "Buy milk")
        var screens = [tmux.capture(pane)]
        let before = Self.header(screens[0])
        XCTAssert(before.contains("alice · laptop2 · online"), before)

        // Another process ends the session.
        var newPassword = "e2e-password-alice"
        if byPasswordChange {
            newPassword = "a-new-password-for-alice"
            let changed = try await cli.run(
                ["server", "account", "passwd", "alice", "--data-dir", stage.directory.appendingPathComponent("cloud").path],
                environment: ["TODO_PASSWORD": newPassword])
            XCTAssertEqual(changed.status, 0, changed.allText)
        } else {
            let revoked = try await cli.run("alice", ["devices", "revoke", "laptop2"])
            XCTAssertEqual(revoked.status, 0, revoked.allText)
        }
        try await tmux.wait(pane, "session ended: press L to sign in", timeout: 5)
        screens.append(tmux.capture(pane))
        let ended = Self.header(screens[1])
        XCTAssert(screens[1].contains("[ ] Buy milk"), "the cached todo left the screen:\n\(screens[1])")

        // An edit is refused with the reason and the way back; the todo stays as it was.
        tmux.keys(pane, "Space")
        try await tmux.wait(pane, "Signed out: sign in again to change your todos. Press L to sign in.")
        tmux.keys(pane, "a")
        try await tmux.wait(pane, "Signed out: sign in to add todos (press L).")
        screens.append(tmux.capture(pane))
        XCTAssert(screens[2].contains("[ ] Buy milk"), screens[2])

        // L asks the password, which never shows, and signs in again.
        tmux.keys(pane, "L")
        try await tmux.wait(pane, "Password for alice")
        tmux.type(pane, newPassword)
        // The prompt draws nothing as it is typed, so no screen says the keys were read: the pane is watched instead.
        let unechoed = await tmux.neverShows(pane, newPassword, within: 0.5)
        screens.append(tmux.capture(pane))
        XCTAssert(unechoed && !screens[3].contains(newPassword), "the password was echoed:\n\(screens[3])")
        tmux.keys(pane, "Enter")
        try await tmux.wait(pane, "alice · laptop2 · online")
        screens.append(tmux.capture(pane))
        let after = Self.header(screens[4])

        // Sync resumes: an edit made on another device arrives by itself, and nothing of before was lost.
        let phone = try await cli.run(
            ["add", "From the phone", "--account", "alice", "--password", newPassword, "--device", "phone", "--server", url,
             "--data-dir", stage.directory.appendingPathComponent("devices").path])
        XCTAssertEqual(phone.status, 0, phone.allText)
        try await tmux.wait(pane, "From the phone")
        screens.append(tmux.capture(pane))
        XCTAssert(screens[5].contains("[ ] Buy milk"), screens[5])
        let cloudList = try await cli.run(
            ["list", "--account", "alice", "--password", newPassword, "--device", "phone", "--server", url,
             "--data-dir", stage.directory.appendingPathComponent("devices").path])
        XCTAssert(cloudList.output.contains("Buy milk") && cloudList.output.contains("From the phone"), cloudList.allText)

        print("e2e header before:      \(before)\ne2e header at the end:  \(ended)\ne2e header after L:     \(after)")
        print("e2e screen after an edit was refused:\n\(screens[2])\ne2e screen with the password typed:\n\(screens[3])")
        for screen in screens { Self.assertNoInternalNames(screen) }
        tmux.keys(pane, "q")
        try await tmux.wait(pane, "EXIT=0")
        await stage.server.shutdown()
    }

    /// The app on the saved login of `data`, with no password to sign in again by itself.
    static func app(_ stage: E2EStage, data: String) -> String {
        (["env", "-u", "TODO_PASSWORD", "LANG=C.UTF-8", "TERM=xterm-256color", stage.binary, "--data-dir", data])
            .map { "'\($0)'" }.joined(separator: " ")
    }

    /// The screen's first line.
    static func header(_ screen: String) -> String {
        String(screen.split(separator: "\n", omittingEmptySubsequences: false).first ?? "").trimmingCharacters(in: .whitespaces)
    }

    /// The one session file under a data directory.
    static func sessionFile(in data: String) -> URL? {
        let sessions = URL(fileURLWithPath: data).appendingPathComponent("config/sessions")
        let files = FileManager.default.enumerator(at: sessions, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return files.first { $0.pathExtension == "json" && !$0.lastPathComponent.hasPrefix(".") }
    }

    /// Field names of the wire that no message may show.
    static let internalNames = ["ckWebAuthToken", "ckAPIToken", "webcourierURL", "apnsToken", "serverErrorCode", "userRecordName"]

    static func assertNoInternalNames(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        for name in internalNames where text.contains(name) {
            XCTFail("'\(name)' shown:\n\(text)", file: file, line: line)
        }
    }
}

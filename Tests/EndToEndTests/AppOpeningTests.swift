import CloudServer
import Foundation
import TestSupport
import Testing

extension TrustedTextEndToEnd {
    /// The real app in tmux while its device is still opening (here a sign-in the cloud is slow to answer): what is
    /// typed shows at once and is saved once the device is open, even when the app is quit before that.
    @Suite("The app while its device opens", .serialized)
    struct AppOpeningTests {
        @Test func aTodoTypedWhileSigningInIsSavedThoughTheAppQuitsBeforeItOpens() async throws {
            let stage = try await E2EStage.start()
            defer { stage.tearDown() }
            let tmux = stage.tmux
            let slow = try HeldForwarder(target: try #require(stage.server.baseURL.port))
            defer { slow.stop() }
            let held = try #require(URL(string: "http://127.0.0.1:\(slow.port)"))
            // A device with no session yet: it signs in through the held connection.
            let command = stage.app(account: "alice", device: "phone", through: held) + "; echo EXIT=$?; sleep 600"
            tmux.run(["new-session", "-d", "-s", "opening", "-x", "80", "-y", "12", command])
            let pane = "opening:0.0"
            #expect(await eventually { slow.accepted > 0 }, "the app never asked the cloud to sign in")
            try await tmux.wait(pane, "connecting")
            try await tmux.submit(pane, key: "a", opens: "New todo", text: "Typed while signing in")
            try await tmux.wait(pane, "[ ] Typed while signing in")
            #expect(!tmux.capture(pane).contains("still connecting"), "the app refused what it drew")
            tmux.keys(pane, "q")
            // The sign-in is still held: the app cannot have saved the todo, so it must not end (an app that quit at
            // once would show EXIT= within milliseconds: the pane is watched for a second).
            let stayed = await tmux.neverShows(pane, "EXIT=", within: 1)
            #expect(slow.accepted >= 1 && stayed, "the app ended before its device opened")
            slow.release()
            try await tmux.wait(pane, "EXIT=0")

            // The todo waits in the phone's outbox: its next sync sends it, and another device of the account sees it.
            let phone = [
                "--account", "alice", "--password", "e2e-password-alice", "--device", "phone", "--server", held.absoluteString,
                "--data-dir", stage.directory.appendingPathComponent("devices").path,
            ]
            let cli = TodoCommandLine(stage: stage)
            let sent = try await cli.run(["sync"] + phone)
            #expect(sent.status == 0, "\(sent.allText)")
            let list = try await cli.run("alice", ["list", "--json"])
            let rows = try JSONDecoder().decode([JSONRow].self, from: list.stdout)
            #expect(rows.map(\.title) == ["Typed while signing in"], "\(list.allText)")
            await stage.server.shutdown()
        }
    }
}

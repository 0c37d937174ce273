import CloudClient
import CloudModel
import CloudServer
import Foundation
import Terminal
import TestSupport
import Testing
import TodoApp
import TodoSync
import TodoUI

/// `r` never holds the keyboard, says when it is done, and quitting cancels it: through the real cloud.
@Suite("Refresh and quit", .serialized)
@MainActor
struct RefreshAndQuitTests {
    @Test func refreshSaysWhenItIsDone() async throws {
        let cloud = try await AppCloud.start()
        defer { Task { await cloud.shutdown() } }
        let alice = try await cloud.app("alice")
        defer { Task { await alice.close() } }
        await alice.press(.char("r"))
        #expect(alice.state.message?.text == "Refreshing…")
        #expect(await alice.settle { $0.state.message?.text != "Refreshing…" })
        #expect(alice.state.message == StatusMessage("Up to date.", kind: .success))
    }

    /// The engine's clock never lets the 30 s retry wait pass: a key or a quit that waited for the refresh would never
    /// return, so the quit runs in a task of its own whose end the test waits for.
    @Test func keysGoOnDuringARefreshAndQuitCancelsItsRetryWait() async throws {
        let cloud = try await AppCloud.start()
        defer { Task { await cloud.shutdown() } }
        let clock = ManualClock(instantBelow: 30)
        let alice = try await cloud.app("alice", clock: clock)
        for title in ["One", "Two", "Three"] { _ = try await alice.engine.add(title: title) }
        await alice.settle()
        // The cloud is busy and asks for half a minute: the refresh waits, the app does not.
        try await CloudClient(baseURL: cloud.server.baseURL).injectFault(
            FaultRequest(endpoint: "users/caller", serverErrorCode: .throttled, count: 1, retryAfter: 30))
        await alice.press(.char("r"))
        #expect(alice.state.message?.text == "Refreshing…", "r returned only after the refresh")
        #expect(await alice.settle { $0.state.status.lastError?.contains("retrying in 30.0 s") == true })
        #expect(await eventually { clock.sleeps.contains(30) && clock.waiting > 0 }, "the refresh is parked in its retry wait")
        let before = alice.state.selection
        await alice.press(.char("j"))
        #expect(alice.state.selection == before + 1)
        #expect(alice.state.message?.text == nil || alice.state.message?.text != "Up to date.")

        // q: the app stops its engine (TerminalApp does the same), which ends the wait at once.
        #expect(await ends { await alice.close() }, "the quit returned without the refresh's time passing")
        // Its time never came: the close ended it.
        #expect(clock.waiting == 0, "the retry wait was left parked")
    }
}

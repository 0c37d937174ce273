import CommandLineSupport
import TodoSync

extension ProgressLine {
    /// Runs `body` (a send) while showing how many changes are left to send, then removes the line.
    func whileSending(_ session: DeviceSession, _ body: () async throws -> Void) async throws {
        guard enabled else { return try await body() }
        let (_, wakeups) = await session.engine.changeReader()
        let watcher = Task { [self] in
            for await state in wakeups where state.isSyncing && state.pendingCount > 0 {
                show("Sending todos: \(state.pendingCount) left")
            }
        }
        let outcome: Result<Void, any Error>
        do {
            try await body()
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        watcher.cancel()
        await watcher.value  // no line is drawn after the one cleared here
        clear()
        try outcome.get()
    }
}

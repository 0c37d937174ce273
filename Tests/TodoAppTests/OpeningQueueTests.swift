import Testing
import TodoUI

@testable import TodoApp

/// What is typed while the device opens: kept in order, done once open (what comes during the catching up
/// included, after what came before it), refused with the reason once opening failed.
@Suite("Effects while the device opens")
@MainActor
struct OpeningQueueTests {
    @Test func keptEffectsAreDoneInOrderOnceOpenAndLaterOnesStraightAway() async {
        let queue = OpeningQueue()
        var done: [Effect] = []
        #expect(await queue.submit(.delete(id: "a")) == nil)
        #expect(await queue.submit(.skip(id: "b")) == nil)
        #expect(done.isEmpty)
        #expect(queue.hasWaiting)
        await queue.open { done.append($0) }
        #expect(done == [.delete(id: "a"), .skip(id: "b")])
        #expect(!queue.hasWaiting)
        #expect(await queue.submit(.unskip(id: "c")) == nil)
        #expect(done == [.delete(id: "a"), .skip(id: "b"), .unskip(id: "c")])
    }

    /// A key pressed while the kept effects are being done goes after them, and the queue counts as waiting until
    /// the last of them is done (a quit then waits for it).
    @Test func anEffectHandedOverWhileCatchingUpGoesLastAndTheQueueWaitsUntilItIsDone() async {
        let queue = OpeningQueue()
        var done: [Effect] = []
        var waitingWhileDoing: [Bool] = []
        _ = await queue.submit(.delete(id: "first"))
        await queue.open { effect in
            waitingWhileDoing.append(queue.hasWaiting)
            if effect == .delete(id: "first") {
                // The key loop runs while the first effect is done: its effect is handed over now.
                _ = await queue.submit(.delete(id: "second"))
            }
            done.append(effect)
        }
        #expect(done == [.delete(id: "first"), .delete(id: "second")])
        #expect(waitingWhileDoing == [true, true])
        #expect(!queue.hasWaiting)
    }

    @Test func aFailedOpeningAnswersWhatWasKeptAndRefusesTheRest() async {
        let queue = OpeningQueue()
        _ = await queue.submit(.create(id: "new", TodoDraft(title: "Milk")))
        _ = await queue.submit(.setCompleted(id: "old", true))
        let lost = queue.fail("the cloud refused the password")
        #expect(lost == [.create(id: "new", TodoDraft(title: "Milk")), .setCompleted(id: "old", true)])
        #expect(TerminalApp.createdRows(.batch(lost)) == ["new"])
        #expect(!queue.hasWaiting)
        #expect(await queue.submit(.delete(id: "x")) == "the cloud refused the password")
    }
}

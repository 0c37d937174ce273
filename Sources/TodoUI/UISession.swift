import Foundation
import Synchronization
public import Terminal

/// New data for the UI, from the sync engine or from the effect handler.
public enum UIUpdate: Sendable {
    /// Every row (all scopes) and the status.
    case data(rows: [TodoRow], status: SyncStatus)
    /// What changed since the last update, and the status.
    case changes(RowChanges, status: SyncStatus)
    /// The status only.
    case status(SyncStatus)
    /// Rows that are no longer there (e.g. drawn for a record that ended up under another id).
    case removed(ids: [String])
    /// A status-line message (e.g. an effect failed).
    case message(StatusMessage)
    /// A value that lost a conflict (undo restores this device's own).
    case lostEdit(LostEditNotice)
    /// How far reading the cache for the first frames got; nil once every row is read.
    case loading(FetchProgress?)
    /// Every row read from the cache so far, sorted off the main actor, and the status.
    case loaded(LoadedRows, status: SyncStatus)
}

/// A thread-safe mailbox of updates that the UI loop drains between keys.
public final class UpdateInbox: Sendable {
    private let queue = Mutex<[UIUpdate]>([])

    /// Creates an empty inbox.
    public init() {}

    /// Adds an update; callable from any thread or task.
    public func post(_ update: UIUpdate) {
        queue.withLock { queue in
            // Full data replaces everything before it: drop older data and changes still waiting.
            if case .data = update {
                queue.removeAll {
                    switch $0 {
                    case .data, .changes, .loaded: true
                    case .status, .message, .removed, .lostEdit, .loading: false
                    }
                }
            }
            // Rows read from the cache replace those read before them: a key loop that fell behind swaps in the last only.
            if case .loaded = update { queue.removeAll { if case .loaded = $0 { true } else { false } } }
            queue.append(update)
        }
    }

    /// Takes every waiting update, oldest first.
    public func drain() -> [UIUpdate] {
        queue.withLock { queue in
            let updates = queue
            queue.removeAll()
            return updates
        }
    }
}

/// Glue between an `AppState` and a `TerminalDriver`: feeds keys and updates, draws frames.
@MainActor
public final class UISession {
    /// The state; read it, or change it through the session's methods.
    public private(set) var state: AppState
    /// The terminal frames are drawn to and keys are read from.
    public let terminal: any TerminalDriver
    /// The last frame drawn.
    public private(set) var screen: Screen
    private let clock: () -> Date

    /// Creates a session, sized to the terminal; `clock` supplies "now" for each frame.
    public init(terminal: any TerminalDriver, state: consuming AppState, clock: @escaping () -> Date = Date.init) {
        self.terminal = terminal
        self.clock = clock
        state.resize(to: terminal.size)
        self.state = state
        screen = Screen(width: terminal.size.width, height: terminal.size.height)
    }

    /// Runs `body` with the terminal handed to another program (an editor), then takes it back and redraws whole.
    public func runOutside<T>(_ body: () throws -> T) rethrows -> T {
        terminal.suspend()
        defer {
            terminal.resume()
            state.resize(to: terminal.size)
            redraw()
        }
        return try body()
    }

    /// Handles one key (a `.resize` re-reads the terminal size), redraws, returns the effects.
    @discardableResult
    public func handle(_ key: Key) -> [Effect] {
        if key == .resize { state.resize(to: terminal.size) }
        let effects = state.reduce(key)
        redraw()
        return effects
    }

    /// Applies an update from the sync engine and redraws.
    public func apply(_ update: UIUpdate) {
        apply(update, draw: true)
    }

    /// Renders the state and sends the frame to the terminal.
    public func redraw() {
        state.now = clock()
        var next = Screen(width: state.size.width, height: state.size.height)
        render(state, into: &next)
        screen = next
        terminal.draw(next)
    }

    /// Runs until a key asks to quit: draws the first frame, then handles keys, updates from
    /// `inbox` and the clock (the header's "2 s ago" ticks), redrawing only when something changed.
    ///
    /// `perform` is awaited for each effect in order, `.quit` included (then the loop returns);
    /// keep it quick (enqueue work) or the UI waits. `readKey` blocks the main actor at most
    /// `poll` per turn. The caller restores the terminal with `terminal.shutdown()` afterwards.
    public func run(inbox: UpdateInbox, poll: Duration = .milliseconds(15), perform: (Effect) async -> Void) async {
        redraw()
        var lastSecond = Int(clock().timeIntervalSince1970)
        while !Task.isCancelled {
            var dirty = false
            for update in inbox.drain() {
                apply(update, draw: false)
                dirty = true
            }
            if let key = terminal.readKey(timeout: dirty ? .zero : poll) {
                if key == .resize { state.resize(to: terminal.size) }
                let effects = state.reduce(key)
                dirty = true
                for effect in effects {
                    await perform(effect)
                    if effect == .quit { return }
                }
            }
            let second = Int(clock().timeIntervalSince1970)
            if second != lastSecond {
                lastSecond = second
                dirty = true
            }
            if dirty { redraw() }
            await Task.yield()
        }
    }

    /// Like `run(inbox:poll:perform:)`, fed by an async sequence of updates instead of an inbox.
    public func run(
        updates: AsyncStream<UIUpdate>, poll: Duration = .milliseconds(15), perform: (Effect) async -> Void
    ) async {
        let inbox = UpdateInbox()
        let pump = Task.detached {
            for await update in updates { inbox.post(update) }
        }
        defer { pump.cancel() }
        await run(inbox: inbox, poll: poll, perform: perform)
    }

    private func apply(_ update: UIUpdate, draw: Bool) {
        state.receive(update)
        if draw { redraw() }
    }
}

extension AppState {
    /// Takes one update from the inbox into the state (the key loop and test harnesses share this).
    public mutating func receive(_ update: UIUpdate) {
        switch update {
        case .data(let rows, let status): self.update(rows: rows, status: status)
        case .changes(let changes, let status): apply(changes, status: status)
        case .status(let status): self.update(status: status)
        case .removed(let ids): apply(RowChanges(removed: ids), status: self.status)
        case .message(let message): post(message)
        case .lostEdit(let notice): announce(notice)
        case .loading(let progress): showLoading(progress)
        case .loaded(let rows, let status): replaceRows(with: rows, status: status)
        }
    }
}

import CloudClient
import Foundation
import Terminal
import TodoPlanning
import TodoStore
import TodoSync
import TodoUI

/// The terminal app: the cached first frames, connecting, syncing and the key loop.
public enum TerminalApp {
    /// Rows of the first take from the cache: few, so the first rows are drawn within milliseconds.
    public static let firstChunk = 2_000
    /// Rows of each later take from the cache: the rest in one take. They are sorted with the first ones where they
    /// were read, off the main actor, and swapped in whole: the key loop never sorts them.
    public static let laterChunk = Int.max

    /// Draws a frame at once, fills it from the cache chunk by chunk (no network), meanwhile connects, then starts
    /// syncing and runs the key loop until quit.
    @MainActor
    public static func run(_ options: DeviceOptions) async throws {
        let inbox = UpdateInbox()
        // The view and saved filters of the configuration file (a broken file was refused before the app started).
        let config = ConfigFile(options)
        let settings = (try? config.settings()) ?? DeviceSettings()
        let sortOrder = settings.view.sort.flatMap(TodoUI.SortOrder.init(rawValue:)) ?? .priority
        var state = AppState(
            status: SyncStatus(account: options.account, device: options.device, connection: .connecting),
            makeID: { RecordNames.next() }, nameRow: AppBridge.newRowID,
            sortOrder: sortOrder,
            savedFilters: settings.filters.map { SavedFilter(name: $0.name, text: $0.text) }, keymap: settings.keymap)
        state.urgencyCoefficients = settings.urgencyCoefficients
        state.sundayFirst = settings.view.sundayFirst
        if let name = settings.view.context, let saved = settings.filters.first(where: { $0.name == name }) {
            state.setContext(SavedFilter(name: saved.name, text: saved.text))
        }
        if settings.view.start == "today" { state.openToday() }
        let hasCache = FileManager.default.fileExists(atPath: options.cacheFile.path)
        if hasCache { state.showLoading(FetchProgress(fetched: 0)) }
        let terminal = try NcursesTerminal(palette: settings.palette)
        defer { terminal.shutdown() }
        // TODO_TODAY draws the app as of that day (checked before the app starts: a day it cannot read is refused).
        let ui = UISession(terminal: terminal, state: consume state, clock: AppClock.clock() ?? { Date() })
        ui.redraw()

        // The cache, read off the main actor while the key loop runs: each chunk reaches the screen as it comes.
        let loading = Task.detached { () -> RowContext? in
            guard hasCache else { return nil }
            return await loadCachedRows(options, into: inbox, order: sortOrder)
        }
        // What is typed before the device is open waits for it, in order, and is never dropped.
        let opening = OpeningQueue()
        // The network part: start the local cloud if needed, sign in, then sync and listen for pushes.
        let connecting = Task { @MainActor () -> DeviceSession? in
            do {
                // With no session kept, the app opens signed out: the cache shows, and L signs in.
                return try await DeviceOpening.open(options, orSignedOut: true)
            } catch {
                // Not signed in: say why, and stop claiming to connect.
                let words = plainMessage(for: error)
                inbox.post(.status(SyncStatus(account: nil, device: options.device, connection: .signedOut, lastError: words)))
                let lost = opening.fail(words)
                let drawn = lost.flatMap(Self.createdRows)
                if !drawn.isEmpty { inbox.post(.removed(ids: drawn)) }
                let what = lost.isEmpty ? "" : "not saved (\(lost.count == 1 ? "1 change" : "\(lost.count) changes") made while opening): "
                inbox.post(.message(StatusMessage(what + words, kind: .error)))
                return nil
            }
        }
        let sessionBox = SessionBox()
        let running = Task { @MainActor in
            guard let session = await connecting.value else { return }
            // What the cached rows were made with: the engine then reports only what changed since.
            let firstContext = await loading.value
            guard !Task.isCancelled else { return }  // quit while the cache was read, with nothing typed
            // The reader is registered before the engine starts, so no change of the launch sync escapes it.
            let (reader, wakeups) = await session.engine.changeReader(current: firstContext)
            guard !Task.isCancelled else { return }
            let bridge = AppBridge(session: session, inbox: inbox, reader: reader)
            sessionBox.session = session
            await opening.open { await bridge.perform($0) }
            sessionBox.bridge = bridge
            guard !sessionBox.quitting else { return }  // quit while what was typed was being saved: no sync starts
            sessionBox.syncing = Task {
                // What the command line or another window writes to this cache shows within a poll (0.2 s).
                await session.engine.watchCacheForOtherWriters()
                if sessionBox.publicBoardVisible { await session.engine.setPublicBoardVisible(true) }
                await session.engine.start(listenForPushes: true)
            }
            for await snapshot in wakeups { await bridge.show(snapshot) }
        }
        /// Does an effect through the bridge, or keeps it until the device is open; says so when it never will be.
        func submit(_ effect: Effect) async {
            if let reason = await opening.submit(effect) {
                inbox.post(.message(StatusMessage("not saved, the device did not open: \(reason)", kind: .error)))
            }
        }
        await ui.run(inbox: inbox) { effect in
            if let saved = preferences(after: effect, in: config) {
                if let problem = saved { inbox.post(.message(StatusMessage("not saved in \(config.url.path): \(problem)", kind: .error))) }
                return
            }
            if case .editNotes(let id, let notes) = effect {
                // The editor gets the terminal; what it saved is an edit like any other.
                let edited = ui.runOutside { Result { try ExternalEditor.edit(notes) } }
                switch edited {
                case .success(let text) where text != notes: await submit(.edit(id: id, TodoChanges(notes: text)))
                case .success: inbox.post(.message(StatusMessage("Notes unchanged.")))
                case .failure(let failure): inbox.post(.message(StatusMessage(String(describing: failure), kind: .error)))
                }
                return
            }
            if case .showingPublicBoard(let visible) = effect { sessionBox.publicBoardVisible = visible }
            if case .signIn(let password) = effect {
                if let session = sessionBox.session {
                    await signIn(session, password: password, inbox: inbox)
                } else {
                    inbox.post(.message(StatusMessage("still opening the device; sign in again in a moment", kind: .error)))
                }
                return
            }
            if case .showingPublicBoard = effect, sessionBox.bridge == nil { return }  // told to the engine once connected
            if effect == .quit { return }
            await submit(effect)
        }
        loading.cancel()
        if opening.hasWaiting {
            // Typed before the device was open: saved before the app ends (the opening finishes, nothing syncs).
            sessionBox.quitting = true
            await running.value
        }
        running.cancel()  // before any wait below: a start still to come never happens
        connecting.cancel()
        if let session = await connecting.value {
            await session.engine.stop()
            await sessionBox.syncing?.value
            await session.close()
        }
    }

    /// The rows an effect drew as new ones (which go again when it cannot be done).
    static func createdRows(_ effect: Effect) -> [String] {
        switch effect {
        case .create(let id, _): [id]
        case .batch(let effects): effects.flatMap(createdRows)
        default: []
        }
    }

    /// Signs the open device in again with the password typed at `L` (the saved login's certificate authorities are
    /// in its transport already); says how it went. Syncing resumes at once on success.
    @MainActor
    static func signIn(_ session: DeviceSession, password: String, inbox: UpdateInbox) async {
        do {
            try await DeviceOpening.signInAgain(session, password: password)
            inbox.post(.message(StatusMessage("Signed in as \(session.options.account); syncing.", kind: .success)))
        } catch {
            inbox.post(.status(AppBridge.status(from: await session.engine.status())))
            inbox.post(.message(StatusMessage("Not signed in: \(plainMessage(for: error))", kind: .error)))
        }
    }

    /// Keeps a sort order or a saved filter the app changed in the configuration file: nil when `effect` is neither,
    /// else the problem saving it (nil inside when saved).
    static func preferences(after effect: Effect, in config: ConfigFile) -> String?? {
        let change: (inout DeviceSettings) -> Void
        switch effect {
        case .setSortOrder(let order): change = { $0.view.sort = order.rawValue }
        case .setContext(let name): change = { $0.view.context = name }
        case .saveFilter(let name, let text):
            // What is saved must read back (`ConfigFile.parse`): a short name and one line, no control characters.
            guard (1...64).contains(name.count), !text.isEmpty,
                !(name + text).unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else { return .some("a saved filter needs a name of 1 to 64 characters and one line of filter text") }
            change = { settings in
                settings.filters.removeAll { $0.name == name }
                settings.filters.append(NamedFilter(name: name, text: text))
            }
        default: return nil
        }
        do {
            try config.update(change)
            return .some(nil)
        } catch {
            return .some(plainMessage(for: error))
        }
    }

    /// Reads the rows the cache held at the last run, without touching the network, and posts them to `inbox`:
    /// the first take's rows (`.loaded`, sorted in `order` here), `.loading` with the count read after each take,
    /// and once all are read (`.loading` with the count of all) every row sorted here (`.loaded`), then
    /// `.loading(nil)`. The key loop only swaps the sorted rows in, so keys never wait for a sort of them all.
    ///
    /// Answers what the rows were made with, for the connected engine's reader (`changeReader(current:)`); nil on a
    /// first launch (no cache or no kept session), when reading fails, or when cancelled (then everything is read
    /// again once connected).
    public static func loadCachedRows(
        _ options: DeviceOptions, into inbox: UpdateInbox, order: TodoUI.SortOrder = .priority, firstChunk: Int = firstChunk,
        laterChunk: Int = laterChunk
    ) async -> RowContext? {
        guard FileManager.default.fileExists(atPath: options.cacheFile.path),
            let kept = DeviceSession.keptCredentials(options),
            let store = try? await TodoStore(url: options.cacheFile)
        else {
            inbox.post(.loading(nil))
            return nil
        }
        let client = CloudClient(baseURL: options.server, transport: options.transport, authToken: kept.ckWebAuthToken)
        let engine = SyncEngine(
            client: client, store: store,
            configuration: SyncConfiguration(deviceName: options.device, deviceID: kept.deviceID, account: options.account))
        await engine.loadFromStore()
        var status = AppBridge.status(from: await engine.status())
        status.connection = .connecting
        var total: Int?
        // A reader with no rows yet: its takes read every scope, `chunk` records at a time.
        let (reader, wakeups) = await engine.changeReader(current: nil)
        var context: RowContext?
        var rows: [TodoRow] = []
        var takes = 0
        do {
            var more = true
            while more {
                try Task.checkCancellation()
                let changes = try await engine.takeChanges(reader, chunk: takes == 0 ? firstChunk : laterChunk, makeRow: AppBridge.row)
                takes += 1
                more = changes.hasMore
                context = changes.context
                let taken = AppBridge.rowChanges(consume changes).rows
                if rows.isEmpty { rows = taken } else { rows.append(contentsOf: taken) }
                guard more else { break }
                if takes == 1 {
                    inbox.post(.loaded(LoadedRows(rows, order: order), status: status))
                    // Counted once the first rows are on their way, so counting does not delay them.
                    total = try? await store.visibleRecordCount()
                    // Room for all of them and for the rows that arrive once connected (`LoadedRows.capacity(for:)`).
                    if let total { rows.reserveCapacity(LoadedRows.capacity(for: total)) }
                }
                inbox.post(.loading(FetchProgress(fetched: rows.count, total: total)))
            }
            try Task.checkCancellation()
            // Every row read (the header says so while they are sorted), then all of them swapped in at once.
            inbox.post(.loading(FetchProgress(fetched: rows.count, total: rows.count)))
            var all: [TodoRow] = []
            swap(&all, &rows)
            inbox.post(.loaded(LoadedRows(consume all, order: order), status: status))
            inbox.post(.loading(nil))
        } catch {
            context = nil
            inbox.post(.loading(nil))
        }
        withExtendedLifetime(wakeups) {}
        await engine.stop()
        await store.close()
        return context
    }
}

/// The session, bridge and launch sync once connected, read by the key loop on the main actor.
@MainActor
final class SessionBox {
    var session: DeviceSession?
    var bridge: AppBridge?
    var syncing: Task<Void, Never>?
    /// Whether the public board's tab is on screen (told to the engine once connected).
    var publicBoardVisible = false
    /// Whether the app quit while effects waited for the device to open: they are done, then nothing starts.
    var quitting = false
}

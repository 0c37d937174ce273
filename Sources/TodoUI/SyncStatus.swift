import Foundation

/// The connection state shown in the header.
public enum Connection: Hashable, Sendable {
    /// Talking to the cloud.
    case online
    /// No network; edits are queued.
    case offline
    /// No account; private and shared are unavailable, public is read-only.
    case signedOut
    /// Starting up or reconnecting.
    case connecting
}

/// Progress of a long fetch ("fetching 3,400 of 10,000").
public struct FetchProgress: Hashable, Sendable {
    /// Records fetched so far.
    public var fetched: Int
    /// Total expected, if known.
    public var total: Int?

    /// Creates a progress value.
    public init(fetched: Int, total: Int? = nil) {
        self.fetched = fetched
        self.total = total
    }
}

/// What the sync layer tells the UI about itself; drawn in the header and status line.
public struct SyncStatus: Hashable, Sendable {
    /// The account's display name, nil when signed out.
    public var account: String?
    /// This device's name.
    public var device: String
    /// Connection state.
    public var connection: Connection
    /// Edits in the outbox.
    public var pendingCount: Int
    /// When the last successful sync finished.
    public var lastSync: Date?
    /// A fetch in progress, if any.
    public var progress: FetchProgress?
    /// The last sync error, shown in the status line when there is no other message.
    public var lastError: String?
    /// Lists others invited the user to, waiting for an answer.
    public var invitations: [Invitation] = []
    /// Signed out because the cloud ended the session (revoked, password changed, account removed, expired).
    public var sessionEnded = false
    /// A sign-in (`L`) is on its way to the cloud.
    public var signingIn = false

    /// Creates a status.
    public init(
        account: String?, device: String, connection: Connection, pendingCount: Int = 0,
        lastSync: Date? = nil, progress: FetchProgress? = nil, lastError: String? = nil
    ) {
        self.account = account
        self.device = device
        self.connection = connection
        self.pendingCount = pendingCount
        self.lastSync = lastSync
        self.progress = progress
        self.lastError = lastError
    }

    /// True when private and shared data are unavailable.
    public var isSignedOut: Bool { connection == .signedOut || account == nil }
}

/// A list someone shared with the user, not accepted yet.
public struct Invitation: Hashable, Sendable, Identifiable {
    /// Identifies the share (opaque to the UI).
    public var id: String
    /// The list's title (untrusted).
    public var listTitle: String
    /// Who shares it.
    public var owner: String
    /// What the user would be allowed to do.
    public var access: ShareAccess

    /// Creates an invitation.
    public init(id: String, listTitle: String, owner: String, access: ShareAccess) {
        self.id = id
        self.listTitle = listTitle
        self.owner = owner
        self.access = access
    }
}

/// Something the executable must do on behalf of the UI.
///
/// The reducer already applied the change to its own rows optimistically (marked pending);
/// the next `update(rows:status:)` from the sync engine replaces them with the truth.
public enum Effect: Hashable, Sendable {
    /// Create a record with this (client-chosen) record name.
    case create(id: String, TodoDraft)
    /// Save new values for a record.
    case update(id: String, TodoDraft)
    /// Change only some fields of a todo (what the edit form changed, or undoes).
    case edit(id: String, TodoChanges)
    /// Put back a value of the todo that lost a conflict (`LostEditNotice.lossID`).
    case restoreLost(id: String, lossID: String)
    /// Mark a record done or not done.
    case setCompleted(id: String, Bool)
    /// Delete a record.
    case delete(id: String)
    /// Set (true) or clear (false) `isTrashed` on a public record.
    case setTrashed(id: String, Bool)
    /// Put a todo into another list (nil: into none).
    case move(id: String, toList: String?)
    /// Share a list with an account (or change their access).
    case share(listID: String, account: String, ShareAccess)
    /// Take one person off a list's share.
    case removeParticipant(listID: String, account: String)
    /// Stop sharing a list with everyone.
    case stopSharing(listID: String)
    /// Accept an invitation.
    case accept(invitationID: String)
    /// Decline an invitation.
    case decline(invitationID: String)
    /// Leave a list someone shared with the user.
    case leave(listID: String)
    /// Add an annotation (a timestamped note) to a todo.
    case annotate(id: String, text: String)
    /// Skip this occurrence of a repeating todo: it moves to its next due date without being completed.
    case skip(id: String)
    /// Edit a todo's notes (several lines) in the person's editor, starting from `notes`.
    case editNotes(id: String, notes: String)
    /// Undo a skip: the occurrence comes back and the next one it made goes while it is open.
    case unskip(id: String)
    /// Several effects of one bulk action (marked rows), performed together; one undo step puts them all back.
    case batch([Effect])
    /// Remember a filter under a name (the config file's saved filters).
    case saveFilter(name: String, text: String)
    /// Remember the sort order (the config file).
    case setSortOrder(SortOrder)
    /// Remember the context, a saved filter's name (nil: none), as `todo context` does (the config file).
    case setContext(String?)
    /// Fetch now.
    case refresh
    /// Sign this device in again with the password typed (after the session ended).
    case signIn(password: String)
    /// The public board's tab came on screen (true) or left it (false): poll it often while it shows.
    case showingPublicBoard(Bool)
    /// Leave the app.
    case quit
}

import CloudModel
import TodoStore

/// Who is asking: whether signed in, and as which user.
public struct PermissionContext: Sendable, Hashable {
    public var isSignedIn: Bool
    /// The signed-in user's record name.
    public var userRecordName: String?

    /// A context for permission checks.
    public init(isSignedIn: Bool, userRecordName: String?) {
        self.isSignedIn = isSignedIn
        self.userRecordName = userRecordName
    }
}

/// What "trash" does to a record (docs/ARCHITECTURE.md, "Permissions").
public enum TrashAction: Sendable, Hashable {
    /// Delete it; the tombstone propagates.
    case delete
    /// Set `isTrashed = 1` (the public board cannot propagate deletes).
    case markTrashed
    /// Refuse, with words for the user.
    case refuse(String)
}

/// canUpdate / canDelete / trash exactly per the table of docs/ARCHITECTURE.md, "Permissions"; pure functions of a record and a context.
public enum RecordPermissions {
    /// Whether the user may edit the record.
    public static func canUpdate(_ item: TodoItem, _ context: PermissionContext) -> Bool {
        refusal(toUpdate: item, context) == nil
    }

    /// Whether the user may delete the record.
    public static func canDelete(_ item: TodoItem, _ context: PermissionContext) -> Bool {
        trashAction(item, context) == .delete
    }

    /// What trashing the record does.
    public static func trashAction(_ item: TodoItem, _ context: PermissionContext) -> TrashAction {
        if let reason = refusal(toUpdate: item, context) { return .refuse(reason) }
        return item.key.scope == .public ? .markTrashed : .delete
    }

    /// Why the user may not add a todo to `list`, nil when they may.
    public static func refusal(toAddTo list: TodoItem, _ context: PermissionContext) -> String? {
        guard context.isSignedIn else { return "signed out: sign in again to change your todos" }
        switch list.key.scope {
        case .private: return nil
        case .public: return "lists live in your private or shared databases, not on the public board"
        case .shared:
            switch list.sharePermission {
            case .readWrite: return nil
            case .readOnly: return "shared with you read-only: only its owner can add to it"
            case nil: return "your permission on this shared list is not known yet: refresh with r"
            }
        }
    }

    /// Why the user may not edit the record, nil when they may.
    public static func refusal(toUpdate item: TodoItem, _ context: PermissionContext) -> String? {
        guard context.isSignedIn else {
            return item.key.scope == .public
                ? "signed out: the public board is read-only" : "signed out: sign in again to change your todos"
        }
        if item.recordType == ShareSchema.recordType { return "a share changes only through the share dialog (s)" }
        switch item.key.scope {
        case .private:
            return nil
        case .shared:
            if item.isList, item.parent == nil {
                // Say what is true: a read-write participant may still add and change the list's todos.
                switch item.sharePermission {
                case .readWrite: return "only its owner can rename or delete this list; you can add and change its todos"
                case .readOnly: return "shared with you read-only: only its owner can change it or add to it"
                case nil: return "your permission on this shared list is not known yet: refresh with r"
                }
            }
            switch item.sharePermission {
            case .readWrite: return nil
            case .readOnly: return "shared with you read-only: only its owner can change it"
            case nil: return "your permission on this shared list is not known yet: refresh with r"
            }
        case .public:
            guard let creator = item.system.created?.userRecordName else { return nil }  // created here, not yet uploaded
            return creator == context.userRecordName ? nil : "on the public board, only its creator can change it"
        }
    }
}

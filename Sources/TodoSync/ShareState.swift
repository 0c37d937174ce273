import CloudModel
import TodoStore

/// A person on a share, as the share record lists them.
public struct ShareMember: Sendable, Hashable {
    public var userRecordName: String
    public var account: String
    public var permission: SharePermission
    /// Whether they accepted the invitation.
    public var hasAccepted: Bool

    /// A participant of a share.
    public init(userRecordName: String, account: String, permission: SharePermission, hasAccepted: Bool) {
        self.userRecordName = userRecordName
        self.account = account
        self.permission = permission
        self.hasAccepted = hasAccepted
    }
}

/// A `cloudkit.share` record as the device caches it: which list it shares, whose it is, and with whom.
public struct ShareState: Sendable, Hashable {
    /// The share record's own key.
    public var key: RecordKey
    /// The record name of the shared root (a `TodoList`).
    public var rootRecordName: String
    public var ownerUserRecordName: String?
    public var ownerAccount: String?
    public var members: [ShareMember]

    /// Reads a cached share record; nil when the item is not one, or lacks its root.
    public init?(_ item: TodoItem) {
        guard item.recordType == ShareSchema.recordType,
            case .reference(let root)? = item.extraFields[ShareSchema.rootRecordField]
        else { return nil }
        key = item.key
        rootRecordName = root.recordName
        ownerUserRecordName = Self.string(item, ShareSchema.ownerUserRecordNameField)
        ownerAccount = Self.string(item, ShareSchema.ownerAccountField)
        let users = Self.strings(item, ShareSchema.participantUserRecordNamesField)
        let accounts = Self.strings(item, ShareSchema.participantAccountsField)
        let permissions = Self.strings(item, ShareSchema.participantPermissionsField)
        let statuses = Self.strings(item, ShareSchema.participantStatusesField)
        members = users.indices.map { index in
            ShareMember(
                userRecordName: users[index], account: index < accounts.count ? accounts[index] : users[index],
                permission: index < permissions.count ? SharePermission(rawValue: permissions[index]) ?? .readOnly : .readOnly,
                hasAccepted: index < statuses.count && statuses[index] == "ACCEPTED")
        }
    }

    /// The key of the shared list.
    public var rootKey: RecordKey {
        RecordKey(scope: key.scope, zoneName: key.zoneName, zoneOwner: key.zoneOwner, recordName: rootRecordName)
    }

    /// What `userRecordName` may do through this share, nil when they are not on it.
    public func permission(of userRecordName: String?) -> SharePermission? {
        members.first { $0.userRecordName == userRecordName }?.permission
    }

    private static func string(_ item: TodoItem, _ name: String) -> String? {
        if case .string(let value)? = item.extraFields[name] { return value }
        return nil
    }

    private static func strings(_ item: TodoItem, _ name: String) -> [String] {
        guard case .list(_, let values)? = item.extraFields[name] else { return [] }
        return values.compactMap { if case .string(let value) = $0 { value } else { nil } }
    }
}

/// Gives every record of the shared database the permission its share grants the user.
enum SharePermissions {
    /// Sets `sharePermission` on each shared-scope item from the share records among them.
    static func apply(to items: inout [TodoItem], user: String?) {
        var shares: [RecordKey: ShareState] = [:]
        for item in items {
            if let share = ShareState(item) { shares[share.rootKey] = share }
        }
        for index in items.indices { apply(shares, user: user, to: &items[index]) }
    }

    /// Sets `sharePermission` on a shared-scope item from the share (by the key of its root list) covering it.
    static func apply(_ shares: [RecordKey: ShareState], user: String?, to item: inout TodoItem) {
        guard item.key.scope == .shared else { return }
        let root = ShareState(item)?.rootRecordName ?? (item.isList ? item.key.recordName : (item.listName ?? item.key.recordName))
        let rootKey = RecordKey(scope: item.key.scope, zoneName: item.key.zoneName, zoneOwner: item.key.zoneOwner, recordName: root)
        item.sharePermission = shares[rootKey]?.permission(of: user)
    }
}

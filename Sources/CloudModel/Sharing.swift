// Sharing: our additions to the web services for `{scope}/shares/{action}` and the `cloudkit.share` record.

/// The names of the share record type, its fields and the share routes, shared by the cloud and the device.
public enum ShareSchema {
    /// The record type of a share, as in CloudKit.
    public static let recordType = "cloudkit.share"
    /// REFERENCE to the shared root record (`action: NONE`).
    public static let rootRecordField = "rootRecord"
    /// STRING_LIST of the participants' user record names.
    public static let participantUserRecordNamesField = "participantUserRecordNames"
    /// STRING_LIST of the participants' account names, in the same order.
    public static let participantAccountsField = "participantAccounts"
    /// STRING_LIST of `READ_ONLY` / `READ_WRITE`, in the same order.
    public static let participantPermissionsField = "participantPermissions"
    /// STRING_LIST of `PENDING` / `ACCEPTED`, in the same order.
    public static let participantStatusesField = "participantStatuses"
    /// STRING: the owner's user record name.
    public static let ownerUserRecordNameField = "ownerUserRecordName"
    /// STRING: the owner's account name.
    public static let ownerAccountField = "ownerAccount"
    /// Steps followed up `parent` to find a record's root.
    public static let maxHierarchyDepth = 16
    /// Participants one share may list.
    public static let maxParticipants = 100

    /// The name of the share record of a root record (`share-<root>`).
    public static func recordName(forRoot rootRecordName: String) -> String { "share-\(rootRecordName)" }
}

/// What a participant may do with a shared hierarchy.
public enum ShareParticipantPermission: String, Sendable, Hashable, Codable, CaseIterable {
    case readOnly = "READ_ONLY"
    case readWrite = "READ_WRITE"
}

/// Whether a participant has accepted the invitation.
public enum ShareAcceptanceStatus: String, Sendable, Hashable, Codable, CaseIterable {
    case pending = "PENDING"
    case accepted = "ACCEPTED"
}

/// The owner of a share (`{userRecordName, account}`).
public struct ShareOwnerInfo: Sendable, Hashable, Codable {
    public var userRecordName: String
    public var account: String?

    /// The owner by user record name and account name.
    public init(userRecordName: String, account: String?) {
        self.userRecordName = userRecordName
        self.account = account
    }
}

/// A participant of a share as the cloud reports it.
public struct ShareParticipantInfo: Sendable, Hashable, Codable {
    public var userRecordName: String
    public var account: String?
    public var permission: ShareParticipantPermission
    public var acceptanceStatus: ShareAcceptanceStatus

    /// A participant with their permission and acceptance status.
    public init(
        userRecordName: String, account: String?, permission: ShareParticipantPermission, acceptanceStatus: ShareAcceptanceStatus
    ) {
        self.userRecordName = userRecordName
        self.account = account
        self.permission = permission
        self.acceptanceStatus = acceptanceStatus
    }
}

/// A share: its record, root, owner and participants (`shares/*` answers).
public struct ShareInfo: Sendable, Hashable, Codable {
    public var shareRecordName: String
    public var zoneID: ZoneID
    public var rootRecordName: String
    /// The root record's `title`, when it has one (for the invitation list).
    public var rootTitle: String?
    public var recordChangeTag: ChangeTag?
    public var owner: ShareOwnerInfo
    public var participants: [ShareParticipantInfo]
    /// The caller's own entry; only in `shared/shares/list`, accept and leave answers.
    public var currentUserParticipant: ShareParticipantInfo?
    /// The share's short GUID (`records/resolve`, `records/accept` take it).
    public var shortGUID: String?

    /// A share with its root, owner and participants.
    public init(
        shareRecordName: String, zoneID: ZoneID, rootRecordName: String, rootTitle: String? = nil,
        recordChangeTag: ChangeTag? = nil, owner: ShareOwnerInfo, participants: [ShareParticipantInfo],
        currentUserParticipant: ShareParticipantInfo? = nil, shortGUID: String? = nil
    ) {
        self.shareRecordName = shareRecordName
        self.zoneID = zoneID
        self.rootRecordName = rootRecordName
        self.rootTitle = rootTitle
        self.recordChangeTag = recordChangeTag
        self.owner = owner
        self.participants = participants
        self.currentUserParticipant = currentUserParticipant
        self.shortGUID = shortGUID
    }
}

/// What a `shares/modify` operation does: create or replace a share, or revoke it.
public enum ShareOperationType: String, Sendable, Hashable, Codable {
    case save, delete
}

/// `private/shares/modify` request.
public struct ModifySharesRequest: Sendable, Hashable, Codable {
    /// Someone invited to a share, by account name.
    public struct Participant: Sendable, Hashable, Codable {
        public var account: String
        public var permission: ShareParticipantPermission

        /// Invites an account with a permission.
        public init(account: String, permission: ShareParticipantPermission) {
            self.account = account
            self.permission = permission
        }
    }

    /// One share operation, addressed by its root record.
    public struct Operation: Sendable, Hashable, Codable {
        public var operationType: ShareOperationType
        public var zoneID: ZoneID
        public var rootRecordName: String
        /// The whole participant list for `save`; ignored by `delete`.
        public var participants: [Participant]?
        /// The name of a new share's record, as a CloudKit JS client chooses it; `share-<root>` when absent.
        public var shareRecordName: String?

        /// An operation on the share of a root record.
        public init(
            _ type: ShareOperationType, zoneID: ZoneID, rootRecordName: String, participants: [Participant]? = nil,
            shareRecordName: String? = nil
        ) {
            operationType = type
            self.zoneID = zoneID
            self.rootRecordName = rootRecordName
            self.participants = participants
            self.shareRecordName = shareRecordName
        }
    }

    public var operations: [Operation]

    /// A batch of share operations.
    public init(operations: [Operation]) { self.operations = operations }
}

/// A share named by its record and zone, for `shared/shares/accept` and `shared/shares/leave`.
public struct ShareReference: Sendable, Hashable, Codable {
    public var shareRecordName: String
    public var zoneID: ZoneID

    /// The share record `shareRecordName` in the owner's zone `zoneID` (with `ownerRecordName`).
    public init(shareRecordName: String, zoneID: ZoneID) {
        self.shareRecordName = shareRecordName
        self.zoneID = zoneID
    }
}

/// `shared/shares/accept` and `shared/shares/leave` request.
public struct ShareReferenceRequest: Sendable, Hashable, Codable {
    public var shares: [ShareReference]

    /// The shares to accept or leave.
    public init(shares: [ShareReference]) { self.shares = shares }
}

/// One entry of a `shares` result: a share, or that item's error.
public enum ShareResult: Sendable, Hashable, Codable {
    case share(ShareInfo)
    case failure(ServerError)

    public init(from decoder: any Decoder) throws {
        self = try PerItem.decode(decoder, failure: ShareResult.failure, success: ShareResult.share)
    }

    public func encode(to encoder: any Encoder) throws { try PerItem.encode(share, error, to: encoder) }

    /// The share, when the item succeeded.
    public var share: ShareInfo? { if case .share(let s) = self { s } else { nil } }
    /// The error, when the item failed.
    public var error: ServerError? { if case .failure(let e) = self { e } else { nil } }
}

/// The answer of every `shares/*` route: shares or per-item errors.
public struct SharesResponse: Sendable, Hashable, Codable {
    public var shares: [ShareResult]

    /// Wraps the per-share results.
    public init(shares: [ShareResult]) { self.shares = shares }
}

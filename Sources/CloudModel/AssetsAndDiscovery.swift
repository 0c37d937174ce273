/// `assets/upload` request: the asset fields that will get data (`{zoneID?, tokens: [{recordName, recordType, fieldName}]}`).
public struct AssetUploadRequest: Sendable, Hashable, Codable {
    /// One asset field of a record.
    public struct Token: Sendable, Hashable, Codable {
        public var recordName: String
        public var recordType: String?
        public var fieldName: String

        /// Names a record's asset field.
        public init(recordName: String, recordType: String? = nil, fieldName: String) {
            self.recordName = recordName
            self.recordType = recordType
            self.fieldName = fieldName
        }
    }

    public var zoneID: ZoneID?
    public var tokens: [Token]

    /// Asks for upload URLs for asset fields.
    public init(tokens: [Token], zoneID: ZoneID? = nil) {
        self.tokens = tokens
        self.zoneID = zoneID
    }
}

/// `assets/upload` response: where to send each field's data.
public struct AssetUploadResponse: Sendable, Hashable, Codable {
    /// An upload URL for one asset field.
    public struct Token: Sendable, Hashable, Codable {
        public var recordName: String
        public var fieldName: String
        /// POST the file's bytes here (once, within an hour).
        public var url: String

        /// An upload URL.
        public init(recordName: String, fieldName: String, url: String) {
            self.recordName = recordName
            self.fieldName = fieldName
            self.url = url
        }
    }

    public var tokens: [Token]

    /// Upload URLs, one per field asked for.
    public init(tokens: [Token]) { self.tokens = tokens }
}

/// What an upload URL answers: the asset to put in the field's value (`{"type":"ASSETID","value":{…}}`).
public struct AssetUploadResult: Sendable, Hashable, Codable {
    /// The uploaded file.
    public struct SingleFile: Sendable, Hashable, Codable {
        /// SHA-256 of the bytes, base64.
        public var fileChecksum: String
        public var size: Int64
        /// Names the upload in the records/modify that uses it.
        public var receipt: String

        /// An uploaded file.
        public init(fileChecksum: String, size: Int64, receipt: String) {
            self.fileChecksum = fileChecksum
            self.size = size
            self.receipt = receipt
        }
    }

    public var singleFile: SingleFile

    /// The result of one upload.
    public init(singleFile: SingleFile) { self.singleFile = singleFile }
}

/// Who to discover: by account name (ours), by e-mail address (matched against account names), by record name, or by
/// phone number (accounts have none: it finds no one).
public struct UserLookupInfo: Sendable, Hashable, Codable {
    public var accountName: String?
    public var emailAddress: String?
    public var userRecordName: String?
    public var phoneNumber: String?

    /// A lookup by any of the keys.
    public init(accountName: String? = nil, emailAddress: String? = nil, userRecordName: String? = nil, phoneNumber: String? = nil) {
        self.accountName = accountName
        self.emailAddress = emailAddress
        self.userRecordName = userRecordName
        self.phoneNumber = phoneNumber
    }
}

/// `users/discover` request.
public struct DiscoverUsersRequest: Sendable, Hashable, Codable {
    public var lookupInfos: [UserLookupInfo]

    /// Discovers the users these infos name.
    public init(lookupInfos: [UserLookupInfo]) { self.lookupInfos = lookupInfos }
}

/// A discovered user.
public struct DiscoveredUser: Sendable, Hashable, Codable {
    public var userRecordName: String
    /// The lookup that found the user.
    public var lookupInfo: UserLookupInfo
    /// The user's account name (ours; CloudKit sends name components).
    public var accountName: String

    /// A user found by a lookup.
    public init(userRecordName: String, lookupInfo: UserLookupInfo, accountName: String) {
        self.userRecordName = userRecordName
        self.lookupInfo = lookupInfo
        self.accountName = accountName
    }
}

/// `users/discover` response: the users found (those who allowed discovery only).
public struct DiscoverUsersResponse: Sendable, Hashable, Codable {
    public var users: [DiscoveredUser]

    /// Users found.
    public init(users: [DiscoveredUser]) { self.users = users }
}

/// `users/discoverability` (ours): whether the caller may be found by `users/discover` in this container.
public struct DiscoverabilityRequest: Sendable, Hashable, Codable {
    public var discoverable: Bool

    /// Allows (or withdraws) discovery.
    public init(discoverable: Bool) { self.discoverable = discoverable }
}

/// A share's short GUID as `records/resolve` and `records/accept` take it (`{"value": …}`).
public struct ShortGUID: Sendable, Hashable, Codable {
    public var value: String
    /// `records/accept`: whether to answer with the share's root record name too (it always is).
    public var shouldFetchRootRecord: Bool?

    /// A short GUID.
    public init(value: String, shouldFetchRootRecord: Bool? = nil) {
        self.value = value
        self.shouldFetchRootRecord = shouldFetchRootRecord
    }
}

/// `records/resolve` and `records/accept` request: `{"shortGUIDs":[{"value"}]}`.
public struct ShortGUIDsRequest: Sendable, Hashable, Codable {
    public var shortGUIDs: [ShortGUID]

    /// Names shares by their short GUIDs.
    public init(shortGUIDs: [ShortGUID]) { self.shortGUIDs = shortGUIDs }
}

/// One entry of a `records/resolve` or `records/accept` answer: the share (its zone, root and participants), or the
/// entry's error.
public enum ShareLinkResult: Sendable, Hashable, Codable {
    /// A resolved (or accepted) share.
    public struct Found: Sendable, Hashable, Codable {
        public var shortGUID: String
        public var zoneID: ZoneID
        /// The shared root record; nil for a zone-wide share, which roots none.
        public var rootRecordName: String?
        public var share: ShareInfo

        /// A share found by its short GUID.
        public init(shortGUID: String, zoneID: ZoneID, rootRecordName: String?, share: ShareInfo) {
            self.shortGUID = shortGUID
            self.zoneID = zoneID
            self.rootRecordName = rootRecordName
            self.share = share
        }
    }

    case found(Found)
    case failure(ServerError)

    public init(from decoder: any Decoder) throws {
        self = try PerItem.decode(decoder, failure: ShareLinkResult.failure, success: ShareLinkResult.found)
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .found(let found): try PerItem.encode(found, nil, to: encoder)
        case .failure(let error): try PerItem.encode(nil, error, to: encoder)
        }
    }
}

/// `records/resolve` and `records/accept` response: `{"results":[…]}`, in order.
public struct ShareLinksResponse: Sendable, Hashable, Codable {
    public var results: [ShareLinkResult]

    /// Wraps the per-GUID results.
    public init(results: [ShareLinkResult]) { self.results = results }
}

/// `assets/rereference` request: stored asset fields to reference again (`{zoneID?, assets: [{recordName, fieldName,
/// fileChecksum?}]}`).
public struct RereferenceAssetsRequest: Sendable, Hashable, Codable {
    /// One asset field of a stored record (`fileChecksum` picks one asset of a list).
    public struct Asset: Sendable, Hashable, Codable {
        public var recordName: String
        public var fieldName: String
        public var fileChecksum: String?

        /// Names a record's asset field.
        public init(recordName: String, fieldName: String, fileChecksum: String? = nil) {
            self.recordName = recordName
            self.fieldName = fieldName
            self.fileChecksum = fileChecksum
        }
    }

    public var zoneID: ZoneID?
    public var assets: [Asset]

    /// Asks for new references to stored assets.
    public init(assets: [Asset], zoneID: ZoneID? = nil) {
        self.assets = assets
        self.zoneID = zoneID
    }
}

/// One entry of an `assets/rereference` answer: a receipt for the asset (saved like an upload's), or its error.
public enum RereferencedAsset: Sendable, Hashable, Codable {
    /// A new reference to a stored asset.
    public struct Reference: Sendable, Hashable, Codable {
        public var recordName: String
        public var fieldName: String
        public var fileChecksum: String
        public var size: Int64
        public var receipt: String

        /// The asset's new receipt, with what it checks.
        public init(recordName: String, fieldName: String, fileChecksum: String, size: Int64, receipt: String) {
            self.recordName = recordName
            self.fieldName = fieldName
            self.fileChecksum = fileChecksum
            self.size = size
            self.receipt = receipt
        }
    }

    case asset(Reference)
    case failure(ServerError)

    public init(from decoder: any Decoder) throws {
        self = try PerItem.decode(decoder, failure: RereferencedAsset.failure, success: RereferencedAsset.asset)
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .asset(let reference): try PerItem.encode(reference, nil, to: encoder)
        case .failure(let error): try PerItem.encode(nil, error, to: encoder)
        }
    }
}

/// `assets/rereference` response.
public struct RereferenceAssetsResponse: Sendable, Hashable, Codable {
    public var assets: [RereferencedAsset]

    /// Wraps the per-asset results.
    public init(assets: [RereferencedAsset]) { self.assets = assets }
}

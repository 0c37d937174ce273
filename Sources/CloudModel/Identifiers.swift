/// Which of a container's three databases a request addresses.
public enum DatabaseScope: String, Sendable, Hashable, Codable, CaseIterable {
    case `private`
    case shared
    case `public`

    /// The numeric scope CloudKit puts in a notification's `dbs` key.
    public var notificationCode: Int {
        switch self {
        case .public: 0
        case .private: 1
        case .shared: 2
        }
    }

    /// The scope a notification's `dbs` code stands for.
    public init?(notificationCode: Int) {
        switch notificationCode {
        case 0: self = .public
        case 1: self = .private
        case 2: self = .shared
        default: return nil
        }
    }
}

/// A zone, named within its owner's database (`{zoneName, ownerRecordName}`).
public struct ZoneID: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The zone every database has and that needs no creating.
    public static let defaultZoneName = "_defaultZone"
    /// The default zone of the caller's database.
    public static let `default` = ZoneID(zoneName: defaultZoneName)

    public var zoneName: String
    public var ownerRecordName: String?

    /// A zone by name, optionally of a given owner.
    public init(zoneName: String, ownerRecordName: String? = nil) {
        self.zoneName = zoneName
        self.ownerRecordName = ownerRecordName
    }

    /// Whether this is the database's default zone.
    public var isDefault: Bool { zoneName == Self.defaultZoneName }

    public var description: String { ownerRecordName.map { "\(zoneName)@\($0)" } ?? zoneName }
}

/// A record's identity: its name within a zone.
public struct RecordID: Sendable, Hashable, Codable, CustomStringConvertible {
    public var recordName: String
    public var zoneID: ZoneID

    /// A record name within a zone.
    public init(recordName: String, zoneID: ZoneID = .default) {
        self.recordName = recordName
        self.zoneID = zoneID
    }

    public var description: String { "\(zoneID)/\(recordName)" }
}

/// The server's version stamp of a record (`recordChangeTag`); opaque to clients.
public typealias ChangeTag = String

/// A position in a change feed (`syncToken`); opaque to clients.
public struct ChangeToken: Sendable, Hashable, Codable, RawRepresentable, CustomStringConvertible {
    public var rawValue: String

    /// Wraps the token string a server handed out.
    public init(rawValue: String) { self.rawValue = rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }
}

/// Container and environment, the first two parts of every path.
public struct ContainerAddress: Sendable, Hashable {
    public var container: String
    public var environment: String

    /// The container our app uses unless configured otherwise.
    public static let `default` = ContainerAddress(container: "iCloud.dev.cloudtodo", environment: "development")

    /// A container identifier in an environment (`development` or `production`).
    public init(container: String, environment: String) {
        self.container = container
        self.environment = environment
    }
}

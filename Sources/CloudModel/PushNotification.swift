/// An APNs-style push as the web courier delivers it: `{"aps":{"content-available":1},"ck":{"nid","cid",…}}` with
/// `fet` (a zone's records changed: zone subscriptions, and database subscriptions beside their `met`) or `qry` (a
/// query subscription's record), the parts CloudKit JS reads.
public struct PushNotification: Sendable, Hashable, Codable {
    /// The `aps` dictionary.
    public struct APS: Sendable, Hashable, Codable {
        public var contentAvailable: Int?
        public var alert: String?

        enum CodingKeys: String, CodingKey {
            case contentAvailable = "content-available"
            case alert
        }

        /// A silent push.
        public init(contentAvailable: Int? = 1, alert: String? = nil) {
            self.contentAvailable = contentAvailable
            self.alert = alert
        }
    }

    /// A database subscription's part (`met`).
    public struct DatabaseInfo: Sendable, Hashable, Codable {
        /// Subscription ID.
        public var sid: String
        /// Database scope code (0 public, 1 private, 2 shared).
        public var dbs: Int

        /// The subscription that fired and its database.
        public init(sid: String, dbs: Int) {
            self.sid = sid
            self.dbs = dbs
        }
    }

    /// A zone's part (`fet`): which subscription fired for which zone (name and owner).
    public struct ZoneInfo: Sendable, Hashable, Codable {
        public var sid: String
        public var dbs: Int
        /// Zone name.
        public var zid: String
        /// The zone owner's user record name.
        public var zoid: String

        /// The subscription that fired, for a zone of a database.
        public init(sid: String, dbs: Int, zid: String, zoid: String) {
            self.sid = sid
            self.dbs = dbs
            self.zid = zid
            self.zoid = zoid
        }
    }

    /// A query subscription's part (`qry`).
    public struct QueryInfo: Sendable, Hashable, Codable {
        public var sid: String
        public var dbs: Int
        /// Record name.
        public var rid: String?
        /// Zone name and owner.
        public var zid: String?
        public var zoid: String?
        /// Fired on: 1 create, 2 update, 3 delete.
        public var fo: Int?

        /// The query subscription that fired, and for which record.
        public init(sid: String, dbs: Int, rid: String?, zid: String?, zoid: String?, fo: Int?) {
            self.sid = sid
            self.dbs = dbs
            self.rid = rid
            self.zid = zid
            self.zoid = zoid
            self.fo = fo
        }
    }

    /// The `ck` dictionary.
    public struct CK: Sendable, Hashable, Codable {
        /// Notification ID.
        public var nid: String
        /// Container identifier.
        public var cid: String
        public var met: DatabaseInfo?
        public var fet: ZoneInfo?
        public var qry: QueryInfo?

        /// The CloudKit part of a push.
        public init(nid: String, cid: String, met: DatabaseInfo? = nil, fet: ZoneInfo? = nil, qry: QueryInfo? = nil) {
            self.nid = nid
            self.cid = cid
            self.met = met
            self.fet = fet
            self.qry = qry
        }
    }

    public var aps: APS
    public var ck: CK

    /// A push made of its two parts.
    public init(aps: APS = APS(), ck: CK) {
        self.aps = aps
        self.ck = ck
    }

    /// The database the push is about, if it says.
    public var scope: DatabaseScope? {
        (ck.met?.dbs ?? ck.fet?.dbs ?? ck.qry?.dbs).flatMap(DatabaseScope.init(notificationCode:))
    }
}

/// `tokens/create` request.
public struct CreateTokenRequest: Sendable, Hashable, Codable {
    public var apnsEnvironment: String

    /// Asks for a push token in an environment.
    public init(apnsEnvironment: String = "development") { self.apnsEnvironment = apnsEnvironment }
}

/// `tokens/create` response.
public struct CreateTokenResponse: Sendable, Hashable, Codable {
    public var apnsEnvironment: String
    public var apnsToken: String
    /// Where the device long-polls for its notifications.
    public var webcourierURL: String

    /// A new token and its courier URL.
    public init(apnsEnvironment: String, apnsToken: String, webcourierURL: String) {
        self.apnsEnvironment = apnsEnvironment
        self.apnsToken = apnsToken
        self.webcourierURL = webcourierURL
    }
}

/// `tokens/register` request (and response).
public struct RegisterTokenRequest: Sendable, Hashable, Codable {
    public var apnsEnvironment: String
    public var apnsToken: String

    /// Binds a token to the caller's device.
    public init(apnsEnvironment: String = "development", apnsToken: String) {
        self.apnsEnvironment = apnsEnvironment
        self.apnsToken = apnsToken
    }
}

/// `POST /device/1/{container}/{env}/push`: a test push to one of the caller's devices.
public struct TestPushRequest: Sendable, Hashable, Codable {
    public var deviceName: String

    /// Names the device to notify.
    public init(deviceName: String) { self.deviceName = deviceName }
}

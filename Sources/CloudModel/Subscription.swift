/// What a subscription watches: a zone, a query, or (our extension) a whole database.
public enum SubscriptionType: String, Sendable, Hashable, Codable {
    case zone, query, database
}

/// Which record events fire a query subscription.
public enum FiresOn: String, Sendable, Hashable, Codable {
    case create, update, delete
}

/// How the push of a subscription looks (`notificationInfo`).
public struct NotificationInfo: Sendable, Hashable, Codable {
    public var shouldSendContentAvailable: Bool?
    public var alertBody: String?
    public var shouldBadge: Bool?

    /// A silent (content-available) notification, or an alert.
    public init(shouldSendContentAvailable: Bool? = true, alertBody: String? = nil) {
        self.shouldSendContentAvailable = shouldSendContentAvailable
        self.alertBody = alertBody
    }
}

/// A saved subscription.
public struct Subscription: Sendable, Hashable, Codable {
    public var subscriptionID: String
    public var subscriptionType: SubscriptionType
    public var zoneID: ZoneID?
    public var query: Query?
    public var firesOn: [FiresOn]?
    public var notificationInfo: NotificationInfo?

    /// A subscription of a type with its ID.
    public init(
        subscriptionID: String, subscriptionType: SubscriptionType, zoneID: ZoneID? = nil, query: Query? = nil,
        firesOn: [FiresOn]? = nil, notificationInfo: NotificationInfo? = NotificationInfo()
    ) {
        self.subscriptionID = subscriptionID
        self.subscriptionType = subscriptionType
        self.zoneID = zoneID
        self.query = query
        self.firesOn = firesOn
        self.notificationInfo = notificationInfo
    }
}

/// What a `subscriptions/modify` operation does.
public enum SubscriptionOperationType: String, Sendable, Hashable, Codable {
    case create, update, delete
}

/// `subscriptions/modify` request.
public struct ModifySubscriptionsRequest: Sendable, Hashable, Codable {
    /// One subscription operation.
    public struct Operation: Sendable, Hashable, Codable {
        public var operationType: SubscriptionOperationType
        public var subscription: Subscription

        /// An operation on a subscription.
        public init(_ type: SubscriptionOperationType, _ subscription: Subscription) {
            operationType = type
            self.subscription = subscription
        }

        private enum CodingKeys: String, CodingKey { case operationType, subscription }

        /// A delete may name its subscription by `subscriptionID` alone (the cloud answers with the stored one).
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            operationType = try c.decode(SubscriptionOperationType.self, forKey: .operationType)
            if operationType == .delete, let reference = try? c.decode(SubscriptionReference.self, forKey: .subscription),
                (try? c.decode(Subscription.self, forKey: .subscription)) == nil
            {
                subscription = Subscription(subscriptionID: reference.subscriptionID, subscriptionType: .query, notificationInfo: nil)
            } else {
                subscription = try c.decode(Subscription.self, forKey: .subscription)
            }
        }
    }

    public var operations: [Operation]

    /// A batch of subscription operations.
    public init(operations: [Operation]) { self.operations = operations }
}

/// A subscription named by its ID alone (`subscriptions/lookup`, a delete).
public struct SubscriptionReference: Sendable, Hashable, Codable {
    public var subscriptionID: String

    /// Names a subscription.
    public init(subscriptionID: String) { self.subscriptionID = subscriptionID }
}

/// `subscriptions/lookup` request: `{"subscriptions":[{"subscriptionID"}]}`.
public struct LookupSubscriptionsRequest: Sendable, Hashable, Codable {
    public var subscriptions: [SubscriptionReference]

    /// Looks up subscriptions by ID.
    public init(subscriptions: [SubscriptionReference]) { self.subscriptions = subscriptions }
}

/// One entry of a `subscriptions` result: a subscription, or its error.
public enum SubscriptionResult: Sendable, Hashable, Codable {
    case subscription(Subscription)
    case failure(ServerError)

    public init(from decoder: any Decoder) throws {
        self = try PerItem.decode(decoder, failure: SubscriptionResult.failure, success: SubscriptionResult.subscription)
    }

    public func encode(to encoder: any Encoder) throws { try PerItem.encode(subscription, error, to: encoder) }

    /// The subscription, when the item succeeded.
    public var subscription: Subscription? { if case .subscription(let s) = self { s } else { nil } }
    /// The error, when the item failed.
    public var error: ServerError? { if case .failure(let e) = self { e } else { nil } }
}

/// `subscriptions/modify` and `subscriptions/list` response.
public struct SubscriptionsResponse: Sendable, Hashable, Codable {
    public var subscriptions: [SubscriptionResult]

    /// Wraps the per-subscription results.
    public init(subscriptions: [SubscriptionResult]) { self.subscriptions = subscriptions }
}

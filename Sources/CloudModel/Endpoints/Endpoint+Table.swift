// The cloud's protocol, one entry per call: the only place its paths are spelled.

private let feeds: Set<DatabaseScope> = [.private, .shared]

extension AnyEndpoint {
    /// Every endpoint of the protocol, in the order of the docs.
    public static let all: [AnyEndpoint] = [
        Endpoint.recordsModify.erased, Endpoint.recordsLookup.erased, Endpoint.recordsQuery.erased,
        Endpoint.recordsChanges.erased, Endpoint.changesDatabase.erased, Endpoint.changesZone.erased,
        Endpoint.zonesChanges.erased, Endpoint.zonesList.erased, Endpoint.zonesLookup.erased, Endpoint.zonesModify.erased,
        Endpoint.subscriptionsModify.erased, Endpoint.subscriptionsList.erased, Endpoint.subscriptionsLookup.erased,
        Endpoint.sharesModify.erased,
        Endpoint.sharesList.erased, Endpoint.sharesAccept.erased, Endpoint.sharesLeave.erased, Endpoint.assetsUpload.erased,
        Endpoint.assetsRereference.erased, Endpoint.recordsResolve.erased, Endpoint.recordsAccept.erased,
        Endpoint.usersDiscover.erased, Endpoint.usersDiscoverability.erased, Endpoint.usersCaller.erased,
        Endpoint.usersCurrent.erased, Endpoint.tokensCreate.erased, Endpoint.tokensRegister.erased, Endpoint.push.erased,
        Endpoint.devicesList.erased, Endpoint.devicesRevoke.erased, Endpoint.createAccount.erased, Endpoint.signIn.erased,
        Endpoint.signOut.erased, Endpoint.faults.erased, Endpoint.compact.erased, Endpoint.health.erased,
        Endpoint.appPasswordsCreate.erased,
    ]
}

// MARK: Records

extension Endpoint where Request == ModifyRecordsRequest, Response == RecordsResponse {
    /// `records/modify`: saves and deletes records, per-item results in order.
    public static var recordsModify: Self { .database(.post, "records/modify") }
}

extension Endpoint where Request == LookupRecordsRequest, Response == RecordsResponse {
    /// `records/lookup`: records by name, per-item results in order.
    public static var recordsLookup: Self { .database(.post, "records/lookup") }
}

extension Endpoint where Request == QueryRequest, Response == QueryResponse {
    /// `records/query`: one page of the records a query matches.
    public static var recordsQuery: Self { .database(.post, "records/query") }
}

extension Endpoint where Request == RecordChangesRequest, Response == RecordChangesResponse {
    /// `records/changes`: one page of one zone's changes (the older single-zone feed).
    public static var recordsChanges: Self { .database(.post, "records/changes", in: feeds) }
}

// MARK: Change feeds

extension Endpoint where Request == DatabaseChangesRequest, Response == DatabaseChangesResponse {
    /// `changes/database`: zones changed or deleted after a database token.
    public static var changesDatabase: Self { .database(.post, "changes/database", in: feeds) }
}

extension Endpoint where Request == ZoneChangesRequest, Response == ZoneChangesResponse {
    /// `changes/zone`: a page of each zone's records and tombstones after its token.
    public static var changesZone: Self { .database(.post, "changes/zone", in: feeds) }
}

extension Endpoint where Request == DatabaseChangesRequest, Response == ZonesChangesResponse {
    /// `zones/changes`: the older form of the database feed (also answered for a GET).
    public static var zonesChanges: Self { .database(.post, "zones/changes", in: feeds, alsoGET: true) }
}

// MARK: Zones

extension Endpoint where Request == EmptyBody, Response == ZonesResponse {
    /// `zones/list`: every zone of the database.
    public static var zonesList: Self { .database(.get, "zones/list") }
}

extension Endpoint where Request == LookupZonesRequest, Response == ZonesResponse {
    /// `zones/lookup`: zones by ID, per-item results in order.
    public static var zonesLookup: Self { .database(.post, "zones/lookup") }
}

extension Endpoint where Request == ModifyZonesRequest, Response == ZonesResponse {
    /// `zones/modify`: creates, deletes or purges custom zones (the private database's).
    public static var zonesModify: Self { .database(.post, "zones/modify", in: [.private]) }
}

// MARK: Subscriptions

extension Endpoint where Request == ModifySubscriptionsRequest, Response == SubscriptionsResponse {
    /// `subscriptions/modify`: saves and deletes the caller's subscriptions.
    public static var subscriptionsModify: Self { .database(.post, "subscriptions/modify") }
}

extension Endpoint where Request == EmptyBody, Response == SubscriptionsResponse {
    /// `subscriptions/list`: the caller's subscriptions in the database.
    public static var subscriptionsList: Self { .database(.get, "subscriptions/list") }
}

extension Endpoint where Request == LookupSubscriptionsRequest, Response == SubscriptionsResponse {
    /// `subscriptions/lookup`: the caller's subscriptions by ID, per-item results in order.
    public static var subscriptionsLookup: Self { .database(.post, "subscriptions/lookup") }
}

// MARK: Shares

extension Endpoint where Request == ModifySharesRequest, Response == SharesResponse {
    /// `shares/modify`: creates, replaces or revokes shares of the owner's root records.
    public static var sharesModify: Self { .database(.post, "shares/modify", in: [.private]) }
}

extension Endpoint where Request == EmptyBody, Response == SharesResponse {
    /// `shares/list`: the shares the caller owns (private) or was invited to (shared).
    public static var sharesList: Self { .database(.get, "shares/list", in: feeds) }
}

extension Endpoint where Request == ShareReferenceRequest, Response == SharesResponse {
    /// `shares/accept`: accepts invitations.
    public static var sharesAccept: Self { .database(.post, "shares/accept", in: [.shared]) }
    /// `shares/leave`: removes the caller from shares.
    public static var sharesLeave: Self { .database(.post, "shares/leave", in: [.shared]) }
}

extension Endpoint where Request == ShortGUIDsRequest, Response == ShareLinksResponse {
    /// `records/resolve`: shares by the short GUIDs of their URLs (for their owner and participants).
    public static var recordsResolve: Self { .database(.post, "records/resolve") }
    /// `records/accept`: accepts the shares of short GUIDs (the caller's invitations).
    public static var recordsAccept: Self { .database(.post, "records/accept", in: [.shared]) }
}

// MARK: Assets and users

extension Endpoint where Request == AssetUploadRequest, Response == AssetUploadResponse {
    /// `assets/upload`: an upload URL per asset field named.
    public static var assetsUpload: Self { .database(.post, "assets/upload") }
}

extension Endpoint where Request == RereferenceAssetsRequest, Response == RereferenceAssetsResponse {
    /// `assets/rereference`: new receipts for assets stored in records' fields, to save in other records.
    public static var assetsRereference: Self { .database(.post, "assets/rereference", in: [.private, .public]) }
}

extension Endpoint where Request == DiscoverUsersRequest, Response == DiscoverUsersResponse {
    /// `users/discover`: the users found by account name, among those who allowed it (a GET: every discoverable user
    /// the caller shares with).
    public static var usersDiscover: Self { .database(.post, "users/discover", alsoGET: true) }
}

extension Endpoint where Request == DiscoverabilityRequest, Response == DiscoverabilityRequest {
    /// `users/discoverability` (ours): the caller allows, or withdraws, being found.
    public static var usersDiscoverability: Self { .database(.post, "users/discoverability") }
}

extension Endpoint where Request == EmptyBody, Response == UserIdentity {
    /// `users/caller`: who the caller is.
    public static var usersCaller: Self { .database(.get, "users/caller") }
    /// `users/current`: who the caller is (the older name).
    public static var usersCurrent: Self { .database(.get, "users/current") }
}

// MARK: Devices and push

extension Endpoint where Request == CreateTokenRequest, Response == CreateTokenResponse {
    /// `tokens/create`: a new push token and the courier URL to long-poll.
    public static var tokensCreate: Self { .init(.device, .post, "tokens/create") }
}

extension Endpoint where Request == RegisterTokenRequest, Response == RegisterTokenRequest {
    /// `tokens/register`: binds a push token to the caller's device.
    public static var tokensRegister: Self { .init(.device, .post, "tokens/register") }
}

extension Endpoint where Request == TestPushRequest, Response == EmptyBody {
    /// `push` (ours): a test notification to one of the caller's devices.
    public static var push: Self { .init(.device, .post, "push") }
}

extension Endpoint where Request == EmptyBody, Response == DevicesResponse {
    /// `devices/list` (ours): the devices signed in to the caller's account.
    public static var devicesList: Self { .init(.device, .post, "devices/list") }
}

extension Endpoint where Request == RevokeDeviceRequest, Response == DevicesResponse {
    /// `devices/revoke` (ours): ends the session of one of the caller's devices.
    public static var devicesRevoke: Self { .init(.device, .post, "devices/revoke") }
}

extension Endpoint where Request == CreateAppPasswordRequest, Response == CreateAppPasswordResponse {
    /// `app-passwords/create` (ours): a password for a CalDAV client, listed and revoked as a device.
    public static var appPasswordsCreate: Self { .init(.device, .post, "app-passwords/create") }
}

// MARK: Accounts

extension Endpoint where Request == CreateAccountRequest, Response == CreateAccountResponse {
    /// `accounts`: registers an account (open-registration clouds only).
    public static var createAccount: Self { .init(.auth, .post, "accounts") }
}

extension Endpoint where Request == SignInRequest, Response == SignInResponse {
    /// `signin`: a session for a device.
    public static var signIn: Self { .init(.auth, .post, "signin") }
}

extension Endpoint where Request == EmptyBody, Response == EmptyBody {
    /// `signout`: ends the caller's session.
    public static var signOut: Self { .init(.auth, .post, "signout") }
    /// `admin/1/compact`: drops old tombstones now (faults-enabled clouds only).
    public static var compact: Self { .init(.admin, .post, "compact") }
}

// MARK: Operations

extension Endpoint where Request == FaultRequest, Response == FaultRequest {
    /// `admin/1/faults`: makes the next calls of an endpoint fail (faults-enabled clouds only).
    public static var faults: Self { .init(.admin, .post, "faults") }
}

extension Endpoint where Request == EmptyBody, Response == HealthStatus {
    /// `/health`: whether the cloud answers (also for a HEAD); needs no API token.
    public static var health: Self { .init(.health, .get, "", also: [.head]) }
}

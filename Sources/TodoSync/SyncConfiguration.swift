import CloudClient
import CloudModel
import Foundation
import TodoStore

/// How a sync engine behaves.
public struct SyncConfiguration: Sendable {
    /// The device's name (as signed in).
    public var deviceName: String
    /// The device ID the cloud gave at sign-in; orders concurrent edits in a merge.
    public var deviceID: String
    /// The account name, for display.
    public var account: String?
    /// Seconds between public-board polls (default 5 minutes).
    public var publicPollInterval: Double
    /// Seconds between reachability probes while offline.
    public var reachabilityProbeInterval: Double
    /// Records per `changes/zone` page (≤ 200).
    public var fetchPageSize: Int
    /// Whether local edits are sent at once in the background (the command line sends explicitly).
    public var sendsAutomatically: Bool
    /// Backoff and retry limits.
    public var retryPolicy: RetryPolicy
    /// Seconds each push long-poll is held.
    public var pushPollTimeout: Int
    /// Seconds a trashed todo is kept (hidden) before it is deleted for good: as long as an edit made offline elsewhere
    /// may still arrive and bring it back (30 days, as long as the cloud keeps tombstones).
    public var trashRetention: Double
    /// The most outbox entries an import hands to the next pass as it committed them (the rest are read back in
    /// chunks, as any outbox is): what an import of 100,000 keeps in memory until they are sent (0: none).
    public var importHandOff: Int

    /// A configuration for a device.
    public init(
        deviceName: String, deviceID: String? = nil, account: String? = nil, publicPollInterval: Double = 300,
        reachabilityProbeInterval: Double = 3, fetchPageSize: Int = CloudLimits.maxResultsPerPage, sendsAutomatically: Bool = true,
        retryPolicy: RetryPolicy = RetryPolicy(), pushPollTimeout: Int = 25, trashRetention: Double = 30 * 86_400,
        importHandOff: Int = 10_000
    ) {
        self.deviceName = deviceName
        self.deviceID = deviceID ?? deviceName
        self.account = account
        self.publicPollInterval = publicPollInterval
        self.reachabilityProbeInterval = reachabilityProbeInterval
        self.fetchPageSize = max(1, min(fetchPageSize, CloudLimits.maxResultsPerPage))
        self.sendsAutomatically = sendsAutomatically
        self.retryPolicy = retryPolicy
        self.pushPollTimeout = pushPollTimeout
        self.trashRetention = trashRetention
        self.importHandOff = max(0, importHandOff)
    }
}

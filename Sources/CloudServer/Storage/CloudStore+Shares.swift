import CloudModel
import Foundation

/// A share as stored: the share record's name and the root record it shares, in one owner zone.
struct ShareRow: Sendable, Hashable {
    var zonePK: Int64
    var recordName: String
    var rootRecordName: String
}

/// One participant of a share, in the order the owner listed them.
struct ParticipantRow: Sendable, Hashable {
    var userRecordName: String
    var permission: ShareParticipantPermission
    var accepted: Bool
}

/// What the hierarchy code needs to know of a record: where it hangs and whether it is live.
struct RecordLink: Sendable, Hashable {
    var parent: String?
    /// The root last computed on write; nil in zones that had no share when the record was written.
    var root: String?
    var recordType: String
    var deleted: Bool
}

/// Storage of shares, participants, computed roots and the views participants have of owner zones.
protocol ShareStoreTransaction: AnyObject {
    /// Whether any share lives in the zone (cached: asked on every write).
    func zoneHasShares(zonePK: Int64) async throws -> Bool
    func share(zonePK: Int64, recordName: String) async throws -> ShareRow?
    func share(zonePK: Int64, root: String) async throws -> ShareRow?
    func insertShare(_ share: ShareRow) async throws
    /// Removes a share and its participants.
    func deleteShare(zonePK: Int64, recordName: String) async throws
    func participants(zonePK: Int64, shareRecordName: String) async throws -> [ParticipantRow]
    /// Replaces the participant list of a share, keeping the given order.
    func setParticipants(zonePK: Int64, shareRecordName: String, _ participants: [ParticipantRow]) async throws
    /// Shares in the private zones an owner has in a container, with their zones.
    func ownedShares(container: String, owner: String) async throws -> [(zone: StoredZone, share: ShareRow)]
    /// Shares that list a user as participant (pending or accepted) in a container, with their zones.
    func sharesListing(container: String, participant: String) async throws -> [(zone: StoredZone, share: ShareRow)]
    /// Owner zones in which a user has accepted at least one share.
    func sharedZones(container: String, participant: String) async throws -> [StoredZone]
    /// The roots a user has accepted shares of in a zone, with the permission of each.
    func acceptedRoots(zonePK: Int64, participant: String) async throws -> [String: ShareParticipantPermission]
    /// Users who accepted a share of one of `roots` in a zone.
    func acceptedParticipants(zonePK: Int64, roots: Set<String>) async throws -> Set<String>
    /// Every user listed (pending or accepted) in any share of a zone, with whether they accepted one.
    func participantsOfZone(zonePK: Int64) async throws -> [String: Bool]

    /// The position after which a participant's view of a zone last changed; older tokens expire.
    func viewEpoch(zonePK: Int64, participant: String) async throws -> Int64
    func setViewEpoch(zonePK: Int64, participant: String, epoch: Int64) async throws

    func recordLink(zonePK: Int64, name: String) async throws -> RecordLink?
    func setRoot(zonePK: Int64, name: String, root: String) async throws
    /// Moves a record to a new root and a new feed position, leaving its change tag alone.
    func moveRecord(zonePK: Int64, name: String, root: String, seq: Int64) async throws
    /// Names and parents of the records whose computed root is `root`.
    func recordsUnder(zonePK: Int64, root: String) async throws -> [(name: String, parent: String?)]
    /// Names, parents and types of every record of a zone (to compute roots when a zone gets its first share).
    func allLinks(zonePK: Int64) async throws -> [(name: String, parent: String?, recordType: String)]
    /// Notes that a record left the hierarchy of `oldRoot` at `seq`, so participants of it get a tombstone.
    func noteRootExit(zonePK: Int64, name: String, oldRoot: String, seq: Int64, now: Int64) async throws

    /// The zone feed as a participant sees it: records under `roots`, and tombstones of records that left them.
    func visibleChanges(zonePK: Int64, after seq: Int64, limit: Int, includeTombstones: Bool, roots: Set<String>) async throws
        -> [StoredRecord]
    /// Live records of a type under `roots`, for a participant's queries.
    func visibleLiveRecords(zonePK: Int64, recordType: String, modifiedAfter: Int64?, roots: Set<String>) async throws
        -> [StoredRecord]
}

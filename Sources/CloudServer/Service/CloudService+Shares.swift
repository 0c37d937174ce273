import CloudModel
import Foundation

extension CloudService {
    // MARK: Routes

    /// `private/shares/modify`: creates or replaces (`save`) and revokes (`delete`) shares of root records.
    func modifyShares(_ request: ModifySharesRequest, _ database: DatabaseKey, _ caller: Caller) async throws -> ServiceResponse {
        guard database.scope == .private else {
            throw ServerError(.badRequest, "shares/modify works on the private database, where the owner's zones are")
        }
        let user = try caller.requireUser()
        guard !request.operations.isEmpty, request.operations.count <= CloudLimits.maxOperationsPerRequest else {
            throw ServerError(.badRequest, "send 1 to \(CloudLimits.maxOperationsPerRequest) share operations")
        }
        let operations = request.operations
        let stamp = RecordStamp(timestamp: nowMillis, userRecordName: user, deviceID: caller.deviceID)
        let results = try await write(notifying: { tx -> ([ShareResult], [ChangeNotice]) in
            var effects = ShareEffects()
            var results: [ShareResult] = []
            for operation in operations {
                do {
                    results.append(.share(try await self.applyShareOperation(operation, database, stamp: stamp, tx: tx, &effects)))
                } catch var error as ServerError {
                    error.rootRecordName = operation.rootRecordName
                    error.zoneID = operation.zoneID
                    results.append(.failure(error))
                }
            }
            return (results, Self.shareNotices(effects, writer: caller))
        })
        return try .encode(SharesResponse(shares: results))
    }

    /// `private/shares/list` (the shares the caller owns) and `shared/shares/list` (shares listing the caller).
    func listShares(_ database: DatabaseKey, _ caller: Caller) async throws -> ServiceResponse {
        let user = try caller.requireUser()
        let shares = try await store.read { tx -> [ShareResult] in
            switch database.scope {
            case .private:
                return try await tx.ownedShares(container: database.container, owner: user).asyncMap {
                    .share(try await self.shareInfo(tx, $0.zone, $0.share, currentUser: nil))
                }
            case .shared:
                return try await tx.sharesListing(container: database.container, participant: user).asyncMap {
                    .share(try await self.shareInfo(tx, $0.zone, $0.share, currentUser: user))
                }
            case .public:
                throw ServerError(.badRequest, "the public database has no shares")
            }
        }
        return try .encode(SharesResponse(shares: shares))
    }

    /// `shared/shares/accept` and `shared/shares/leave`: the caller accepts an invitation or removes themself.
    func acceptOrLeaveShares(
        _ request: ShareReferenceRequest, _ database: DatabaseKey, _ caller: Caller, leave: Bool
    ) async throws -> ServiceResponse {
        guard database.scope == .shared else {
            throw ServerError(.badRequest, "shares/\(leave ? "leave" : "accept") works on the shared database")
        }
        let user = try caller.requireUser()
        guard !request.shares.isEmpty, request.shares.count <= CloudLimits.maxOperationsPerRequest else {
            throw ServerError(.badRequest, "name 1 to \(CloudLimits.maxOperationsPerRequest) shares")
        }
        let items = request.shares
        let stamp = RecordStamp(timestamp: nowMillis, userRecordName: user, deviceID: caller.deviceID)
        let results = try await write(notifying: { tx -> ([ShareResult], [ChangeNotice]) in
            var effects = ShareEffects()
            var results: [ShareResult] = []
            for item in items {
                do {
                    let share = try await self.acceptOrLeave(item, database, stamp: stamp, leave: leave, tx: tx, &effects)
                    results.append(.share(share))
                } catch var error as ServerError {
                    error.shareRecordName = item.shareRecordName
                    error.zoneID = item.zoneID
                    results.append(.failure(error))
                }
            }
            return (results, Self.shareNotices(effects, writer: caller))
        })
        return try .encode(SharesResponse(shares: results))
    }

    // MARK: Operations

    private func applyShareOperation(
        _ operation: ModifySharesRequest.Operation, _ database: DatabaseKey, stamp: RecordStamp, tx: any StoreTransaction,
        _ effects: inout ShareEffects
    ) async throws -> ShareInfo {
        guard !operation.zoneID.isDefault else {
            throw ServerError(.badRequest, "the default zone cannot be shared: sharing needs a custom zone such as 'Todos'")
        }
        guard let zone = try await resolveZone(tx, database, operation.zoneID, create: false) else {
            throw ServerError(.zoneNotFound, "zone '\(operation.zoneID.zoneName)' not found")
        }
        let rootName = operation.rootRecordName
        guard Validation.isRecordName(rootName) else {
            throw ServerError(.badRequest, "rootRecordName must be 1 to 255 bytes without control characters")
        }
        // A zone-wide share's record always has its fixed name; another share's may be the client's choice.
        if let shareName = operation.shareRecordName, rootName != ZoneShare.name {
            guard Validation.isRecordName(shareName), shareName != rootName, shareName != ZoneShare.name else {
                throw ServerError(
                    .badRequest, "a share record's name must be 1 to 255 bytes without control characters, other than its root's and '\(ZoneShare.name)'")
            }
        }
        let now = stamp.timestamp
        switch operation.operationType {
        case .delete:
            guard let share = try await tx.share(zonePK: zone.pk, root: rootName) else {
                throw ServerError(.notFound, "'\(rootName)' is not shared")
            }
            var info = try await shareInfo(tx, zone, share, currentUser: nil)
            info.recordChangeTag = try await revokeShare(tx, zone, share, stamp: stamp, &effects)
            info.participants = []
            return info

        case .save:
            let invited = operation.participants ?? []
            guard invited.count <= ShareSchema.maxParticipants else {
                throw ServerError(.limitExceeded, "a share lists at most \(ShareSchema.maxParticipants) participants")
            }
            // A zone-wide share roots no record: it shares the zone.
            let zoneWide = rootName == ZoneShare.name
            if !zoneWide {
                guard let root = try await tx.record(zonePK: zone.pk, name: rootName), !root.deleted else {
                    throw ServerError(.notFound, "record '\(rootName)' not found")
                }
                guard root.recordType != ShareSchema.recordType else {
                    throw ServerError(.badRequest, "'\(rootName)' is a share; share the record it roots instead")
                }
                if let parent = root.parent {
                    throw ServerError(
                        .badRequest, "'\(rootName)' has a parent ('\(parent)'): only a root record (a list) can be shared")
                }
            }
            var chosen: [(user: String, permission: ShareParticipantPermission)] = []
            var seen: Set<String> = []
            for participant in invited {
                guard let row = try await tx.user(account: participant.account) else {
                    throw ServerError(.notFound, "no account named '\(participant.account.prefix(64))'")
                }
                guard row.userRecordName != database.owner else {
                    throw ServerError(.badRequest, "you cannot share with yourself ('\(row.account)')")
                }
                guard seen.insert(row.userRecordName).inserted else {
                    throw ServerError(.badRequest, "'\(row.account)' is listed twice")
                }
                chosen.append((row.userRecordName, participant.permission))
            }

            // Everything is checked: from here on the operation writes.
            let existing = try await tx.share(zonePK: zone.pk, root: rootName)
            try await checkOneShare(tx, zone, root: rootName, existing: existing)
            let shareName = zoneWide ? ZoneShare.name : operation.shareRecordName ?? ShareSchema.recordName(forRoot: rootName)
            if let existing, existing.recordName != shareName {
                // One share to a root, as in CloudKit: a client naming another one would otherwise lose track of it.
                throw ServerError(
                    .exists, "'\(rootName)' is already shared by the share record '\(existing.recordName)': save that record to change the share")
            }
            let share = existing ?? ShareRow(zonePK: zone.pk, recordName: shareName, rootRecordName: rootName)
            var old: [ParticipantRow] = []
            if existing == nil {
                if let clash = try await tx.record(zonePK: zone.pk, name: share.recordName), !clash.deleted {
                    throw ServerError(.exists, "a record named '\(share.recordName)' already exists in '\(zone.name)'")
                }
                let first = !(try await tx.zoneHasShares(zonePK: zone.pk))
                try await tx.insertShare(share)
                if first { try await computeAllRoots(tx, zonePK: zone.pk) }
            } else {
                old = try await tx.participants(zonePK: zone.pk, shareRecordName: share.recordName)
            }
            let before = Dictionary(old.map { ($0.userRecordName, $0) }, uniquingKeysWith: { first, _ in first })
            let participants = chosen.map {
                ParticipantRow(userRecordName: $0.user, permission: $0.permission, accepted: before[$0.user]?.accepted ?? false)
            }
            try await tx.setParticipants(zonePK: zone.pk, shareRecordName: share.recordName, participants)
            try await writeShareRecord(tx, zone, share, participants, stamp: stamp)
            try await noteOwnerZone(tx, zone, now: now, &effects)

            let kept = Set(participants.map(\.userRecordName))
            for gone in old where !kept.contains(gone.userRecordName) {
                if gone.accepted {
                    try await participantViewChanged(tx, zone, gone.userRecordName, now: now, &effects)
                } else {
                    effects.push(sharedDatabase(of: gone.userRecordName, zone), zone: zone.name)
                }
            }
            for participant in participants {
                if participant.accepted {
                    try await noteParticipantZone(tx, zone, participant.userRecordName, kind: .changed, now: now, &effects)
                } else if before[participant.userRecordName] != participant {
                    effects.push(sharedDatabase(of: participant.userRecordName, zone), zone: zone.name)  // an invitation
                }
            }
            return try await shareInfo(tx, zone, share, currentUser: nil)
        }
    }

    func acceptOrLeave(
        _ item: ShareReference, _ database: DatabaseKey, stamp: RecordStamp, leave: Bool, tx: any StoreTransaction,
        _ effects: inout ShareEffects
    ) async throws -> ShareInfo {
        let user = database.owner
        guard let owner = item.zoneID.ownerRecordName, !owner.isEmpty else {
            throw ServerError(.badRequest, "zoneID.ownerRecordName must name the owner of the shared zone")
        }
        let notFound = ServerError(.notFound, "no share '\(item.shareRecordName.prefix(300))' of that zone lists you")
        guard owner != user,
            let zone = try await tx.zone(DatabaseKey(container: database.container, scope: .private, owner: owner), name: item.zoneID.zoneName),
            let share = try await tx.share(zonePK: zone.pk, recordName: item.shareRecordName)
        else { throw notFound }
        var participants = try await tx.participants(zonePK: zone.pk, shareRecordName: share.recordName)
        guard let index = participants.firstIndex(where: { $0.userRecordName == user }) else { throw notFound }
        let now = stamp.timestamp

        if leave {
            let me = participants.remove(at: index)
            try await tx.setParticipants(zonePK: zone.pk, shareRecordName: share.recordName, participants)
            try await writeShareRecord(tx, zone, share, participants, stamp: stamp)
            try await noteOwnerZone(tx, zone, now: now, &effects)
            for other in participants where other.accepted {
                try await noteParticipantZone(tx, zone, other.userRecordName, kind: .changed, now: now, &effects)
            }
            if me.accepted {
                try await participantViewChanged(tx, zone, user, now: now, &effects)
            } else {
                effects.push(sharedDatabase(of: user, zone), zone: zone.name)
            }
            var info = try await shareInfo(tx, zone, share, currentUser: nil)
            info.currentUserParticipant = try await participantInfo(tx, me)
            return info
        }

        if !participants[index].accepted {
            participants[index].accepted = true
            try await tx.setParticipants(zonePK: zone.pk, shareRecordName: share.recordName, participants)
            try await writeShareRecord(tx, zone, share, participants, stamp: stamp)
            try await noteOwnerZone(tx, zone, now: now, &effects)
            for other in participants where other.accepted && other.userRecordName != user {
                try await noteParticipantZone(tx, zone, other.userRecordName, kind: .changed, now: now, &effects)
            }
            // The caller's view of the zone grew: the zone appears (or their older tokens expire).
            try await participantViewChanged(tx, zone, user, now: now, &effects)
        }
        return try await shareInfo(tx, zone, share, currentUser: user)
    }

    /// Removes a share: its record becomes a tombstone in the owner's feed, and every participant loses
    /// access at once. Answers the tombstone's change tag.
    @discardableResult
    func revokeShare(
        _ tx: any StoreTransaction, _ zone: StoredZone, _ share: ShareRow, stamp: RecordStamp, _ effects: inout ShareEffects
    ) async throws -> ChangeTag? {
        let participants = try await tx.participants(zonePK: zone.pk, shareRecordName: share.recordName)
        var tag: ChangeTag?
        if var tombstone = try await tx.record(zonePK: zone.pk, name: share.recordName), !tombstone.deleted {
            let seq = try await tx.nextSequence(.zone(pk: zone.pk))
            tombstone.deleted = true
            tombstone.seq = seq
            tombstone.changeTag = String(seq, radix: 36)
            tombstone.modified = stamp
            tombstone.fieldsJSON = Data("{}".utf8)
            try await tx.putRecord(tombstone)
            try await tx.setRoot(zonePK: zone.pk, name: share.recordName, root: share.rootRecordName)
            tag = tombstone.changeTag
        }
        try await tx.deleteShare(zonePK: zone.pk, recordName: share.recordName)
        try await noteOwnerZone(tx, zone, now: stamp.timestamp, &effects)
        for participant in participants {
            if participant.accepted {
                try await participantViewChanged(tx, zone, participant.userRecordName, now: stamp.timestamp, &effects)
            } else {
                effects.push(sharedDatabase(of: participant.userRecordName, zone), zone: zone.name)
            }
        }
        return tag
    }

    /// Before an owner zone is deleted: its participants see it deleted from their shared databases.
    func noteZoneRemovedForParticipants(_ tx: any StoreTransaction, _ zone: StoredZone, now: Int64, _ effects: inout ShareEffects) async throws {
        guard try await tx.zoneHasShares(zonePK: zone.pk) else { return }
        for (participant, accepted) in try await tx.participantsOfZone(zonePK: zone.pk) {
            if accepted {
                try await noteParticipantZone(tx, zone, participant, kind: .deleted, now: now, &effects)
            } else {
                effects.push(sharedDatabase(of: participant, zone), zone: zone.name)
            }
        }
    }

    // MARK: The share record and its JSON

    /// Writes the `cloudkit.share` record of a share from its participant list (owner zone, root as its root).
    private func writeShareRecord(
        _ tx: any StoreTransaction, _ zone: StoredZone, _ share: ShareRow, _ participants: [ParticipantRow], stamp: RecordStamp
    ) async throws {
        let owner = zone.database.owner
        let accounts = try await participants.asyncMap { try await tx.user(recordName: $0.userRecordName)?.account ?? "" }
        var fields: [String: FieldValue] = [
            ShareSchema.rootRecordField: .reference(Reference(recordName: share.rootRecordName, action: ReferenceAction.none)),
            ShareSchema.participantUserRecordNamesField: .list(.string, participants.map { .string($0.userRecordName) }),
            ShareSchema.participantAccountsField: .list(.string, accounts.map { .string($0) }),
            ShareSchema.participantPermissionsField: .list(.string, participants.map { .string($0.permission.rawValue) }),
            ShareSchema.participantStatusesField: .list(
                .string, participants.map { .string(($0.accepted ? ShareAcceptanceStatus.accepted : .pending).rawValue) }),
            ShareSchema.ownerUserRecordNameField: .string(owner),
            ShareSchema.ownerAccountField: .string(try await tx.user(recordName: owner)?.account ?? ""),
        ]
        if share.isZoneWide { fields[ShareSchema.rootRecordField] = nil }  // it roots no record
        var writer = JSONWriter(reserving: 512)
        writer.fields(fields)
        let existing = try await tx.record(zonePK: zone.pk, name: share.recordName).flatMap { $0.deleted ? nil : $0 }
        let seq = try await tx.nextSequence(.zone(pk: zone.pk))
        try await tx.putRecord(
            StoredRecord(
                zonePK: zone.pk, recordName: share.recordName, recordType: ShareSchema.recordType,
                changeTag: String(seq, radix: 36), seq: seq, deleted: false, created: existing?.created ?? stamp,
                modified: stamp, parent: nil, fieldsJSON: Data(writer.bytes)))
        try await tx.setRoot(zonePK: zone.pk, name: share.recordName, root: share.rootRecordName)
    }

    private func participantInfo(_ tx: any StoreTransaction, _ row: ParticipantRow) async throws -> ShareParticipantInfo {
        ShareParticipantInfo(
            userRecordName: row.userRecordName, account: try await tx.user(recordName: row.userRecordName)?.account,
            permission: row.permission, acceptanceStatus: row.accepted ? .accepted : .pending)
    }

    /// A share as the routes answer it; `currentUser` fills in `currentUserParticipant`.
    func shareInfo(_ tx: any StoreTransaction, _ zone: StoredZone, _ share: ShareRow, currentUser: String?) async throws -> ShareInfo {
        let rows = try await tx.participants(zonePK: zone.pk, shareRecordName: share.recordName)
        let participants = try await rows.asyncMap { try await participantInfo(tx, $0) }
        let owner = zone.database.owner
        var title: String? = share.isZoneWide ? zone.name : nil
        if !share.isZoneWide, let root = try await tx.record(zonePK: zone.pk, name: share.rootRecordName), !root.deleted {
            title = try root.decodedFields()["title"]?.stringValue
        }
        let record = try await tx.record(zonePK: zone.pk, name: share.recordName)
        return ShareInfo(
            shareRecordName: share.recordName, zoneID: zone.zoneID, rootRecordName: share.rootRecordName, rootTitle: title,
            recordChangeTag: record?.changeTag,
            owner: ShareOwnerInfo(userRecordName: owner, account: try await tx.user(recordName: owner)?.account),
            participants: participants,
            currentUserParticipant: currentUser.flatMap { user in participants.first { $0.userRecordName == user } },
            shortGUID: Self.shortGUID(zone, share))
    }
}

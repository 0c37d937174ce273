import CloudModel
import Foundation

/// Mailboxes of push tokens: delivers notifications to long-polling devices, keeps and coalesces them
/// for devices that are not polling, and redelivers one a device did not acknowledge.
///
/// One hub per cloud instance. On a cloud of several instances a token's long-polls are routed to one instance
/// (see docs/POSTGRESQL.md, "Several instances: push, throttles and compaction"), so only that instance keeps its mailbox: `deliver` is then told not to
/// create mailboxes, and a token's first poll here that carries `ack` (the device polled elsewhere before) is
/// answered at once with a resync push, since what was published while no instance held its mailbox is lost.
actor PushHub {
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<PushNotification?, Never>
    }

    private struct Mailbox {
        /// Not yet delivered, at most one per subscription (coalesced).
        var pending: [PushNotification] = []
        /// Delivered on a poll but not yet acknowledged by the next poll's `ack`.
        var inFlight: PushNotification?
        var waiter: Waiter?
        /// Who polls it (known once it polled here): its user, and the container of its notifications.
        var user: String?
        var container: String?
    }

    private var boxes: [String: Mailbox] = [:]
    /// The tokens of each user that polled here.
    private var tokensByUser: [String: Set<String>] = [:]
    private var nextWaiterID: UInt64 = 0
    private var closed = false
    /// Notifications kept per device while it is away; older ones are dropped first (pushes are hints).
    private let pendingLimit = 64

    /// Hands a notification to a token's waiting poll, or keeps it for the next poll; with `createMailbox` false,
    /// only a token that has a mailbox here gets it.
    func deliver(_ notification: PushNotification, to token: String, createMailbox: Bool = true) {
        guard var box = boxes[token] ?? (createMailbox ? Mailbox() : nil) else { return }
        if box.container == nil { box.container = notification.ck.cid }
        if let waiter = box.waiter {
            box.waiter = nil
            box.inFlight = notification
            boxes[token] = box
            waiter.continuation.resume(returning: notification)
            return
        }
        let key = Self.coalescingKey(notification)
        box.pending.removeAll { Self.coalescingKey($0) == key }
        box.pending.append(notification)
        if box.pending.count > pendingLimit { box.pending.removeFirst(box.pending.count - pendingLimit) }
        boxes[token] = box
    }

    /// Waits up to `timeout` for a notification for `token`. `ack` names the last notification the
    /// device received; an unacknowledged one is delivered again. `user` and `container` say whose token it is;
    /// `resyncNewcomers`: a token with no mailbox here yet that polls with an `ack` gets a resync push at once.
    func poll(
        token: String, timeout: Duration, ack: String?, user: String? = nil, container: String? = nil, resyncNewcomers: Bool = false
    ) async -> PushNotification? {
        let known = boxes[token] != nil
        var box = boxes[token] ?? Mailbox()
        if let user, box.user == nil {
            box.user = user
            tokensByUser[user, default: []].insert(token)
        }
        if let container { box.container = container }
        if !known, resyncNewcomers, ack != nil, let container = box.container {
            let resync = Self.resync(container: container)
            box.inFlight = resync
            boxes[token] = box
            return resync
        }
        if let inFlight = box.inFlight {
            box.inFlight = nil
            if let ack, ack != inFlight.ck.nid {
                box.inFlight = inFlight
                boxes[token] = box
                return inFlight
            }
        }
        if !box.pending.isEmpty {
            let next = box.pending.removeFirst()
            box.inFlight = next
            boxes[token] = box
            return next
        }
        if closed {
            boxes[token] = box
            return nil
        }
        // A new poll replaces an older one of the same device (its connection is likely gone).
        if let old = box.waiter {
            box.waiter = nil
            old.continuation.resume(returning: nil)
        }
        nextWaiterID += 1
        let id = nextWaiterID
        boxes[token] = box
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.expire(token: token, id: id)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                boxes[token, default: Mailbox()].waiter = Waiter(id: id, continuation: continuation)
            }
        } onCancel: {
            Task { await self.expire(token: token, id: id) }
        }
    }

    /// Tells every device with a mailbox here to fetch its changes: a waiting poll is answered at once with a resync
    /// push, the others find one on their next poll. For when notices may have been lost (the connection that
    /// brings them was lost). How many mailboxes.
    @discardableResult
    func resyncAll() -> Int {
        var count = 0
        for token in Array(boxes.keys) {
            guard let container = boxes[token]?.container else { continue }
            deliver(Self.resync(container: container), to: token, createMailbox: false)
            count += 1
        }
        return count
    }

    /// Whether any token of `user` polled here.
    func hostsTokens(of user: String) -> Bool { !(tokensByUser[user]?.isEmpty ?? true) }

    /// Whether any token has a mailbox here.
    var hostsAnyToken: Bool { !boxes.isEmpty }

    /// Answers every waiting poll with "nothing" and refuses to hold new ones (the server is stopping).
    func close() {
        closed = true
        for (token, box) in boxes {
            guard let waiter = box.waiter else { continue }
            boxes[token]?.waiter = nil
            waiter.continuation.resume(returning: nil)
        }
    }

    /// Forgets the mailboxes of tokens not in `tokens` (revoked, expired, evicted), ending their polls; how many.
    func retainMailboxes(of tokens: Set<String>) -> Int {
        let gone = boxes.keys.filter { !tokens.contains($0) }
        for token in gone {
            guard let box = boxes.removeValue(forKey: token) else { continue }
            box.waiter?.continuation.resume(returning: nil)
            if let user = box.user {
                tokensByUser[user]?.remove(token)
                if tokensByUser[user]?.isEmpty ?? false { tokensByUser.removeValue(forKey: user) }
            }
        }
        return gone.count
    }

    /// The tokens whose device is long-polling here now.
    func pollingTokens() -> Set<String> { Set(boxes.compactMap { $0.value.waiter == nil ? nil : $0.key }) }

    /// Forgets the mailboxes of `tokens` (gone from the store), ending their polls; how many were here.
    @discardableResult
    func dropMailboxes(of tokens: Set<String>) -> Int {
        let held = Set(boxes.keys)
        return retainMailboxes(of: held.subtracting(tokens))
    }

    /// How many tokens have a mailbox.
    var mailboxCount: Int { boxes.count }

    /// Whether a device is long-polling right now.
    func isPolling(token: String) -> Bool { boxes[token]?.waiter != nil }

    private func expire(token: String, id: UInt64) {
        guard let waiter = boxes[token]?.waiter, waiter.id == id else { return }
        boxes[token]?.waiter = nil
        waiter.continuation.resume(returning: nil)
    }

    /// A push that names no subscription: the device fetches every database's changes.
    static func resync(container: String) -> PushNotification {
        PushNotification(ck: .init(nid: UUID().uuidString, cid: container))
    }

    private static func coalescingKey(_ notification: PushNotification) -> String {
        if let met = notification.ck.met { return "met:\(met.dbs):\(met.sid)" }
        if let fet = notification.ck.fet { return "fet:\(fet.dbs):\(fet.sid):\(fet.zoid):\(fet.zid)" }
        if let qry = notification.ck.qry { return "qry:\(qry.sid):\(qry.rid ?? "")" }
        return "resync"
    }
}

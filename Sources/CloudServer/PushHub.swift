import CloudModel
import Foundation

/// Mailboxes of push tokens: delivers notifications to long-polling devices, keeps and coalesces them
/// for devices that are not polling, and redelivers one a device did not acknowledge.
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
    }

    private var boxes: [String: Mailbox] = [:]
    private var nextWaiterID: UInt64 = 0
    private var closed = false
    /// Notifications kept per device while it is away; older ones are dropped first (pushes are hints).
    private let pendingLimit = 64

    /// Hands a notification to a token's waiting poll, or keeps it for the next poll.
    func deliver(_ notification: PushNotification, to token: String) {
        var box = boxes[token] ?? Mailbox()
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
    /// device received; an unacknowledged one is delivered again.
    func poll(token: String, timeout: Duration, ack: String?) async -> PushNotification? {
        var box = boxes[token] ?? Mailbox()
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
        if closed { return nil }
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
            if let waiter = boxes[token]?.waiter { waiter.continuation.resume(returning: nil) }
            boxes.removeValue(forKey: token)
        }
        return gone.count
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

    private static func coalescingKey(_ notification: PushNotification) -> String {
        if let met = notification.ck.met { return "met:\(met.dbs):\(met.sid)" }
        if let qry = notification.ck.qry { return "qry:\(qry.sid):\(qry.rid ?? "")" }
        return "nid:\(notification.ck.nid)"
    }
}

import CloudModel
import Foundation

/// Where a change token stands in a feed.
///
/// `seq` is the last change the holder has seen. `floor` is the feed's head when the holder began reading it from
/// scratch: tombstones at or below it were deletions made before that read, of records the holder never had, so
/// their compaction does not concern it. A token is valid exactly as long as every change after it that can concern
/// its holder is still in the feed: no compacted entry above `max(seq, floor)`.
struct FeedPosition: Sendable, Equatable {
    var seq: Int64
    var floor: Int64 = 0

    /// The point below which nothing compacted matters to the holder.
    var coverage: Int64 { max(seq, floor) }

    /// Whether the feed still holds everything after this position, given its compaction horizon.
    func isValid(horizon: Int64) -> Bool { coverage >= horizon }

    /// `seq` or `seq.floor`: the floor only while it says more than the sequence does.
    var encoded: String { floor > seq ? "\(seq).\(floor)" : "\(seq)" }

    /// Parses `seq` or `seq.floor` (non-negative integers); nil for anything else.
    init?<S: StringProtocol>(parts: [S]) {
        guard (1...2).contains(parts.count), let seq = Int64(parts[0]), seq >= 0 else { return nil }
        var floor: Int64 = 0
        if parts.count == 2 {
            guard let value = Int64(parts[1]), value >= 0 else { return nil }
            floor = value
        }
        self.init(seq: seq, floor: floor)
    }

    init(seq: Int64, floor: Int64 = 0) {
        self.seq = seq
        self.floor = floor
    }
}

/// Opaque change tokens: a zone's (its row identity and a position), a participant's view of a shared zone (also the
/// view's epoch) and a database's (a position).
enum FeedToken {
    static func zone(pk: Int64, _ position: FeedPosition) -> ChangeToken {
        ChangeToken(rawValue: "Z" + Data("\(pk).\(position.encoded)".utf8).base64EncodedString())
    }

    static func database(_ position: FeedPosition) -> ChangeToken {
        ChangeToken(rawValue: "D" + Data(position.encoded.utf8).base64EncodedString())
    }

    /// A participant's token of a shared zone: `pk.seq.epoch` (the view it was issued for) and the floor, if any.
    static func sharedZone(pk: Int64, epoch: Int64, _ position: FeedPosition) -> ChangeToken {
        let floor = position.floor > position.seq ? ".\(position.floor)" : ""
        return ChangeToken(rawValue: "S" + Data("\(pk).\(position.seq).\(epoch)\(floor)".utf8).base64EncodedString())
    }

    /// The zone row and position a token stands for, or `BAD_REQUEST` for something we never issued.
    static func parseZone(_ token: ChangeToken) throws -> (pk: Int64, position: FeedPosition) {
        let parts = try fields(token, kind: "Z", what: "a zone token")
        guard parts.count >= 2, let pk = Int64(parts[0]), let position = FeedPosition(parts: Array(parts.dropFirst())) else {
            throw ServerError(.badRequest, "syncToken is not a zone token of this cloud")
        }
        return (pk, position)
    }

    static func parseDatabase(_ token: ChangeToken) throws -> FeedPosition {
        guard let position = FeedPosition(parts: try fields(token, kind: "D", what: "a database token")) else {
            throw ServerError(.badRequest, "syncToken is not a database token of this cloud")
        }
        return position
    }

    static func parseSharedZone(_ token: ChangeToken) throws -> (pk: Int64, epoch: Int64, position: FeedPosition) {
        let parts = try fields(token, kind: "S", what: "a shared-zone token")
        guard (3...4).contains(parts.count), let pk = Int64(parts[0]), let epoch = Int64(parts[2]),
            let position = FeedPosition(parts: [parts[1]] + parts.dropFirst(3))
        else { throw ServerError(.badRequest, "syncToken is not a shared-zone token of this cloud") }
        return (pk, epoch, position)
    }

    /// The dot-separated fields of a token of one kind.
    private static func fields(_ token: ChangeToken, kind: Character, what: String) throws -> [Substring] {
        guard token.rawValue.first == kind, token.rawValue.utf8.count <= 256,
            let data = Data(base64Encoded: String(token.rawValue.dropFirst())), let text = String(data: data, encoding: .utf8)
        else { throw ServerError(.badRequest, "syncToken is not \(what) of this cloud") }
        return text.split(separator: ".", omittingEmptySubsequences: false)
    }
}

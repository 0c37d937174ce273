import Foundation

/// A value that lost a conflict to a later edit, as the app announces it.
public struct LostEditNotice: Hashable, Sendable {
    /// The row of the todo that keeps the value.
    public var rowID: String
    /// Which loss (the sync layer's id for it).
    public var lossID: String
    /// What lost to what, in words (e.g. `'Milk': your priority 1 lost to 3, set later on another device`).
    public var sentence: String
    /// Whether this device's edit lost (then `u` restores it).
    public var isMine: Bool

    /// A notice.
    public init(rowID: String, lossID: String, sentence: String, isMine: Bool) {
        self.rowID = rowID
        self.lossID = lossID
        self.sentence = sentence
        self.isMine = isMine
    }
}

extension AppState {
    /// Shows a lost value in the status line; when this device's edit lost, `u` puts it back.
    public mutating func announce(_ notice: LostEditNotice) {
        guard notice.isMine else {
            message = StatusMessage(notice.sentence, kind: .warning)
            return
        }
        pushUndo(UndoEntry(label: "\(notice.sentence) — restored", action: .perform([.restoreLost(id: notice.rowID, lossID: notice.lossID)])))
        message = StatusMessage(notice.sentence + " (u restores)", kind: .warning)
    }
}

import Foundation
import TodoStore

// The one place the command line words trouble with this device's storage (a full disk, a read-only or missing data
// directory): what happened, whether the change was kept, and what to do. `StoreError` says the first and the last;
// whether the change was kept depends on when it failed, which only the verb knows.

/// Whether `message` (a sync pass's last error) is about this device's storage rather than the cloud.
func isStorageMessage(_ message: String) -> Bool {
    message.hasPrefix(StoreError.storagePrefix)
}

/// A storage failure after the verb's change was committed (recording the cloud's answer, or what was fetched): the
/// change is kept, and making it again would make it twice.
func keptChangeWarning(_ storage: String) -> String {
    "Your change is saved on this device (and may have reached the cloud), but \(storage). "
        + "Do not make the change again: once that is fixed, todo sync finishes it"
}

/// A storage failure before or inside the verb's own change: nothing of it was saved.
func unsavedChangeMessage(_ error: StoreError) -> String {
    "\(error.description). Nothing was changed"
}

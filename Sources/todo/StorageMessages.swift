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

/// The storage trouble `error` amounts to: a `StoreError` of the cache, or a failed file operation on the data
/// directory (credentials, configuration, the directory itself) worded the same way; nil for anything else.
func storageFailure(_ error: any Error) -> StoreError? {
    if let store = error as? StoreError { return store.isStorageFailure ? store : nil }
    let nsError = error as NSError
    guard nsError.domain == NSCocoaErrorDomain || nsError.domain == NSPOSIXErrorDomain else { return nil }
    var posixCode: Int32 = 0
    if nsError.domain == NSPOSIXErrorDomain {
        posixCode = Int32(truncatingIfNeeded: nsError.code)
    } else if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? any Error {
        if let posix = underlying as? POSIXError {
            posixCode = posix.code.rawValue
        } else if (underlying as NSError).domain == NSPOSIXErrorDomain {
            posixCode = Int32(truncatingIfNeeded: (underlying as NSError).code)
        }
    }
    let path = (nsError.userInfo[NSFilePathErrorKey] as? String) ?? (nsError.userInfo[NSURLErrorKey] as? URL)?.path ?? "the data directory"
    switch posixCode {
    case ENOSPC, EDQUOT: return .diskFull(path)
    case EROFS, EACCES, EPERM: return .readOnly(path)
    case ENOENT, ENOTDIR: return .cannotOpen(path)
    case EIO: return .ioError(path)
    default: break
    }
    switch CocoaError.Code(rawValue: nsError.code) {
    case .fileWriteOutOfSpace: return .diskFull(path)
    case .fileWriteVolumeReadOnly, .fileWriteNoPermission, .fileReadNoPermission: return .readOnly(path)
    default: return nil
    }
}

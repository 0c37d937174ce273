// Words for a person about a failure, shared by the command line and the app: no internal codes
// (`badRequest:`, `unknownItem:`), the cloud's reason kept.

/// Words for a person about any error: no internal codes (`badRequest:`, `unknownItem:`), the cloud's reason kept.
public func plainMessage(for error: any Error) -> String {
    switch error {
    case let error as CloudError: plainMessage(for: error)
    default: plainMessage(String(describing: error))
    }
}

/// Words for a cloud failure, by what a person can do about it.
public func plainMessage(for error: CloudError) -> String {
    let reason = error.reason.isEmpty ? nil : error.reason
    func with(_ words: String) -> String { reason.map { "\(words): \($0)" } ?? words }
    switch error.code {
    case .networkUnavailable: return with("cannot reach the cloud")
    case .notAuthenticated: return with("not signed in")
    case .permissionFailure: return with("not allowed")
    case .unknownItem: return with("not found in the cloud")
    case .quotaExceeded: return with("the account's storage is full")
    case .limitExceeded: return with("too large for the cloud")
    case .requestRateLimited, .zoneBusy, .serviceUnavailable: return with("the cloud is busy; try again in a moment")
    case .serverRecordChanged: return with("it changed meanwhile on another device")
    case .zoneNotFound, .userDeletedZone, .changeTokenExpired: return with("the cloud's copy changed; run todo sync")
    case .referenceViolation: return with("it refers to a record that no longer exists")
    case .partialFailure, .batchRequestFailed: return with("some changes were refused")
    case .badRequest: return with("the cloud refused the request")
    case .internalError: return with("the cloud failed")
    case .invalidResponse: return with("the cloud answered something this version cannot read")
    }
}

/// A message that may start with a cloud error's code (`badRequest: …`, as the sync engine words its last error),
/// with that code replaced by words.
public func plainMessage(_ text: String) -> String {
    for code in CloudError.Code.allCases where text.hasPrefix(code.rawValue + ": ") {
        return plainMessage(for: CloudError(code, String(text.dropFirst(code.rawValue.count + 2))))
    }
    return text
}

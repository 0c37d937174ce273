/// One signed-in device of the caller's account, as `devices/list` and `devices/revoke` answer it.
public struct DeviceInfo: Sendable, Hashable, Codable {
    /// The name the device signed in with.
    public var deviceName: String
    /// The ID its writes are stamped with.
    public var deviceID: String
    /// When the account first signed in under this name (ms since 1970).
    public var created: Int64
    /// When its current session began (ms since 1970).
    public var signedIn: Int64
    /// Its session's last recorded use (ms since 1970; recorded at most about once an hour).
    public var lastUsed: Int64
    /// Whether this is the device that asked.
    public var current: Bool

    /// A device as listed.
    public init(deviceName: String, deviceID: String, created: Int64, signedIn: Int64, lastUsed: Int64, current: Bool) {
        self.deviceName = deviceName
        self.deviceID = deviceID
        self.created = created
        self.signedIn = signedIn
        self.lastUsed = lastUsed
        self.current = current
    }
}

/// `POST /device/1/{container}/{environment}/devices/list` and `devices/revoke` response.
public struct DevicesResponse: Sendable, Hashable, Codable {
    public var devices: [DeviceInfo]

    /// The listed (or revoked) devices.
    public init(devices: [DeviceInfo]) { self.devices = devices }
}

/// `POST /device/1/{container}/{environment}/devices/revoke` request: ends that device's session.
public struct RevokeDeviceRequest: Sendable, Hashable, Codable {
    public var deviceName: String

    /// Names the device to sign out.
    public init(deviceName: String) { self.deviceName = deviceName }
}

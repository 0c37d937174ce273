import CloudClient
import CloudModel
import Foundation
import Testing
import TodoSync

/// `CloudClient.listDevices` and `revokeDevice` against the real cloud.
@Suite("Device list through the client")
struct DeviceListClientTests {
    @Test func listAndRevoke() async throws {
        let cloud = try await TestCloud.start()
        do {
            let laptop = try await cloud.device("laptop", sendsAutomatically: false)
            let phone = try await cloud.device("phone", sendsAutomatically: false)
            let devices = try await laptop.client.listDevices()
            #expect(devices.map(\.deviceName) == ["laptop", "phone"])
            #expect(devices.first { $0.current }?.deviceID == laptop.session.deviceID)

            let revoked = try await laptop.client.revokeDevice(named: "phone")
            #expect(revoked.deviceName == "phone" && !revoked.current)
            await #expect(throws: CloudError.self) { _ = try await phone.client.caller() }
            do {
                _ = try await laptop.client.revokeDevice(named: "phone")
                Issue.record("revoking a device twice succeeded")
            } catch let error as CloudError {
                #expect(error.code == .unknownItem)
            }
            #expect(try await laptop.client.listDevices().map(\.deviceName) == ["laptop"])
            await laptop.engine.stop()
            await phone.engine.stop()
        } catch {
            await cloud.shutdown()
            throw error
        }
        await cloud.shutdown()
    }
}

import CloudServer
import Foundation
import ProcessTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A child starts with its standard streams only: a connection this process holds (SwiftNIO opens and accepts
/// sockets without close-on-exec) must not live on in a child after this process closes it.
@Suite("Descriptors a child inherits")
struct InheritedDescriptorsTests {
    @Test func aChildGetsNoSocketOfThisProcessAndThisProcesssDescriptorsAreLeftAsTheyAre() async throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let result = try await ChildProcess.run("/bin/sh", ["-c", "ls -l /proc/$$/fd"])
        #expect(result.status == 0, "\(result.output)")
        #expect(!result.output.contains("socket:"), "the child holds sockets of its parent: \(result.output)")
        // Closed in the child: nothing here was marked close-on-exec (which a socket opened meanwhile would escape).
        #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC == 0)
    }
}

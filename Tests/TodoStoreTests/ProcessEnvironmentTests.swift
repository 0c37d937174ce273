import Foundation
import Testing
import TodoStore

/// The environment a command reads: the process's own variables when asked, or exactly a given set.
@Suite("Process environment")
struct ProcessEnvironmentTests {
    @Test func theProcessVariablesAreReadWhenAsked() throws {
        let name = "CLOUDTODO_ENV_TEST_\(getpid())"
        let environment = ProcessEnvironment.process
        #expect(environment[name] == nil)
        setenv(name, "ü value", 1)
        defer { unsetenv(name) }
        #expect(environment[name] == "ü value")
        #expect(environment["PATH"] == ProcessInfo.processInfo.environment["PATH"])
    }

    @Test func aGivenSetIsAllThereIs() {
        let environment: ProcessEnvironment = ["HOME": "/home/a", "USER": "a"]
        #expect(environment["HOME"] == "/home/a" && environment["USER"] == "a")
        #expect(environment["PATH"] == nil, "the process's PATH is not read through a given set")
        #expect(ProcessEnvironment([:])["PATH"] == nil)
        #expect(ProcessEnvironment(["HOME": "/h"])["HOME"] == "/h")
    }

    @Test func settingAVariableKeepsTheRest() {
        var given: ProcessEnvironment = ["HOME": "/home/a"]
        given["XDG_CONFIG_HOME"] = "/xdg"
        given["HOME"] = nil
        #expect(given["XDG_CONFIG_HOME"] == "/xdg" && given["HOME"] == nil)

        var process = ProcessEnvironment.process
        process["CLOUDTODO_SET_IN_PLACE"] = "1"
        #expect(process["CLOUDTODO_SET_IN_PLACE"] == "1")
        #expect(process["PATH"] == ProcessInfo.processInfo.environment["PATH"], "the process's variables as they were")
        #expect(getenv("CLOUDTODO_SET_IN_PLACE") == nil, "the process itself is not changed")
    }
}

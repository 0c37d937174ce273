import Foundation
import Testing
import TodoApp

/// Notes edited in the person's editor: a real `/bin/sh` running "editors" made of shell commands.
@Suite("Notes in the person's editor")
struct ExternalEditorTests {
    @Test func whatTheEditorSavedComesBackWithoutItsFinalNewline() throws {
        #expect(try ExternalEditor.edit("old", command: "printf 'first\\nsecond\\n' >") == "first\nsecond")
        #expect(try ExternalEditor.edit("line one", command: "printf 'line two\\n' >>") == "line one\nline two")
        #expect(try ExternalEditor.edit("untouched\nkept", command: "true") == "untouched\nkept")
        #expect(try ExternalEditor.edit("", command: "printf 'new\n' >>") == "new", "empty notes start as an empty file")
    }

    @Test func aFailingEditorOrWhatItLeftChangesNothingAndSaysWhy() {
        #expect(throws: ExternalEditor.Failure(description: "the editor 'false' exited with status 1; the notes were not changed")) {
            try ExternalEditor.edit("keep", command: "false")
        }
        #expect(throws: ExternalEditor.Failure(description: "the notes are not UTF-8 text; they were not changed")) {
            try ExternalEditor.edit("keep", command: "printf '\\377\\376' >")
        }
        #expect(throws: ExternalEditor.Failure(description: "the notes are larger than 64 KB; they were not changed")) {
            try ExternalEditor.edit("keep", command: "head -c 70000 /dev/zero | tr '\\0' a >")
        }
    }

    @Test func theEditorComesFromVisualThenEditorThenVi() {
        #expect(ExternalEditor.command(["VISUAL": "nano", "EDITOR": "vim"]) == "nano")
        #expect(ExternalEditor.command(["VISUAL": " ", "EDITOR": "code --wait"]) == "code --wait")
        #expect(ExternalEditor.command([:]) == "vi")
    }
}

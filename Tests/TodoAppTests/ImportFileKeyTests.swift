import Testing

@testable import TodoApp

/// The import file's members are read by their place in `TodoImportFile.Key.names`: each name must be its case's.
@Suite("The import file's member names")
struct ImportFileKeyTests {
    @Test func everyKeyIsNamedAsItsCase() {
        #expect(TodoImportFile.Key.names.count == TodoImportFile.Key.allCases.count)
        for key in TodoImportFile.Key.allCases {
            #expect(key.name == String(describing: key))
        }
    }
}

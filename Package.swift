// swift-tools-version:6.1
import PackageDescription

/// Strictness every target of ours builds with.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    // Every function in its own section, as the toolchain's libraries are built, so the linker can place the
    // functions `todo` runs together (`functionOrder`); without it a file's private functions move as one block.
    // A concrete generic type's metadata through its accessor, not by demangling its name at run time: the runtime
    // checks a demangled type's requirements (`String: Hashable` for a `[String: String]`) by scanning all 10,000
    // conformance records of the binary, once per type and protocol. Through accessors, `todo list +home` over 1,000
    // todos runs 16 % fewer instructions (19.0 -> 16.0 M) in 0.95 of the time (docs/BENCHMARKS.md).
    .unsafeFlags(["-Xfrontend", "-function-sections", "-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"], .when(platforms: [.linux], configuration: .release)),
]

/// Release binaries carry the Swift runtime and Foundation inside them (as `swift build --static-swift-stdlib` does):
/// a command then starts in 7 ms instead of 12 (no symbol look-ups across 15 shared libraries) and calls the
/// runtime directly. Measured on `todo sync` of 10,000 todos: 0.197-0.200 s against 0.209-0.213 s (README).
/// Re-measured for issue 30 (docs/BENCHMARKS.md): dynamic, `todo list +home` peaks 1 MB higher and starts 8 ms later.
/// lld packs the binary's 150,000 relative relocations (RELR, glibc 2.36 or later): 3.5 MB of `.rela.dyn` the
/// loader read at every start become 30 KB, and each command's peak RSS falls by about 2.4 MB.
/// The static runtime's link arguments export every symbol of the executable (34,608 in `todo`); nothing looks them
/// up, but each `dladdr` (the runtime and Foundation call it at start) walked them all: without the export a command
/// starts 5-10 % sooner and peaks 2.0-2.7 MB lower (docs/BENCHMARKS.md).
///
/// libstdc++ (the static Foundation's ICU needs it), SQLite and ncurses come from their static archives too, which
/// Debian's libstdc++-12-dev, libsqlite3-dev and libncurses-dev ship: `Linking/static` holds links to them, searched
/// before the system's directories, so `-lstdc++`, `-lsqlite3` and `-lncursesw` find the archives (a link whose file
/// is missing is passed over, and the shared library is used as before; `-ltinfo` is what the shared ncurses named
/// itself). Linked dynamically, the loader resolved 5,400 of their symbols at every start (13 % of `todo list
/// +home`'s instructions over 1,000 todos); linked in, the list runs in 0.87 of the time and peaks 1.4 MiB lower
/// (docs/BENCHMARKS.md).
let staticRuntime: [LinkerSetting] = [
    .unsafeFlags(
        [
            "-static-stdlib", "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic",
            "-L", "\(Context.packageDirectory)/Linking/static", "-Xlinker", "-ltinfo",
        ],
        .when(platforms: [.linux], configuration: .release))
]
/// `todo`'s everyday functions side by side at the front of its code, in the order `Linking/generate-order.sh` wrote
/// from profiles of the commands and the app: the kernel maps code 64 KB around each page touched, and in the
/// linker's own order the 1 MB a `todo list` runs lay spread over 15 MB. A list over 1,000 todos peaks 30 -> 21 MB;
/// the app over 110,000 todos 87 -> 82 MB (docs/BENCHMARKS.md). A function the file does not name is placed after.
let functionOrder: [LinkerSetting] = [
    .unsafeFlags(
        ["-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Linking/todo.order", "-Xlinker", "--no-warn-symbol-ordering"],
        .when(platforms: [.linux], configuration: .release))
]
/// The same for the executables' own compilation: it makes them link the static Foundation's own C libraries.
let staticRuntimeCompile: [SwiftSetting] = strict + [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux], configuration: .release))]

let package = Package(
    name: "CloudTodo",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "todo", targets: ["todo"]),
        .executable(name: "todo-server", targets: ["todo-server"]),
        .executable(name: "todo-bench", targets: ["todo-bench"]),
    ],
    traits: [
        // `todo` depends on `todo-server`, so `swift run todo` and `swift test` build the cloud the app starts. SwiftPM
        // then links the cloud's libraries into `todo` as well (unused there): a release build for installing or
        // measuring turns it off, `swift build -c release --disable-default-traits`, and `todo` carries none of them.
        .trait(name: "BuildCloudWithApp"),
        .default(enabledTraits: ["BuildCloudWithApp"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // Already part of Hummingbird's graph; named so the server can read its bound port.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // Also already in Hummingbird's graph: a graceful shutdown of the server's services.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // TLS: the cloud serves HTTPS through HummingbirdTLS, certificates are read with NIOSSL.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // The device's HTTP client: TLS with host-name verification, deadlines, response limits.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // SHA-256 of session tokens and assets.
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        // The device's configuration file (saved login, keys, colours).
        .package(url: "https://github.com/LebJe/TOMLKit.git", from: "0.6.0"),
        // The cloud's PostgreSQL storage: an async driver on SwiftNIO, with LISTEN/NOTIFY.
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        // System libraries: SQLite for both caches, ncurses for the terminal.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CNcurses", providers: [.apt(["libncurses-dev"])]),
        // libxcrypt's yescrypt: the slow salted password hash of the cloud's accounts.
        .systemLibrary(name: "CCrypt", providers: [.apt(["libcrypt-dev"])]),
        // glibc's mallopt, for ProcessTuning.
        .systemLibrary(name: "CMalloc"),
        // glibc's allocator settings every process of ours applies first (`todo`, `todo server`, the bench's cloud).
        .target(name: "ProcessTuning", dependencies: ["CMalloc"], swiftSettings: strict),

        // Pure values and the CloudKit Web Services wire format.
        .target(name: "CloudModel", swiftSettings: strict),
        // A thin, owned SQLite wrapper shared by the server storage and the device cache.
        .target(name: "SQLiteDB", dependencies: ["CSQLite"], swiftSettings: strict),

        // The cloud.
        .target(
            name: "CloudServer",
            dependencies: [
                "CloudModel", "SQLiteDB", "CCrypt",
                // CalDAV: todos read and written as the device reads and writes them, iCalendar as import/export has it.
                "TodoStore", "TodoPlanning",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strict
        ),

        // The device.
        .target(
            name: "CloudClient",
            dependencies: [
                "CloudModel",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict),
        // Pure planning values: due dates and their grammar, repeat rules, filters, iCalendar and Taskwarrior files.
        .target(name: "TodoPlanning", dependencies: ["CloudModel"], swiftSettings: strict),
        .target(name: "TodoStore", dependencies: ["CloudModel", "SQLiteDB", "TodoPlanning"], swiftSettings: strict),
        .target(name: "TodoSync", dependencies: ["CloudModel", "CloudClient", "TodoStore", "TodoPlanning"], swiftSettings: strict),
        .target(name: "Terminal", dependencies: ["CNcurses"], swiftSettings: strict),
        .target(name: "TodoUI", dependencies: ["Terminal", "TodoPlanning"], swiftSettings: strict),

        // What both executables print and how they end: inert text, plain errors, exit codes, a password prompt.
        .target(
            name: "CommandLineSupport", dependencies: ["Terminal", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: strict),

        // The app's wiring: sync snapshots to UI rows, UI effects to engine calls, the terminal loop.
        .target(
            name: "TodoApp",
            dependencies: [
                "CloudModel", "CloudClient", "TodoStore", "TodoSync", "TodoUI", "Terminal", "TodoPlanning",
                .product(name: "TOMLKit", package: "TOMLKit"),
            ],
            swiftSettings: strict),

        // Executables.
        .executableTarget(
            name: "todo",
            dependencies: [
                "CloudModel", "CloudClient", "TodoStore", "TodoSync", "TodoUI", "TodoApp", "Terminal", "ProcessTuning", "CommandLineSupport",
                "TodoPlanning", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .target(name: "todo-server", condition: .when(traits: ["BuildCloudWithApp"])),
            ],
            swiftSettings: staticRuntimeCompile,
            linkerSettings: staticRuntime + functionOrder
        ),
        // The cloud's executable, apart from `todo` so device commands start without its code (docs/ARCHITECTURE.md).
        .executableTarget(
            name: "todo-server",
            dependencies: [
                "CloudModel", "CloudServer", "CommandLineSupport", "ProcessTuning", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: staticRuntimeCompile,
            linkerSettings: staticRuntime
        ),
        .executableTarget(
            name: "todo-bench",
            dependencies: [
                "CloudModel", "CloudServer", "CloudClient", "TodoStore", "TodoSync", "TodoUI", "TodoApp", "Terminal", "ProcessTuning",
                "TodoPlanning", .product(name: "Logging", package: "swift-log"),
                // `todo-bench tls`: its own TLS client connections.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                // `todo-bench postgres-driver`: the driver measured on its own.
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // `todo-bench server --database-url`: nginx in front, started as the tests start it.
                "TLSTestSupport",
                // `todo-bench near`: the tests' seeded generator.
                "TestSupport",
            ],
            swiftSettings: staticRuntimeCompile,
            linkerSettings: staticRuntime
        ),

        // Tests: one target per module, real SQLite and a real loopback server.
        .testTarget(name: "CloudModelTests", dependencies: ["CloudModel", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "TodoPlanningTests", dependencies: ["TodoPlanning", "ProcessTestSupport", "TestSupport"], exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(
            name: "CloudServerTests",
            dependencies: [
                "CloudServer", "CloudModel", "TLSTestSupport", "PostgresTestSupport", "ProcessTestSupport", "TestSupport", .product(name: "Logging", package: "swift-log"),
                // The PostgreSQL store's own tests read its tables directly.
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // HTTPS through the cloud and through nginx, trusting the test CA.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // The connection registry's choices, on channels whose order the test decides.
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: strict),
        .testTarget(name: "TodoStoreTests", dependencies: ["TodoStore", "CloudModel", "SQLiteDB", "TodoPlanning", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "TodoSyncTests",
            dependencies: [
                "TodoSync", "CloudServer", "CloudClient", "TodoStore", "CloudModel", "SQLiteDB", "TLSTestSupport", "TodoPlanning", "TestSupport", .product(name: "Logging", package: "swift-log"),
                // A small TLS server for the transport's certificate tests.
                .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict),
        // Drives the real `todo` binary in tmux against a real cloud.
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "todo", "CloudServer", "CloudClient", "CloudModel", "HostileTextSupport", "TLSTestSupport", "ProcessTestSupport", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                // QuickCommandLineTests parse command lines with ArgumentParser, as `todo` does.
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "TodoAppTests",
            dependencies: [
                "TodoApp", "TodoSync", "TodoStore", "TodoUI", "Terminal", "CloudModel", "CloudClient", "CloudServer", "HostileTextSupport", "TLSTestSupport",
                "TodoPlanning", "TestSupport",
            ],
            swiftSettings: strict),
        .testTarget(name: "TodoUITests", dependencies: ["TodoUI", "Terminal", "HostileTextSupport", "TodoPlanning", "TestSupport"], swiftSettings: strict),
        // The tests' one home for waiting on a condition, for scratch directories (removed when the run ends) and for
        // running long computations on a thread of their own.
        // Compiled as the executables are in release, where the test library is absent: `todo-bench` links these
        // helpers (through the nginx starter) and leaves out the parts that need it.
        .target(name: "TestSupport", dependencies: ["SQLiteDB"], path: "Tests/TestSupport", swiftSettings: staticRuntimeCompile),
        // Seeded random Unicode another account could write, shared by the rendering and command-line fuzz tests.
        .target(name: "HostileTextSupport", dependencies: ["TestSupport"], path: "Tests/HostileTextSupport", swiftSettings: strict),
        // A private certificate authority made with openssl, shared by the TLS tests of the cloud and the device.
        .target(name: "TLSTestSupport", dependencies: ["ProcessTestSupport", "TestSupport"], path: "Tests/TLSTestSupport", swiftSettings: strict),
        // The tests' child processes: posix_spawn, output to files, reaped by polling their own pid.
        .target(name: "ProcessTestSupport", dependencies: ["CloudServer", "TestSupport"], path: "Tests/ProcessTestSupport", swiftSettings: strict),
        // A fresh empty database per test on a real PostgreSQL: $TODO_TEST_DATABASE_URL, or a cluster of the test process.
        .target(
            name: "PostgresTestSupport",
            dependencies: [
                "CloudServer", "TestSupport", .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/PostgresTestSupport", swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)

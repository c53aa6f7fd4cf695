// swift-tools-version: 6.1
import PackageDescription

// Upcoming features that make mistakes visible at compile time (Hummingbird 2 does the same).
// CI sets WARNINGS_AS_ERRORS: a warning fails its build (a user's build only shows it).
let strictSettings: [SwiftSetting] =
    [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("InternalImportsByDefault"),
        .enableUpcomingFeature("MemberImportVisibility"),
    ] + (Context.environment["WARNINGS_AS_ERRORS"] == nil ? [] : [.unsafeFlags(["-warnings-as-errors"])])

let package = Package(
    name: "attributiond",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "attributiond", targets: ["attributiond"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // The logging API only (no dependencies of its own): every module logs through Logger,
        // the executable decides where lines go (ServerLogging.swift).
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]),
        // libcurl for outbound requests (webhooks, postbacks): chosen over URLSession by measurement (docs/outbound.md).
        .systemLibrary(
            name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        // libpq for the PostgreSQL backend (several nodes on one database): the C client, no event-loop stack.
        .systemLibrary(
            name: "CLibPQ", path: "Sources/CLibPQ", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]),
        // libmaxminddb: a click's country from the operator's MaxMind-format database (docs/links.md).
        .systemLibrary(
            name: "CMaxMindDB", path: "Sources/CMaxMindDB", pkgConfig: "libmaxminddb",
            providers: [.apt(["libmaxminddb-dev"])]),
        // zlib for the gzip files of the raw export (docs/export.md).
        .systemLibrary(
            name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        // Tuning of the system SQLite: a page-cache wrapper (no needless full-cache walk at commits)
        // and a VFS that gathers WAL frames into large writes.
        .target(name: "CSQLiteTuning", dependencies: ["CSQLite"]),
        // epoll/eventfd declarations for the HTTP server's event loops.
        .target(name: "CEventPoll"),
        // JSON values and the one JSON writer, shared by every layer (no dependencies).
        .target(name: "JSON", swiftSettings: strictSettings),
        .target(name: "Lifecycle", swiftSettings: strictSettings),
        .target(name: "HTTP", dependencies: ["COpenSSL", "CEventPoll", "JSON", "Lifecycle"], swiftSettings: strictSettings),
        .target(name: "Attribution", dependencies: ["JSON"], swiftSettings: strictSettings),
        // What each fact adds to the rollups, defined once for both backends and the recount (no I/O).
        .target(name: "Counting", dependencies: ["Attribution"], swiftSettings: strictSettings),
        // Hashes, secrets, signatures and secure random numbers through OpenSSL.
        .target(name: "Cryptography", dependencies: ["COpenSSL", "Attribution"], swiftSettings: strictSettings),
        // Gzip streams through zlib: the export's files, written as rows arrive.
        .target(name: "Gzip", dependencies: ["CZlib"], swiftSettings: strictSettings),
        // The values both SQL backends bind (no dependencies).
        .target(name: "SQLValues", swiftSettings: strictSettings),
        // A PostgreSQL client over libpq: connections, pipelining, a pool (no store types).
        .target(name: "PostgresClient", dependencies: ["CLibPQ", "SQLValues"], swiftSettings: strictSettings),
        // The ports App and API use and the records they carry: no SQL, no database library.
        .target(name: "StoreContracts", dependencies: ["Attribution", "Cryptography", "JSON"], swiftSettings: strictSettings),
        .target(
            name: "Store",
            dependencies: [
                "StoreContracts", "SQLValues", "CSQLite", "CSQLiteTuning", "COpenSSL", "Attribution", "Counting", "Cryptography", "JSON",
                "Lifecycle",
                .product(name: "Logging", package: "swift-log"),
            ], swiftSettings: strictSettings,
            plugins: ["EmbedMigrations"]),
        // PostgreSQL for several nodes: the shared SQL of `Store` over PostgresClient's pool, with
        // group commit and pipelining (`PGWriter`), and the copy of a SQLite database into it.
        .target(
            name: "PostgresStore",
            dependencies: [
                "Store", "StoreContracts", "SQLValues", "PostgresClient", "CSQLite", "Attribution", "Counting", "Cryptography", "JSON",
                "Lifecycle",
                .product(name: "Logging", package: "swift-log"),
            ], swiftSettings: strictSettings,
            plugins: ["EmbedMigrations"]),
        .executableTarget(name: "embed-migrations", path: "Sources/embed-migrations"),
        .plugin(name: "EmbedMigrations", capability: .buildTool(), dependencies: ["embed-migrations"]),
        // The application layer: use cases, caches, project clocks (no HTTP, no SQL).
        .target(
            name: "App",
            dependencies: [
                "StoreContracts", "Attribution", "Cryptography", "Gzip", "JSON", "Lifecycle", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings),
        .target(
            name: "API", dependencies: ["HTTP", "App", "StoreContracts", "Attribution", "Cryptography", "Lifecycle"], swiftSettings: strictSettings),
        // `attributiond simulate`: populations run through the real application in process.
        .target(
            name: "Simulation", dependencies: ["API", "App", "HTTP", "Store", "StoreContracts", "SQLValues", "Attribution", "Cryptography"],
            swiftSettings: strictSettings),
        // Outbound HTTP through libcurl, behind App's OutboundTransport (the executable plugs it in).
        .target(name: "CurlTransport", dependencies: ["App", "CCurl"], swiftSettings: strictSettings),
        // Countries by IP address through libmaxminddb, behind App's CountryDatabase.
        .target(name: "GeoIP", dependencies: ["App", "CMaxMindDB"], swiftSettings: strictSettings),
        // The configuration: defaults, the JSON file, ATTRIBUTIOND_* variables (config/README.md).
        .target(
            name: "Configuration", dependencies: ["API", "App", "Attribution", "HTTP", "JSON", "Store", "StoreContracts", "SQLValues"],
            swiftSettings: strictSettings),
        .executableTarget(
            name: "attributiond",
            dependencies: [
                "HTTP", "API", "App", "Store", "StoreContracts", "PostgresStore", "PostgresClient", "SQLValues", "Attribution", "Configuration",
                "Cryptography", "CurlTransport", "GeoIP",
                "Simulation", "Lifecycle",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings),
        // Test helpers shared by the test targets: a raw socket client that sends exact bytes.
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: strictSettings),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "Lifecycle", "TestSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "ConfigurationTests", dependencies: ["API", "Configuration", "HTTP", "Store", "StoreContracts", "SQLValues"],
            swiftSettings: strictSettings),
        .testTarget(name: "AttributionTests", dependencies: ["Attribution"], swiftSettings: strictSettings),
        .testTarget(name: "CountingTests", dependencies: ["Counting", "Attribution"], swiftSettings: strictSettings),
        .testTarget(
            name: "StoreTests",
            dependencies: [
                "Store", "StoreContracts", "PostgresStore", "PostgresClient", "SQLValues", "Attribution", "Counting", "Cryptography", "TestSupport",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AppTests",
            dependencies: ["App", "Store", "StoreContracts", "SQLValues", "Attribution", "Cryptography", "CurlTransport", "Gzip"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "APITests",
            dependencies: [
                "API", "App", "HTTP", "Store", "StoreContracts", "PostgresStore", "PostgresClient", "SQLValues", "Cryptography", "CurlTransport",
                "GeoIP", "Gzip",
                "TestSupport",
            ],
            swiftSettings: strictSettings),
    ],
    swiftLanguageModes: [.v6]
)

// Benchmarks, built only when BENCHMARKS is set (the scripts/bench-* scripts set it; .ci/run too,
// so they keep compiling): `BENCHMARKS=1 swift run -c release store-bench`. A plain build skips them.
if Context.environment["BENCHMARKS"] != nil {
    package.targets += [
        .executableTarget(
            name: "store-bench", dependencies: ["Store", "StoreContracts", "SQLValues"], path: "Benchmarks/StoreBench",
            swiftSettings: strictSettings),
        .executableTarget(
            name: "stats-bench", dependencies: ["Store", "StoreContracts", "SQLValues", "Attribution"], path: "Benchmarks/StatsBench",
            swiftSettings: strictSettings),
        .executableTarget(
            name: "pg-store-bench", dependencies: ["Store", "StoreContracts", "PostgresStore", "PostgresClient", "SQLValues", "Attribution"],
            path: "Benchmarks/PGStoreBench",
            swiftSettings: strictSettings),
        .executableTarget(
            name: "match-bench", dependencies: ["Store", "StoreContracts", "SQLValues", "Attribution"], path: "Benchmarks/MatchBench",
            swiftSettings: strictSettings),
        .executableTarget(
            name: "outbox-bench", dependencies: ["App", "Store", "StoreContracts", "SQLValues", "HTTP", "Attribution", "CurlTransport"],
            path: "Benchmarks/OutboxBench",
            swiftSettings: strictSettings),
    ]
}

// swift-tools-version:6.1
import PackageDescription

// Installed binaries find the Swift runtime libraries that `make install` puts beside them
// ($PREFIX/lib/remindd), so a machine without the toolchain runs them.
let installedRuntimeSearchPath: [LinkerSetting] = [
    .unsafeFlags(["-Xlinker", "-rpath", "-Xlinker", "$ORIGIN/../lib/remindd"])
]

let package = Package(
    name: "remindd",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        // The model and policy: pure values, no I/O, Foundation only.
        .target(name: "RemindCore"),
        .target(name: "RemindAPI", dependencies: ["RemindCore"]),
        .target(name: "RemindConfig", dependencies: ["RemindCore"]),
        .target(name: "CRemindSys"),
        .target(
            name: "RemindStore",
            dependencies: [
                "RemindCore", "CRemindSys",
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .target(
            name: "RemindSinks",
            dependencies: [
                "RemindCore", "CRemindSys", "Systemd", .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        .target(
            name: "RemindPush",
            dependencies: [
                "RemindCore", "RemindSinks",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        // The PostgreSQL backend of the store protocol, for instances sharing one database.
        .target(
            name: "RemindPostgres",
            dependencies: [
                "RemindCore", "RemindStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // The health probe's own connection: its TLS context, made off the cooperative threads.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        .target(
            name: "Systemd",
            dependencies: ["CSystemd", .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "RemindDaemon",
            dependencies: [
                "RemindCore", "RemindAPI", "RemindConfig", "RemindStore", "RemindSinks", "RemindPush", "Systemd",
                "RemindPostgres",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
            ],
            // The console's HTML, CSS and JavaScript, compiled into the binary as byte arrays
            // (`PackageResources`): nothing to install beside it, nothing to find at run time.
            resources: [.embedInCode("Console")]
        ),
        .executableTarget(
            name: "remindd",
            dependencies: [
                "RemindDaemon", "RemindConfig", "RemindCore", "Systemd", "CRemindSys",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            linkerSettings: installedRuntimeSearchPath
        ),
        .target(
            name: "RemindClient",
            dependencies: [
                "RemindAPI", "RemindCore", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .executableTarget(
            name: "remindctl",
            dependencies: [
                "RemindClient", "RemindConfig", "RemindAPI", "RemindCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: installedRuntimeSearchPath
        ),
        .target(
            name: "RemindTesting",
            dependencies: [
                "RemindClient", "RemindCore", "RemindSinks", "RemindStore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // W9: adaptive allocation and send time replayed on a simulated population (Benchmarks/README.md).
        .executableTarget(name: "remind-simulation", dependencies: ["RemindCore"], path: "Benchmarks/Simulation"),
        .testTarget(name: "RemindCoreTests", dependencies: ["RemindCore", "RemindAPI", "RemindTesting"]),
        .testTarget(
            name: "RemindSinksTests",
            dependencies: [
                "RemindSinks", "RemindCore", "RemindTesting", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(
            name: "RemindPushTests",
            dependencies: [
                "RemindPush", "RemindSinks", "RemindStore", "RemindCore", "RemindTesting",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "RemindStoreTests",
            dependencies: [
                "RemindStore", "RemindCore", "RemindAPI", "RemindTesting", "RemindPostgres",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "RemindConfigTests", dependencies: ["RemindConfig", "RemindCore"]),
        .testTarget(
            name: "RemindDaemonTests",
            dependencies: [
                "RemindDaemon", "RemindTesting", "RemindStore", "RemindSinks", "RemindConfig", "RemindClient",
                "Systemd", "RemindPush",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "RemindctlTests", dependencies: ["RemindClient", "RemindTesting", "RemindCore"]),
        .testTarget(
            name: "SystemdTests",
            dependencies: ["Systemd", "RemindTesting", .product(name: "Logging", package: "swift-log")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

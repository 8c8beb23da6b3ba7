// swift-tools-version:6.2
import PackageDescription

// Layers import one way, top to bottom (see docs/ARCHITECTURE.md):
//   marquee -> ControlServer -> ContentSessions -> PlayerCore -> GStreamerKit -> GLibRuntime -> C modules
// ContentSessions (analytics and resume points) is a feature built on PlayerCore's feature
// surface; PlayerCore itself does not depend on Storage.
// (GStreamerSupport is GStreamerKit's C part; CGStreamer's shim.h holds only what Swift
// cannot import: variadic functions, macros, constants.)
// TextSupport sits below them all and imports only the standard library, libc and
// FoundationEssentials: it stands in for Foundation's text APIs, since the daemon links
// only FoundationEssentials.
// ControlAPI and MarqueeClient import no C module, so their tests run in milliseconds.
let package = Package(
    name: "Marquee",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "marquee", targets: ["marquee"]),
    ],
    targets: [
        .systemLibrary(name: "CGStreamer", pkgConfig: "gstreamer-pbutils-1.0",
                       providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]),
        .systemLibrary(name: "CSoup", pkgConfig: "libsoup-3.0",
                       providers: [.apt(["libsoup-3.0-dev"])]),
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .target(name: "TextSupport"),
        .target(name: "Logging", dependencies: ["TextSupport"]),
        .target(name: "Storage", dependencies: ["CSQLite"]),
        .target(name: "GLibRuntime", dependencies: ["CGStreamer"]),
        // C code that is logic rather than glue (snapshot encoding, text buffers, probes, the
        // splice): compiled as C, on the same pkg-config flags as CGStreamer.
        .target(name: "GStreamerSupport", dependencies: ["CGStreamer"]),
        .target(name: "GStreamerKit", dependencies: ["CGStreamer", "GStreamerSupport", "GLibRuntime", "TextSupport"]),
        .target(name: "ControlAPI", dependencies: ["TextSupport"]),
        .target(name: "HLS"),
        .target(name: "Subtitles", dependencies: ["TextSupport"]),
        .target(name: "HTTPFetch", dependencies: ["CSoup", "GLibRuntime", "TextSupport"]),
        .target(name: "Timeshift", dependencies: ["CGStreamer", "GStreamerKit", "GLibRuntime", "CSoup", "HTTPFetch", "Logging", "TextSupport"]),
        .target(name: "PlayerCore", dependencies: ["ControlAPI", "GStreamerKit", "GLibRuntime", "Logging", "HLS", "HTTPFetch", "Timeshift", "Subtitles", "TextSupport"]),
        // The offline library: downloads, media encrypted at rest, licences, and what playback
        // reads the decrypted copy through (marqueecopysrc for files, the loopback server for HLS).
        .target(name: "OfflineLibrary", dependencies: ["CCrypto", "CSoup", "CGStreamer", "GStreamerSupport", "GStreamerKit", "Storage", "GLibRuntime", "HTTPFetch", "Logging", "TextSupport", "ControlAPI", "HLS", "PlayerCore"]),
        .target(name: "ContentSessions", dependencies: ["ControlAPI", "PlayerCore", "Storage", "GLibRuntime", "HTTPFetch", "Logging", "TextSupport"]),
        // Concurrent-session control (--session-url): heartbeats to a session server, which may
        // stop playback; like ContentSessions, a feature on PlayerCore's feature surface.
        .target(name: "SessionControl", dependencies: ["ControlAPI", "PlayerCore", "GLibRuntime", "HTTPFetch", "Logging", "TextSupport"]),
        .target(name: "ControlServer", dependencies: ["ControlAPI", "PlayerCore", "ContentSessions", "OfflineLibrary", "GStreamerKit", "GLibRuntime", "CSoup", "HTTPFetch", "Logging"]),
        .target(name: "MarqueeClient", dependencies: ["ControlAPI"]),
        .executableTarget(name: "marquee-conformance", dependencies: ["HLS", "Subtitles"], path: "Sources/Conformance"),
        .executableTarget(name: "marquee", dependencies: ["ControlServer", "PlayerCore", "ContentSessions", "SessionControl", "OfflineLibrary", "MarqueeClient", "GLibRuntime", "Logging", "Storage", "TextSupport"]),

        .target(name: "TestMedia", dependencies: ["MarqueeClient"], path: "Tests/TestMedia"),
        .target(name: "GLibTestSupport", dependencies: ["GLibRuntime", "GStreamerKit"], path: "Tests/GLibTestSupport"),
        .testTarget(name: "ControlAPITests", dependencies: ["ControlAPI"]),
        .testTarget(name: "HLSTests", dependencies: ["HLS"]),
        .testTarget(name: "SubtitlesTests", dependencies: ["Subtitles"]),
        .testTarget(name: "HTTPFetchTests", dependencies: ["HTTPFetch", "GLibRuntime", "MarqueeClient", "TestMedia"]),
        .testTarget(name: "TimeshiftTests", dependencies: ["Timeshift", "GStreamerKit", "GLibRuntime", "GLibTestSupport", "TestMedia"]),
        .testTarget(name: "PlayerCoreTests", dependencies: ["PlayerCore", "ControlAPI", "GStreamerKit", "GLibRuntime", "GLibTestSupport", "HLS", "Subtitles", "TestMedia"]),
        .testTarget(name: "ContentSessionsTests", dependencies: ["ContentSessions", "PlayerCore", "ControlAPI", "Storage", "GLibRuntime", "GLibTestSupport", "TestMedia"]),
        .testTarget(name: "SessionControlTests", dependencies: ["SessionControl"]),
        .testTarget(name: "ControlServerTests", dependencies: ["ControlServer", "ControlAPI", "PlayerCore", "GLibRuntime"]),
        .testTarget(name: "GStreamerKitTests", dependencies: ["GStreamerKit", "GLibRuntime", "GLibTestSupport", "TestMedia"]),
        .testTarget(name: "MarqueeClientTests", dependencies: ["MarqueeClient"]),
        .testTarget(name: "StorageTests", dependencies: ["Storage"]),
        .testTarget(name: "OfflineLibraryTests", dependencies: ["OfflineLibrary", "CGStreamer", "GStreamerSupport", "GStreamerKit", "HLS", "ControlAPI", "Storage", "GLibRuntime", "GLibTestSupport", "HTTPFetch", "TestMedia"]),
        .testTarget(name: "IntegrationTests", dependencies: ["MarqueeClient", "ControlAPI", "TestMedia"]),
    ]
)

// swift-tools-version: 6.2
import PackageDescription

// SwiftNIO's HTTP and WebSocket server and client: the inspector, the live link and their tests.
let nio: [Target.Dependency] = [
    .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
    .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio"),
]

let package = Package(
    name: "Luna",
    // RouteCore (the Lua-free engine an app ships with an exported tree) needs Regex: macOS 13,
    // iOS 16. The Lua targets build where pkg-config finds lua5.4 (Linux, macOS with Homebrew);
    // an iOS app depends on the RouteCore product only.
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .executable(name: "luna", targets: ["luna"]),
        .library(name: "RouteCore", targets: ["RouteCore"]),
        .library(name: "LuaHost", targets: ["LuaHost"]),
        .library(name: "RouteScript", targets: ["RouteScript"]),
        .library(name: "LunaLink", targets: ["LunaLink"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // `swift package generate-documentation` (scripts/docs): the DocC catalogs.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The system Lua 5.4 library. Homebrew's `lua` is 5.5 now; 5.4 is the keg-only `lua@5.4`,
        // whose keg SwiftPM searches for `lua5.4.pc` because it is named here.
        .systemLibrary(
            name: "CLua",
            pkgConfig: "lua5.4",
            providers: [.apt(["liblua5.4-dev"]), .brew(["lua@5.4"])]
        ),
        // The only code that may raise a Lua error (longjmp): macro wrappers, protected calls,
        // the raise trampoline, the capped allocator, the instruction hook and the sandbox.
        .target(name: "CLuaShims", dependencies: ["CLua"]),
        // Pure Swift route engine: patterns, requests, matcher, nodes, state, reducer, plans.
        .target(name: "RouteCore"),
        // The Swift face of one lua_State. Knows nothing of routes.
        .target(name: "LuaHost", dependencies: ["CLua", "CLuaShims"]),
        // The route-script DSL on top of LuaHost and RouteCore.
        .target(name: "RouteScript", dependencies: ["LuaHost", "RouteCore"]),
        .target(name: "RouteCoreOracle", dependencies: ["RouteCore"]),
        // The live link's app side: a debug build follows a `luna serve` session through its own
        // presenter (SwiftNIO's WebSocket client; no Lua in the app).
        .target(
            name: "LunaLink",
            dependencies: ["RouteCore"] + nio),
        // libedit, for the REPL's line editing.
        .systemLibrary(
            name: "CEdit",
            pkgConfig: "libedit",
            providers: [.apt(["libedit-dev"]), .brew(["libedit"])]
        ),
        // The live session the REPL and the inspector share: host, history, events, file watching.
        .target(name: "LunaLive", dependencies: ["RouteScript", "RouteCore", "LuaHost"]),
        // The live inspector: a local HTTP/WebSocket server (SwiftNIO) and the page it serves.
        .target(
            name: "LunaInspector",
            dependencies: ["LunaLive", "RouteScript", "RouteCore"] + nio,
            resources: [
                .embedInCode("Page/index.html"), .embedInCode("Page/app.js"), .embedInCode("Page/app.css"),
                .embedInCode("Page/data.mjs"), .embedInCode("Page/history.mjs"), .embedInCode("Page/map.mjs"),
                .embedInCode("Page/prototype.mjs"), .embedInCode("Page/store.mjs"),
            ]
        ),
        // `luna test`: navigation tests in Lua, golden files, route coverage, JUnit and LCOV.
        .target(name: "LunaTest", dependencies: ["LunaLive", "RouteScript", "RouteCore", "LuaHost"]),
        // The REPL and command output.
        .target(
            name: "LunaConsole", dependencies: ["LunaLive", "LunaTest", "RouteScript", "RouteCore", "LuaHost", "CEdit"]),
        .executableTarget(
            name: "luna",
            dependencies: [
                "LunaConsole", "LunaLive", "LunaInspector", "LunaTest", "LunaLink",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "RouteCoreTests", dependencies: ["RouteCore", "RouteCoreOracle"]),
        .testTarget(name: "LuaHostTests", dependencies: ["LuaHost", "CLuaShims"]),
        .testTarget(
            name: "RouteScriptTests", dependencies: ["RouteScript", "RouteCore", "LuaHost", "RouteCoreOracle"]),
        .testTarget(
            name: "LunaTestTests", dependencies: ["LunaTest", "LunaLive", "RouteScript"], exclude: ["Fixtures"]),
        .testTarget(
            name: "LunaLiveTests",
            dependencies: ["LunaLive", "RouteScript", "RouteCore", "RouteCoreOracle", "LunaTestSupport"]),
        // What the tests share: paths, script folders, running `luna`, a served script and page
        // clients, the browser's WebDriver client (a library of the tests, not a product).
        .target(
            name: "LunaTestSupport",
            dependencies: ["LunaInspector", "LunaLive", "RouteScript"] + nio,
            path: "Tests/LunaTestSupport"),
        // The inspector's server without a browser or another process: its messages, security
        // checks, token file and a session shared with the REPL.
        .testTarget(
            name: "LunaInspectorTests",
            dependencies: ["LunaInspector", "LunaLive", "LunaConsole", "RouteScript", "LunaTestSupport"] + nio),
        // End to end: a real browser (chromium over WebDriver), linked apps over WebSocket, the
        // built `luna` binary (its commands, a terminal, signals, `luna test`, `luna go`) and
        // the docs checked through it. `swift test --skip LunaEndToEndTests` runs the rest.
        .testTarget(
            name: "LunaEndToEndTests",
            dependencies: [
                "LunaInspector", "LunaLive", "LunaConsole", "LunaTest", "RouteScript", "RouteCore", "LunaLink",
                "LunaTestSupport", "RouteCoreOracle",
            ] + nio,
            exclude: ["Fixtures"]),
        // The Swift an app writes, compiled in Swift 6 mode: a `@MainActor` UIKit presenter with an
        // isolated conformance driving `Router` and `ScriptHost`, the SwiftUI recipe's model, a tree
        // loaded off the main actor (RouteCore's DocC, "UIKit and SwiftUI presenters").
        .testTarget(name: "AppCompileTests", dependencies: ["RouteCore", "RouteScript", "LunaLink"]),
        // The same presenter under the settings of a new Xcode 26 app target (main-actor default
        // isolation, isolated conformances inferred): it conforms with no annotation at all.
        .testTarget(
            name: "AppDefaultsCompileTests", dependencies: ["RouteCore", "LunaLink"],
            swiftSettings: [
                .defaultIsolation(MainActor.self),
                .enableUpcomingFeature("InferIsolatedConformances"),
                .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
            ]),
        // The REPL's session without a terminal: its input lines, transcripts, Tab completion, the
        // file watcher, the public API's list.
        .testTarget(
            name: "LunaConsoleTests",
            dependencies: ["LunaConsole", "LunaLive", "LunaTest", "RouteScript", "RouteCore", "LunaTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// The upcoming features routing-kit turns on: `any` spelled out on every existential, and a
// member visible only where its module is imported.
let upcoming: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + upcoming
}

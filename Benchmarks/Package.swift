// swift-tools-version: 6.1
// Luna's benchmarks, kept out of the main package so `swift test` stays lean.
// Run with scripts/bench (release build, one run measures Luna and every anchor).
import PackageDescription

let package = Package(
    name: "LunaBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Luna", path: ".."),
        .package(url: "https://github.com/vapor/routing-kit", from: "4.9.3"),
    ],
    targets: [
        // The system Lua, for the C side of the Swift→Lua vs. C→Lua call comparison.
        .systemLibrary(name: "CLuaSystem", pkgConfig: "lua5.4", providers: [.apt(["liblua5.4-dev"])]),
        .target(name: "LuaCallBench", dependencies: ["CLuaSystem"]),
        .executableTarget(
            name: "LunaBench",
            dependencies: [
                .product(name: "RouteCore", package: "Luna"),
                .product(name: "RouteScript", package: "Luna"),
                .product(name: "LuaHost", package: "Luna"),
                .product(name: "LunaTest", package: "Luna"),
                .product(name: "RoutingKit", package: "routing-kit"),
                "LuaCallBench",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

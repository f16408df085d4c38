// swift-tools-version: 6.1
// Luna's benchmarks, kept out of the main package so `swift test` stays lean.
// Run with scripts/bench (release build, one run measures Luna and every anchor).
import PackageDescription

let package = Package(
    name: "LunaBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Luna", path: ".."),
        .package(url: "https://github.com/vapor/routing-kit", from: "4.9.3"),
        // The strongest Swift router anchor: Hummingbird's trie (RouterTrie, through its
        // @_spi(Internal) builder, as Hummingbird's own benchmarks use it).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
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
                .product(name: "LunaLink", package: "Luna"),
                .product(name: "RoutingKit", package: "routing-kit"),
                .product(name: "Hummingbird", package: "hummingbird"),
                "LuaCallBench",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

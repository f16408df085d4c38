// swift-tools-version: 6.1
// A Swift app's side of Luna: its own presentables and presenters, driven by a route script
// (ScriptHost), and the same tree shipped without Lua (RouteTree(json:) + typed routes).
// Built and run by scripts/example-host (part of scripts/test).
import PackageDescription

let package = Package(
    name: "BooksHost",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [.package(name: "Luna", path: "../..")],
    targets: [
        .executableTarget(
            name: "BooksHost",
            dependencies: [
                .product(name: "RouteScript", package: "Luna"),
                .product(name: "RouteCore", package: "Luna"),
                .product(name: "LunaLink", package: "Luna"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)

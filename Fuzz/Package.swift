// swift-tools-version: 6.2
// libFuzzer targets, kept out of the main package: a fuzzer's entry point breaks a plain
// `swift build` link. Run with scripts/fuzz.
import PackageDescription

let package = Package(
    name: "LunaFuzz",
    dependencies: [.package(name: "Luna", path: "..")],
    targets: [
        // The main package's test-support target (not a product of it: the public API is what
        // an app uses), built here from the same sources through a symbolic link.
        .target(name: "RouteCoreOracle", dependencies: [.product(name: "RouteCore", package: "Luna")]),
        .executableTarget(
            name: "MatcherFuzzer",
            dependencies: [
                .product(name: "RouteCore", package: "Luna"),
                "RouteCoreOracle",
            ]
        ),
        .executableTarget(
            name: "ExportFuzzer",
            dependencies: [
                .product(name: "RouteCore", package: "Luna"),
                "RouteCoreOracle",
            ]
        ),
        .executableTarget(
            name: "RegexFuzzer",
            dependencies: [
                .product(name: "RouteCore", package: "Luna"),
                "RouteCoreOracle",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version: 6.1
// libFuzzer targets, kept out of the main package: a fuzzer's entry point breaks a plain
// `swift build` link. Run with scripts/fuzz.
import PackageDescription

let package = Package(
    name: "LunaFuzz",
    dependencies: [.package(name: "Luna", path: "..")],
    targets: [
        .executableTarget(
            name: "MatcherFuzzer",
            dependencies: [
                .product(name: "RouteCore", package: "Luna"),
                .product(name: "RouteCoreOracle", package: "Luna"),
            ]
        ),
        .executableTarget(
            name: "RegexFuzzer",
            dependencies: [
                .product(name: "RouteCore", package: "Luna"),
                .product(name: "RouteCoreOracle", package: "Luna"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

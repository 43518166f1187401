// swift-tools-version: 6.1
import PackageDescription

// An HTTP service built on DriftKit: POST a recording and its reference, get the recording repaired to the
// reference's length and its report. It depends on driftfix by path, as any package would by URL.
let package = Package(
    name: "RepairService",
    // Hummingbird states its Apple floors; the service, like driftfix, runs on Linux.
    platforms: [.macOS(.v14)],
    dependencies: [
        // `name:` gives the path dependency the identity its products are asked by, whatever the clone's folder.
        // No traits: the service serves no live metrics of its own runs, so DriftKit is built without them (and
        // without swift-prometheus; scripts/test-example.sh checks that it was not built).
        .package(name: "driftfix", path: "../..", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // FilePath, the type of every path in DriftKit's API.
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        .executableTarget(
            name: "RepairService",
            dependencies: [
                .product(name: "DriftKit", package: "driftfix"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")])
    ],
    swiftLanguageModes: [.v6]
)

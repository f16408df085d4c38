import Dispatch
import Foundation
import LunaLink
import RouteCore

#if canImport(Glibc)
    import Glibc
#endif

extension Bench {
    /// Save → the linked app's presenter: `luna serve SCRIPT` runs (the built binary,
    /// `LUNA_BIN`), an app follows it over the live link (`LunaLink`, in a process of its own:
    /// `LunaBench link-latency`), the script is saved in place with one title changed, and the
    /// time until the app's presentable gets the new title is taken — the watcher, the reload,
    /// the plan and its delivery over loopback together. examples/books.lua and a generated
    /// script of 1,000 routes; the median of 10 saves after one untimed.
    mutating func measureSaveToDevice() throws {
        guard let builds = lunaBuilds("link") else { return }
        let books = try String(contentsOfFile: Self.examples + "/books.lua", encoding: .utf8)
        let constant = workload.routes(1000).first { !$0.contains(":") && !$0.contains("...") } ?? ""
        for (key, text, title, request) in [
            ("books", books, "Books", "books"), ("1k", script(1000), "Generated", constant),
        ] {
            for (suffix, build) in builds {
                let folder = NSTemporaryDirectory() + "luna-bench-link-" + UUID().uuidString
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(atPath: folder) }
                let path = folder + "/live.lua"
                try text.write(toFile: path, atomically: false, encoding: .utf8)
                let process = Process()
                process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
                process.arguments = ["link-latency", build, path, title, request, String(quick ? 4 : 10)]
                let output = Pipe()
                process.standardOutput = output
                try process.run()
                let data = output.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                let text = String(decoding: data, as: UTF8.self)
                guard process.terminationStatus == 0,
                    let milliseconds = Double(text.trimmingCharacters(in: .whitespacesAndNewlines))
                else {
                    throw BenchError("link bench (\(key)): \(text)")
                }
                scalars["save_to_device_\(key)_ms\(suffix)"] = milliseconds
            }
        }
    }

    /// `LunaBench link-latency LUNA SCRIPT TITLE REQUEST SAVES`: serves SCRIPT, links an app to
    /// it, dispatches REQUEST (under a node titled TITLE) and prints the median save → presenter
    /// time in milliseconds. Runs the main actor's queue
    /// (the link lives there) and exits when done.
    static func linkLatency(_ arguments: [String]) -> Never {
        guard arguments.count == 5, let saves = Int(arguments[4]) else {
            FileHandle.standardError.write(Data("usage: LunaBench link-latency LUNA SCRIPT TITLE REQUEST SAVES\n".utf8))
            exit(2)
        }
        Task { @MainActor in
            do {
                let median = try await measureLink(
                    binary: arguments[0], path: arguments[1], title: arguments[2], request: arguments[3], saves: saves)
                print(median)
                exit(0)
            } catch {
                print("\(error)")
                exit(1)
            }
        }
        dispatchMain()
    }

    @MainActor
    static func measureLink(
        binary: String, path: String, title: String, request: String, saves: Int
    ) async throws -> Double {
        let script = try String(contentsOfFile: path, encoding: .utf8)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: binary)
        server.arguments = ["serve", path, "--port", "0"]
        let output = Pipe()
        server.standardOutput = output
        server.standardError = FileHandle.nullDevice
        try server.run()
        // Not waited for: Foundation's wait would run the main run loop inside the main actor's
        // job. The process exits right after (and SIGTERM ends luna serve).
        defer { server.terminate() }
        let reader = LineReader(fd: output.fileHandleForReading.fileDescriptor)
        guard let line = reader.next(where: { $0.hasPrefix("luna inspector: ") }) else {
            throw BenchError("link bench: luna serve did not start")
        }
        let url = String(line.dropFirst("luna inspector: ".count))
        let presenter = TimingPresenter()
        let link = LunaLink(url: url, idiom: .phone, presenter: presenter)
        link.start()
        defer { link.stop() }
        try await until { link.tree != nil }
        link.dispatch(request)
        try await until { link.request == request }
        var times: [Double] = []
        let clock = ContinuousClock()
        for round in 0...saves {
            let wanted = "\(title) \(round)"
            let edited = script.replacingOccurrences(of: "title = \"\(title)\"", with: "title = \"\(wanted)\"")
            presenter.waitingFor = wanted
            presenter.seen = nil
            let start = clock.now
            try edited.write(toFile: path, atomically: false, encoding: .utf8)
            try await until { presenter.seen != nil }
            if round > 0, let seen = presenter.seen { times.append(Harness.nanoseconds(seen - start) / 1e6) }
            try await Task.sleep(for: .milliseconds(50))  // the next save is a new one
        }
        return times.sorted()[times.count / 2]
    }

    @MainActor
    static func until(_ condition: () -> Bool) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(20)
        while !condition() {
            guard clock.now < deadline else { throw BenchError("link bench: timed out") }
            try await Task.sleep(for: .microseconds(200))
        }
    }
}

/// The app's presentable in the link bench: records when a title it waits for arrives.
@MainActor
final class TimingPresentable: ScriptViewable {
    let owner: TimingPresenter
    init(owner: TimingPresenter) { self.owner = owner }
    nonisolated func setScriptAttribute(_ name: String, to value: AttributeValue?) throws {
        MainActor.assumeIsolated {
            if name == "title", value?.description == owner.waitingFor, owner.seen == nil { owner.seen = .now }
        }
    }
}

@MainActor
final class TimingPresenter {
    var waitingFor: String?
    var seen: ContinuousClock.Instant?
}

extension TimingPresenter: @MainActor Presenter {
    func create(_ node: RouteTree.Node, activation: Activation?) throws -> TimingPresentable {
        TimingPresentable(owner: self)
    }
    func setStack(_ stack: TimingPresentable, node: RouteTree.Node, items: [TimingPresentable]) throws {}
    func setOptions(_ container: TimingPresentable, node: RouteTree.Node, options: [TimingPresentable]) throws {}
    func select(_ container: TimingPresentable, node: RouteTree.Node, index: Int, option: TimingPresentable) throws {}
    func presentModal(_ modal: TimingPresentable, over presenter: TimingPresentable, node: RouteTree.Node) throws {}
    func dismissModal(_ modal: TimingPresentable, from presenter: TimingPresentable, node: RouteTree.Node) throws {}
}

#if canImport(Glibc)
    import Glibc
#endif

/// The standard workload of ../shared/bench-data, read at run time.
struct Workload {
    let folder: String

    static func locate() -> Workload {
        if let path = getenv("LUNA_BENCH_DATA") { return Workload(folder: String(cString: path)) }
        var candidates = ["../shared/bench-data", "../../shared/bench-data", "../../../shared/bench-data"]
        if let root = getenv("LUNA_ROOT") { candidates.insert(String(cString: root) + "/../shared/bench-data", at: 0) }
        let found = candidates.first { access($0 + "/routes_10.txt", R_OK) == 0 } ?? candidates[0]
        return Workload(folder: found)
    }

    func lines(_ name: String) -> [String] {
        guard let file = fopen(folder + "/" + name, "r") else {
            fatalError("cannot read \(folder)/\(name): set LUNA_BENCH_DATA to the bench-data folder")
        }
        defer { fclose(file) }
        var result: [String] = []
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        while getline(&line, &capacity, file) > 0, let line {
            var text = String(cString: line)
            while text.last == "\n" || text.last == "\r" { text.removeLast() }
            if !text.isEmpty { result.append(text) }
        }
        free(line)
        return result
    }

    func routes(_ n: Int) -> [String] { lines("routes_\(n).txt") }
    func requests(_ set: String, _ n: Int) -> [String] { lines("req_\(set)_\(n).txt") }
}

import Foundation
@_spi(Internal) import Hummingbird
import LuaHost
import RouteCore
import RoutingKit

/// Luna's compiled matcher, end to end: raw request → route and parameter values.
struct LunaMatcher {
    let matcher: Matcher

    init(_ patterns: [String]) {
        matcher = Matcher(routes: patterns.map { try! RouteDefinition(pattern: Pattern($0)) })
    }

    /// The winning route, or -1.
    func winner(_ request: String) -> Int { (try? matcher.match(request))?.route ?? -1 }

    @inline(__always)
    func route(_ request: String) -> Int {
        guard let match = try? matcher.match(request) else { return -1 }
        var total = match.route
        for index in 0..<matcher.parameterNames[match.route].count { total &+= match.value(at: index).utf8.count }
        return total
    }
}

/// vapor/routing-kit's TrieRouter as Vapor uses it: strip query and fragment, split the
/// path into [String], route.
struct RoutingKitMatcher {
    let router: TrieRouter<Int>

    init(_ patterns: [String]) {
        router = TrieRouter(Int.self)
        for (index, pattern) in patterns.enumerated() {
            let components: [PathComponent] = pattern.split(separator: "/").map { part in
                if part == "..." { return .catchall }
                if part.hasPrefix(":") { return .parameter(String(part.dropFirst())) }
                return .constant(String(part))
            }
            router.register(index, at: components)
        }
    }

    @inline(__always)
    func route(_ request: String) -> Int {
        let path = pathPart(request).split(separator: "/").map(String.init)
        var parameters = RoutingKit.Parameters()
        return router.route(path: path, parameters: &parameters) ?? -1
    }
}

/// A request without its query and fragment, as the anchors' servers cut it.
@inline(__always)
func pathPart(_ request: String) -> Substring {
    request[..<(request.firstIndex { $0 == "?" || $0 == "#" } ?? request.endIndex)]
}

/// Hummingbird 2's trie router as its server uses it: the request's path (query and
/// fragment cut off) resolved by `RouterTrie`, parameters captured as substrings.
/// Luna's `...` catch-all is Hummingbird's `**` (a recursive wildcard).
struct HummingbirdMatcher {
    let trie: RouterTrie<Int>

    init(_ patterns: [String]) {
        let builder = RouterPathTrieBuilder<Int>()
        for (index, pattern) in patterns.enumerated() {
            let path = pattern.split(separator: "/").map { $0 == "..." ? "**" : String($0) }.joined(separator: "/")
            builder.addEntry(RouterPath("/" + path), value: index)
        }
        trie = RouterTrie(base: builder)
    }

    /// The winning route, or -1.
    func winner(_ request: String) -> Int {
        trie.resolve(String(pathPart(request)))?.value ?? -1
    }

    @inline(__always)
    func route(_ request: String) -> Int {
        guard let (value, parameters) = trie.resolve(String(pathPart(request))) else { return -1 }
        var total = value
        for (_, parameter) in parameters { total &+= parameter.utf8.count }
        return total
    }
}

/// FeatherweightRouter-style: a linear scan of whole-path NSRegularExpressions.
struct RegexScanMatcher {
    let expressions: [NSRegularExpression]

    init(_ patterns: [String]) {
        expressions = patterns.map { pattern in
            let body = pattern.split(separator: "/").map { part -> String in
                if part == "..." { return "(.+)" }
                if part.hasPrefix(":") { return "([^/]+)" }
                return NSRegularExpression.escapedPattern(for: String(part))
            }.joined(separator: "/")
            return try! NSRegularExpression(pattern: "^" + body + "$")
        }
    }

    func route(_ request: String) -> Int {
        let path = pathPart(request).split(separator: "/").joined(separator: "/")
        let range = NSRange(path.startIndex..<path.endIndex, in: path)
        for (index, expression) in expressions.enumerated() {
            if let match = expression.firstMatch(in: path, range: range) { return index + match.numberOfRanges }
        }
        return -1
    }
}

/// The floor: one pass over the request bytes that hashes each segment once.
@inline(__always)
func floorPass(_ request: String) -> UInt64 {
    var request = request
    return request.withUTF8 { bytes in
        var total: UInt64 = 0
        var segment: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            if byte == UInt8(ascii: "/") {
                total &+= segment
                segment = 0xcbf2_9ce4_8422_2325
            } else {
                segment = (segment ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            }
        }
        return total &+ segment
    }
}

/// What a Lua user would write instead: a trie router in Lua (string.find/sub splitting,
/// nested tables, backtracking over constant, parameter and `...` edges), run in the
/// embedded Lua on the same workload.
final class LuaTrieMatcher {
    let vm: LuaVM
    let routeAll: LuaValue
    let requests: LuaValue

    static let source = """
        local find, sub = string.find, string.sub
        local root = { c = {} }
        local function insert(pattern, value)
          local node, start, names, position = root, 1, {}, 0
          while true do
            local slash = find(pattern, "/", start, true)
            local seg = sub(pattern, start, slash and slash - 1 or -1)
            position = position + 1
            if seg == "..." then node.rest = { value = value, names = names } return end
            local child
            if sub(seg, 1, 1) == ":" then
              names[position] = sub(seg, 2)
              child = node.p
              if not child then child = { c = {} } node.p = child end
            else
              child = node.c[seg]
              if not child then child = { c = {} } node.c[seg] = child end
            end
            node = child
            if not slash then break end
            start = slash + 1
          end
          node.value = { value = value, names = names }
        end
        local segs = {}
        local function search(node, i, n)
          if i > n then return node.value or node.rest end
          local child = node.c[segs[i]]
          if child then local found = search(child, i + 1, n) if found then return found end end
          if node.p then local found = search(node.p, i + 1, n) if found then return found end end
          return node.rest
        end
        local function route(request)
          local stop = #request
          local q = find(request, "?", 1, true)
          local h = find(request, "#", 1, true)
          if q and q - 1 < stop then stop = q - 1 end
          if h and h - 1 < stop then stop = h - 1 end
          local n, start = 0, 1
          while start <= stop do
            local slash = find(request, "/", start, true)
            local last = (slash and slash <= stop) and slash - 1 or stop
            if last >= start then n = n + 1 segs[n] = sub(request, start, last) end
            start = last + 2
          end
          local found = search(root, 1, n)
          if not found then return nil end
          local params = {}
          for position, name in pairs(found.names) do params[name] = segs[position] end
          return found.value, params
        end
        local function routeAll(requests)
          local hits = 0
          for i = 1, #requests do if route(requests[i]) then hits = hits + 1 end end
          return hits
        end
        return insert, routeAll
        """

    init(_ patterns: [String], requests: [String]) throws {
        var options = LuaVM.Options()
        options.sandbox = .unsafe
        options.memoryLimit = 0
        options.loadLimits = LuaLimits(instructions: 0, deadline: nil)
        options.callLimits = LuaLimits(instructions: 0, deadline: nil)
        vm = try LuaVM(options: options)
        let functions = try vm.run(Self.source, chunkName: "=luatrie")
        let insert = functions[0]
        routeAll = functions[1]
        let list = vm.newTable(arrayCapacity: patterns.count)
        for (index, pattern) in patterns.enumerated() {
            try vm.rawSet(list, key: .integer(Int64(index + 1)), value: .string(pattern))
        }
        let build = try vm.run(
            "return function(insert, list) for i = 1, #list do insert(list[i], i) end end", chunkName: "=build")[0]
        _ = try vm.call(build, [insert, list])
        let table = vm.newTable(arrayCapacity: requests.count)
        for (index, request) in requests.enumerated() {
            try vm.rawSet(table, key: .integer(Int64(index + 1)), value: .string(request))
        }
        self.requests = table
    }

    func routeAllRequests() -> Int {
        (try? vm.call(routeAll, [requests]))?.first?.integerValue.map(Int.init) ?? -1
    }
}

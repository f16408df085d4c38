/// The link domains and schemes a script declares (`links = { schemes = { "myapp" }, hosts = {
/// "example.com", "*.example.com" } }` on its root): a universal link on another host, or a
/// URL of a custom scheme not declared, is refused with `invalidRequest` instead of matching
/// like its path. A tree that declares none takes any host and scheme (the path is what
/// matches).
///
/// ```swift
/// let links = try LinkDomains(schemes: ["myapp"], hosts: ["example.com", "*.example.com"])
/// try links.check("https://shop.example.com/books/42")   // fine
/// try links.check("https://evil.example/books/42")       // invalidRequest
/// ```
public struct LinkDomains: Sendable, Equatable {
    /// Custom URL schemes (`myapp`), lowercased.
    public let schemes: [String]
    /// Hosts of universal links (`http`/`https`): a name (`example.com`) or every subdomain of
    /// one (`*.example.com`, which does not take `example.com` itself — list both), lowercased.
    public let hosts: [String]
    /// Whether a link over `http` to one of ``hosts`` is taken too (`links = { http = true }`).
    /// Off by default: iOS opens an app for universal links over https only, and Android's
    /// deep links do not match an http URL to an https one (docs/deep-links.md).
    public let acceptsHTTP: Bool

    /// - Throws: ``RouteDefinitionError`` for a scheme or host that is not one: `http` and
    ///   `https` are declared by their hosts; a host is letters, digits, `-` and `.`, with an
    ///   optional leading `*.`.
    public init(schemes: [String] = [], hosts: [String] = [], acceptsHTTP: Bool = false) throws(RouteDefinitionError) {
        var checkedSchemes: [String] = []
        for scheme in schemes {
            let lowered = scheme.lowercased()
            guard let first = lowered.utf8.first, (97...122).contains(first),
                lowered.utf8.allSatisfy({ Self.isLetterOrDigit($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E })
            else {
                throw RouteDefinitionError("links: '\(scheme)' is not a URL scheme (letters, digits, +, - and .)")
            }
            guard lowered != "http", lowered != "https" else {
                throw RouteDefinitionError("links: '\(scheme)' links are universal links: list their hosts instead")
            }
            checkedSchemes.append(lowered)
        }
        var checkedHosts: [String] = []
        for host in hosts {
            let lowered = host.lowercased()
            let name = lowered.hasPrefix("*.") ? String(lowered.dropFirst(2)) : lowered
            let labels = name.split(separator: ".", omittingEmptySubsequences: false)
            guard !name.isEmpty, labels.allSatisfy({ !$0.isEmpty }),
                name.utf8.allSatisfy({ Self.isLetterOrDigit($0) || $0 == 0x2D || $0 == 0x2E })
            else {
                throw RouteDefinitionError(
                    "links: '\(host)' is not a host name (example.com, or *.example.com for its subdomains)")
            }
            checkedHosts.append(lowered)
        }
        self.schemes = checkedSchemes
        self.hosts = checkedHosts
        self.acceptsHTTP = acceptsHTTP
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (97...122).contains(byte) || (48...57).contains(byte)
    }

    /// Whether a universal link's host is one of ``hosts``.
    public func admits(host: String) -> Bool {
        let host = host.lowercased()
        for declared in hosts {
            if declared.hasPrefix("*.") {
                if host.hasSuffix(declared.dropFirst(1)), host.count > declared.count - 1 { return true }
            } else if host == declared {
                return true
            }
        }
        return false
    }

    /// Refuses a URL whose scheme or host the tree does not declare; a plain path passes.
    ///
    /// - Throws: ``RouteError`` (`invalidRequest`) naming the scheme or host and what is declared.
    public func check(_ request: String) throws(RouteError) {
        guard let (scheme, host) = Self.origin(of: request) else { return }
        if scheme == "http" || scheme == "https" {
            guard admits(host: host) else {
                let declared =
                    hosts.isEmpty
                    ? "the script declares no link hosts" : "links.hosts: " + hosts.joined(separator: ", ")
                throw RouteError(.invalidRequest, "'\(host)' is not one of this app's link hosts (\(declared))")
            }
            if scheme == "http", !acceptsHTTP {
                throw RouteError(
                    .invalidRequest,
                    "'http://\(host)' is not a universal link: apps are opened by https links only "
                        + "(links = { http = true } takes http too)")
            }
        } else if !schemes.contains(scheme) {
            let declared =
                schemes.isEmpty
                ? "the script declares no URL schemes" : "links.schemes: " + schemes.joined(separator: ", ")
            throw RouteError(.invalidRequest, "'\(scheme)://' is not one of this app's URL schemes (\(declared))")
        }
    }

    /// The scheme (lowercased) and, for `http`/`https`, the host (without user, port) of a URL;
    /// nil for a plain path.
    static func origin(of request: String) -> (scheme: String, host: String)? {
        let bytes = Array(request.utf8.prefix(2048))
        // A scheme: a letter, then letters, digits, +, - or ., then "://".
        func isSchemeByte(_ byte: UInt8) -> Bool {
            let letter = (65...90).contains(byte) || (97...122).contains(byte)
            return letter || (48...57).contains(byte) || byte == 0x2B || byte == 0x2D || byte == 0x2E
        }
        guard let first = bytes.first, (65...90).contains(first) || (97...122).contains(first) else { return nil }
        var end = 1
        while end < bytes.count, isSchemeByte(bytes[end]) { end += 1 }
        guard end + 2 < bytes.count, bytes[end] == 0x3A, bytes[end + 1] == 0x2F, bytes[end + 2] == 0x2F else {
            return nil
        }
        let scheme = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
        guard scheme == "http" || scheme == "https" else { return (scheme, "") }
        // The authority, up to the path, query or fragment; without user and port.
        var start = end + 3
        var stop = start
        while stop < bytes.count, bytes[stop] != 0x2F, bytes[stop] != 0x3F, bytes[stop] != 0x23 { stop += 1 }
        if let at = bytes[start..<stop].lastIndex(of: 0x40) { start = at + 1 }
        var hostEnd = start
        if start < stop, bytes[start] == 0x5B {
            while hostEnd < stop, bytes[hostEnd] != 0x5D { hostEnd += 1 }
            hostEnd = min(hostEnd + 1, stop)
        } else {
            while hostEnd < stop, bytes[hostEnd] != 0x3A { hostEnd += 1 }
        }
        return (scheme, String(decoding: bytes[start..<hostEnd], as: UTF8.self))
    }
}

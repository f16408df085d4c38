/// Byte-level helpers shared by request parsing and the matcher.
enum Bytes {
    static let slash = UInt8(ascii: "/")
    static let percent = UInt8(ascii: "%")
    static let question = UInt8(ascii: "?")
    static let hash = UInt8(ascii: "#")
    static let plus = UInt8(ascii: "+")
    static let space = UInt8(ascii: " ")
    static let ampersand = UInt8(ascii: "&")
    static let equals = UInt8(ascii: "=")
    static let colon = UInt8(ascii: ":")

    /// The value of a hex digit, or nil.
    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 65...70: byte - 55
        case 97...102: byte - 87
        default: nil
        }
    }

    /// Percent-decodes `bytes` (and turns `+` into a space when `plusIsSpace`), or returns
    /// nil for a malformed escape. The result is not yet checked for UTF-8.
    static func percentDecoded(_ bytes: some Collection<UInt8>, plusIsSpace: Bool) -> [UInt8]? {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var iterator = bytes.makeIterator()
        while let byte = iterator.next() {
            if byte == percent {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue)
                else { return nil }
                result.append(high << 4 | low)
            } else if plusIsSpace && byte == plus {
                result.append(space)
            } else {
                result.append(byte)
            }
        }
        return result
    }

    /// The bytes as a String if they are valid UTF-8.
    static func validString(_ bytes: [UInt8]) -> String? {
        String(validUTF8: bytes)
    }

    /// Characters that stay unescaped in a path segment (RFC 3986 unreserved and sub-delims
    /// that routers pass through, minus the ones that split requests).
    static func isSegmentSafe(_ byte: UInt8) -> Bool {
        switch byte {
        case 48...57, 65...90, 97...122: true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "!"),
            UInt8(ascii: "$"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"),
            UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"):
            true
        default: false
        }
    }

    /// Percent-encodes one path segment (or a query key or value when `query`).
    static func percentEncoded(_ string: String, query: Bool = false) -> String {
        var result: [UInt8] = []
        let digits = Array("0123456789ABCDEF".utf8)
        for byte in string.utf8 {
            if isSegmentSafe(byte) && !(query && (byte == ampersand || byte == equals || byte == plus)) {
                result.append(byte)
            } else {
                result.append(percent)
                result.append(digits[Int(byte >> 4)])
                result.append(digits[Int(byte & 15)])
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// Where the path starts in `bytes[..<end]` after a leading `scheme://`: a custom
    /// scheme's host is the first segment (`myapp://books/42` → `books/42`); an http(s) host
    /// is dropped (`https://example.com/books` → `/books`). Nil without a scheme.
    static func pathStart(afterSchemeIn bytes: UnsafeBufferPointer<UInt8>, end: Int) -> Int? {
        guard end > 0, (65...90).contains(bytes[0]) || (97...122).contains(bytes[0]) else { return nil }
        var index = 1
        while index < end, bytes[index] != colon {
            let byte = bytes[index]
            let allowed =
                (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            guard allowed else { return nil }
            index += 1
        }
        guard index + 2 < end, bytes[index] == colon, bytes[index + 1] == slash, bytes[index + 2] == slash else {
            return nil
        }
        // "http" or "https", case-insensitively (no allocation: this is on the matcher's path).
        let isWeb =
            (index == 4 || index == 5) && bytes[0] | 0x20 == UInt8(ascii: "h") && bytes[1] | 0x20 == UInt8(ascii: "t")
            && bytes[2] | 0x20 == UInt8(ascii: "t") && bytes[3] | 0x20 == UInt8(ascii: "p")
            && (index == 4 || bytes[4] | 0x20 == UInt8(ascii: "s"))
        var pathStart = index + 3
        if isWeb {
            while pathStart < end && bytes[pathStart] != slash { pathStart += 1 }
        }
        return pathStart
    }
}

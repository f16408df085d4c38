extension String {
    /// The bytes as a String when they are valid UTF-8, nil otherwise. Uses the standard
    /// library's `String(validating:as:)` where the OS has it (macOS 15, iOS 18, Linux), and
    /// a decode-and-compare on older Apple systems.
    package init?<Bytes: Collection>(validUTF8 bytes: Bytes) where Bytes.Element == UInt8 {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
            self = text
        } else {
            guard let text = String(decodingValidUTF8: bytes) else { return nil }
            self = text
        }
    }

    /// The fallback: decoding replaces each invalid sequence with U+FFFD, so the bytes were
    /// valid exactly when the decoded text encodes back to them.
    package init?<Bytes: Collection>(decodingValidUTF8 bytes: Bytes) where Bytes.Element == UInt8 {
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.utf8.elementsEqual(bytes) else { return nil }
        self = text
    }
}

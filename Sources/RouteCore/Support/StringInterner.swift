/// Strings numbered in the order they first appear: each kept once, found again by its
/// number. The matcher's build interns constant segments (so sorting compares integers) and
/// parameter names (so a name repeated across routes is stored once).
///
/// Strings are told apart by their UTF-8 bytes, as the matcher compares a request's bytes:
/// `café` written precomposed and decomposed are two constants (a `[String: _]` took them as
/// one, so the second route's bytes were never an edge of the trie and it could not match).
/// The table is open-addressed over a byte arena and hashed with `Hasher` (seeded per
/// process, so a script cannot choose colliding constants). It costs what the dictionary did:
/// a 10k-route matcher build 59.6 M instructions before, 59.6 M after (callgrind,
/// `LunaBench reloads-edit 10000 1`).
struct StringInterner {
    /// The strings by number.
    private(set) var strings: [String] = []
    /// Every string's bytes, one after another; `ends[n]` is where string `n` ends.
    private var bytes: [UInt8] = []
    private var ends: [Int] = []
    private var hashes: [Int] = []
    /// Number + 1 by slot (0: empty); the capacity is a power of two, at most half full.
    private var slots: [Int32] = Array(repeating: 0, count: 16)

    /// The number of `string`, given to it when it is new.
    mutating func number(of string: String) -> Int32 {
        var contiguous = string
        return contiguous.withUTF8 { number(of: $0, string) }
    }

    private mutating func number(of key: UnsafeBufferPointer<UInt8>, _ string: String) -> Int32 {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(key))
        let hash = hasher.finalize()
        let mask = slots.count - 1
        var slot = hash & mask
        while slots[slot] != 0 {
            let number = Int(slots[slot] - 1)
            if hashes[number] == hash, equal(number, key) { return Int32(number) }
            slot = (slot + 1) & mask
        }
        let number = strings.count
        strings.append(string)
        bytes.append(contentsOf: key)
        ends.append(bytes.count)
        hashes.append(hash)
        slots[slot] = Int32(number + 1)
        if strings.count * 2 > slots.count { grow() }
        return Int32(number)
    }

    /// Whether string `number`'s bytes are `key`.
    private func equal(_ number: Int, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = number == 0 ? 0 : ends[number - 1]
        guard ends[number] - start == key.count else { return false }
        return bytes.withUnsafeBufferPointer { stored in
            Pattern.sameBytes(UnsafeBufferPointer(rebasing: stored[start..<ends[number]]), key)
        }
    }

    private mutating func grow() {
        slots = Array(repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for number in hashes.indices {
            var slot = hashes[number] & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(number + 1)
        }
    }
}

import Foundation

/// Looks for plaintext where only ciphertext may be: every file under a folder is searched
/// for any 64-byte slice of the plaintext, at any alignment.
///
/// The plaintext is cut into consecutive 64-byte slices; each file is scanned with a rolling
/// hash over every 64-byte window, and windows whose hash matches a slice are compared byte
/// for byte. Any stretch of at least 127 plaintext bytes copied into a file, at any offset,
/// contains a whole slice and is found. Use random-looking plaintext: slices of one repeated
/// byte (zeros, say) are skipped, since they also occur by chance in any file (SQLite's
/// empty pages).
public enum PlaintextScan {
    public static let sliceLength = 64

    /// One place where plaintext was found.
    public struct Finding: CustomStringConvertible, Equatable {
        /// The file, relative to the scanned folder.
        public var file: String
        /// Byte offset in the file.
        public var fileOffset: Int
        /// Byte offset of the matching slice in the plaintext.
        public var plaintextOffset: Int
        public init(file: String, fileOffset: Int, plaintextOffset: Int) {
            self.file = file
            self.fileOffset = fileOffset
            self.plaintextOffset = plaintextOffset
        }

        public var description: String { "\(file) at byte \(fileOffset) (plaintext byte \(plaintextOffset))" }
    }

    /// Descriptions of the files under `folder` (recursively) holding a slice of `plaintext`,
    /// one line per file with the first offset found; empty when there is none.
    public static func find(slicesOf plaintext: Data, under folder: URL) throws -> [String] {
        try findings(slicesOf: plaintext, under: folder).map(\.description)
    }

    /// The first finding in each file under `folder` that holds a slice of `plaintext`.
    public static func findings(slicesOf plaintext: Data, under folder: URL) throws -> [Finding] {
        let slices = SliceIndex(plaintext)
        guard !slices.isEmpty else { return [] }
        let root = folder.resolvingSymlinksInPath().standardizedFileURL
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else {
            return []
        }
        var findings: [Finding] = []
        for case let url as URL in enumerator {
            guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
            let contents = try Data(contentsOf: url, options: .alwaysMapped)
            if let (fileOffset, plaintextOffset) = slices.firstMatch(in: contents) {
                let relative = String(url.resolvingSymlinksInPath().standardizedFileURL.path.dropFirst(root.path.count))
                    .trimmingCharacters(in: CharacterSet(charactersIn: "/"))
                findings.append(Finding(file: relative, fileOffset: fileOffset, plaintextOffset: plaintextOffset))
            }
        }
        return findings.sorted { $0.file < $1.file }
    }
}

/// The plaintext's slices by rolling hash.
private struct SliceIndex {
    private static let base: UInt64 = 0x100000001b3
    /// base^64 (wrapping): the weight of the byte that leaves the window.
    private static let outgoingWeight: UInt64 = {
        var weight: UInt64 = 1
        for _ in 0 ..< PlaintextScan.sliceLength { weight = weight &* base }
        return weight
    }()

    private let plaintext: [UInt8]
    private var offsetsByHash: [UInt64: [Int]] = [:]
    /// A 2^20-bit prefilter on the hash's low bits: most windows miss it and never reach the
    /// dictionary, which keeps an unoptimised test build scanning at tens of MB/s.
    private var filter = [UInt64](repeating: 0, count: 1 << 14)

    var isEmpty: Bool { offsetsByHash.isEmpty }

    init(_ plaintext: Data) {
        self.plaintext = [UInt8](plaintext)
        let length = PlaintextScan.sliceLength
        var offset = 0
        while offset + length <= self.plaintext.count {
            let slice = self.plaintext[offset ..< offset + length]
            if slice.contains(where: { $0 != slice.first }) {
                let hash = Self.hash(slice)
                offsetsByHash[hash, default: []].append(offset)
                filter[Int(hash & 0xfffff) >> 6] |= 1 << (hash & 63)
            }
            offset += length
        }
    }

    private static func hash(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 &* base &+ UInt64($1) }
    }

    /// The first window of `contents` equal to a slice: (offset in contents, offset in plaintext).
    func firstMatch(in contents: Data) -> (Int, Int)? {
        let length = PlaintextScan.sliceLength
        guard contents.count >= length else { return nil }
        return contents.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> (Int, Int)? in
            let bytes = raw.bindMemory(to: UInt8.self)
            var hash: UInt64 = 0
            for i in 0 ..< length { hash = hash &* Self.base &+ UInt64(bytes[i]) }
            var start = 0
            while true {
                if filter[Int(hash & 0xfffff) >> 6] & (1 << (hash & 63)) != 0, let candidates = offsetsByHash[hash] {
                    for candidate in candidates where plaintext.withUnsafeBytes({
                        memcmp($0.baseAddress! + candidate, raw.baseAddress! + start, length) == 0
                    }) {
                        return (start, candidate)
                    }
                }
                guard start + length < bytes.count else { return nil }
                hash = hash &* Self.base &+ UInt64(bytes[start + length]) &- UInt64(bytes[start]) &* Self.outgoingWeight
                start += 1
            }
        }
    }
}

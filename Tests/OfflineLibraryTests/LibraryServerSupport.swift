import Foundation
import OfflineLibrary
import TestMedia
import XCTest
#if canImport(Glibc)
import Glibc
#endif

// What the LibraryServer tests share: media implementations (a plain file read with pread,
// bytes in memory, synthesized bytes, a failing one), curl and a raw socket client, and the
// process's resident memory and descriptors.

// MARK: Media

/// A plain file, read with pread: what the encrypted copies look like to the server, minus
/// the decryption.
final class PlainMedia: RandomAccessMedia {
    let size: Int64
    private let fd: Int32

    init(path: String) throws {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ServerTestFailure("cannot open \(path): \(String(cString: strerror(errno)))") }
        var info = stat()
        fstat(fd, &info)
        size = Int64(info.st_size)
    }

    deinit { close(fd) }

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let count = pread(fd, buffer.baseAddress, buffer.count, off_t(offset))
            if count >= 0 { return count }
            if errno != EINTR { throw ServerTestFailure("pread: \(String(cString: strerror(errno)))") }
        }
    }
}

/// Bytes in memory (a playlist, a key).
struct BytesMedia: RandomAccessMedia {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    init(_ text: String) { bytes = Array(text.utf8) }
    var size: Int64 { Int64(bytes.count) }

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard offset < size else { return 0 }
        let count = min(buffer.count, bytes.count - Int(offset))
        bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[Int(offset)..<Int(offset) + count])) }
        return count
    }
}

/// `size` bytes synthesized from a fixed pseudo-random pattern of a prime length, so any
/// byte's value is known (`byte(at:)`) without a file: a 1 GiB body costs nothing to make.
struct SyntheticMedia: RandomAccessMedia {
    let size: Int64
    static let period = 1_048_573  // prime: a range's bytes depend on where it starts
    static let pattern: [UInt8] = {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<period).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }()

    static func byte(at offset: Int64) -> UInt8 { pattern[Int(offset % Int64(period))] }

    static func bytes(_ range: ClosedRange<Int64>) -> [UInt8] { range.map(byte(at:)) }

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard offset < size else { return 0 }
        let count = Int(min(Int64(buffer.count), size - offset))
        var done = 0
        Self.pattern.withUnsafeBytes { pattern in
            while done < count {
                let start = Int((offset + Int64(done)) % Int64(Self.period))
                let run = min(count - done, Self.period - start)
                (buffer.baseAddress! + done).copyMemory(from: pattern.baseAddress! + start, byteCount: run)
                done += run
            }
        }
        return count
    }
}

/// Another media that fails every read at or past `failingAt`.
struct FailingMedia: RandomAccessMedia {
    let inner: any RandomAccessMedia
    let failingAt: Int64
    var size: Int64 { inner.size }

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard offset < failingAt else { throw ServerTestFailure("checksum mismatch at \(offset)") }
        let count = Int(min(Int64(buffer.count), failingAt - offset))
        return try inner.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<count]))
    }
}

/// Another media that records where each request started reading: a read that does not
/// follow on from the one before is a new request (a Range, or a seek).
final class RecordingMedia: RandomAccessMedia, @unchecked Sendable {
    let inner: any RandomAccessMedia
    private let lock = NSLock()
    private var next: Int64 = -1
    private var starts: [Int64] = []
    init(_ inner: any RandomAccessMedia) { self.inner = inner }
    var size: Int64 { inner.size }

    var requestStarts: [Int64] { lock.withLock { starts } }

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = try inner.read(at: offset, into: buffer)
        lock.withLock {
            if offset != next { starts.append(offset) }
            next = offset + Int64(count)
        }
        return count
    }
}

struct ServerTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

// MARK: Files

/// A folder of its own under the temporary directory.
func serverTestFolder(_ prefix: String) -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

/// `megabytes` MiB from /dev/urandom, written to `path`.
func writeRandomFile(_ path: String, megabytes: Int) throws {
    guard let random = FileHandle(forReadingAtPath: "/dev/urandom") else { throw ServerTestFailure("no /dev/urandom") }
    defer { try? random.close() }
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    let out = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    defer { try? out.close() }
    for _ in 0..<megabytes {
        try out.write(contentsOf: try random.read(upToCount: 1 << 20) ?? Data())
    }
}

// MARK: curl

/// One curl transfer: the status, headers (names lowercased) and timings it reported.
struct CurlResult {
    var status: Int
    var headers: [String: String]
    var sizeDownloaded: Int64
    /// Seconds from the start to the first body byte, and to the end.
    var firstByte: Double
    var total: Double
    var exitCode: Int32
    var stderr: String
    /// Bytes per second, as curl measured it.
    var speed: Double
}

/// Runs curl on `url`, writing the body to `output` (or /dev/null), with extra arguments
/// (`-I` for HEAD, `-H "Range: …"`).
func curl(_ url: String, _ arguments: [String] = [], output: String = "/dev/null", timeout: Double = 120) throws -> CurlResult {
    let headerFile = FileManager.default.temporaryDirectory.appendingPathComponent("curl-headers-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: headerFile) }
    let format = "%{http_code} %{size_download} %{time_starttransfer} %{time_total} %{speed_download}"
    let run = try runProcess("curl", ["-s", "-S", "-o", output, "-D", headerFile, "-w", format] + arguments + [url],
                             timeout: timeout)
    let fields = run.stdout.split(separator: " ").map(String.init)
    guard fields.count == 5 else { throw ServerTestFailure("curl printed \(run.stdout); stderr: \(run.stderr)") }
    var headers: [String: String] = [:]
    let text = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
    for line in text.split(whereSeparator: \.isNewline) {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return CurlResult(status: Int(fields[0]) ?? 0, headers: headers, sizeDownloaded: Int64(fields[1]) ?? -1,
                      firstByte: Double(fields[2]) ?? -1, total: Double(fields[3]) ?? -1,
                      exitCode: run.status, stderr: run.stderr, speed: Double(fields[4]) ?? 0)
}

// MARK: A raw client

/// A plain TCP connection to 127.0.0.1, for what curl cannot do: leave in the middle of a body.
final class RawConnection {
    private let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, connected == 0 else {
            if fd >= 0 { close(fd) }
            throw ServerTestFailure("cannot connect to 127.0.0.1:\(port)")
        }
    }

    deinit { close(fd) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return }
            sent += count
        }
    }

    /// Reads until `count` bytes came (head included) or the connection ends; what came.
    func receive(atLeast count: Int) -> Int {
        var total = 0
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while total < count {
            let read = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if read < 0, errno == EINTR { continue }
            guard read > 0 else { break }
            total += read
        }
        return total
    }
}

/// The port of "http://127.0.0.1:PORT".
func port(of baseURL: String) -> Int { Int(baseURL.split(separator: ":").last!)! }

// MARK: The process

/// VmRSS of this process, in bytes.
func residentBytes() -> Int64 {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let kilobytes = line.dropFirst("VmRSS:".count).trimmingCharacters(in: .whitespaces).split(separator: " ").first
        return (kilobytes.flatMap { Int64($0) } ?? 0) * 1024
    }
    return 0
}

/// Descriptors this process has open.
func openDescriptors() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}

/// Polls `condition` every 20 ms until it holds or `seconds` pass; whether it held.
func pollUntil(within seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(20_000)
    }
    return condition()
}

func megabytesPerSecond(_ bytesPerSecond: Double) -> String { String(format: "%.0f MB/s", bytesPerSecond / 1_000_000) }

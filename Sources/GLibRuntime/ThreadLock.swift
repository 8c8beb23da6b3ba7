#if canImport(Glibc)
import Glibc
#endif

/// A plain pthread mutex, in place of Foundation's `NSLock`: the daemon links only
/// FoundationEssentials, which has none. Not `Mutex` from Synchronization on purpose: that
/// one is futex-based and invisible to ThreadSanitizer, which sees pthread mutexes.
public final class ThreadLock: @unchecked Sendable {
    // Heap-allocated: a pthread mutex must not move, and a stored property may.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }

    public func unlock() { pthread_mutex_unlock(mutex) }

    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}

import Glibc

/// Bytes written to a TCP socket that the peer has not yet taken (SIOCOUTQ). libsoup queues
/// outgoing WebSocket frames and SSE chunks without limit and says nothing of how many; the
/// kernel's queue is the honest measure of a slow client, so the event fan-out holds events
/// in its own bounded queue while this is high.
func unsentBytes(fd: Int32) -> Int {
    guard fd >= 0 else { return 0 }
    var pending: Int32 = 0
    let SIOCOUTQ: UInt = 0x5411  // linux/sockios.h: same value as TIOCOUTQ
    return ioctl(fd, SIOCOUTQ, &pending) == 0 ? Int(pending) : 0
}

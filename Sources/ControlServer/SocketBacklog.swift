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

/// True when the peer has closed its side: the socket reads as end-of-file. Peeks only, so
/// a pipelined request waiting in the buffer is left for libsoup.
func peerHasClosed(fd: Int32) -> Bool {
    guard fd >= 0 else { return false }
    var byte: UInt8 = 0
    let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
}

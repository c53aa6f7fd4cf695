#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Thin wrappers over the POSIX calls the server makes. Nothing here knows about HTTP.
enum Socket {
    /// Opens a non-blocking listening socket on `host:port`. A host of `::` accepts IPv4 too
    /// (dual stack); `0.0.0.0` accepts IPv4 only. Port 0 picks a free port.
    static func listen(host: String, port: UInt16, backlog: Int32) throws -> (fd: Int32, address: SocketAddress) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var result: UnsafeMutablePointer<addrinfo>?
        let lookup = getaddrinfo(host.isEmpty ? nil : host, String(port), &hints, &result)
        guard lookup == 0, let first = result else {
            throw SocketError("resolve \(host)", code: lookup == EAI_SYSTEM ? errno : EINVAL)
        }
        defer { freeaddrinfo(result) }

        var lastError = SocketError("listen \(host):\(port)", code: EADDRNOTAVAIL)
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            candidate = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                lastError = SocketError("socket")
                continue
            }
            var on: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
            if info.pointee.ai_family == AF_INET6 {
                var off: Int32 = 0
                setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &off, socklen_t(MemoryLayout<Int32>.size))
            }
            guard bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
                lastError = SocketError("bind \(host):\(port)")
                close(fd)
                continue
            }
            guard Glibc.listen(fd, backlog) == 0 else {
                lastError = SocketError("listen \(host):\(port)")
                close(fd)
                continue
            }
            guard let bound = localAddress(fd) else {
                lastError = SocketError("getsockname")
                close(fd)
                continue
            }
            return (fd, bound)
        }
        throw lastError
    }

    static func localAddress(_ fd: Int32) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return ok == 0 ? SocketAddress(storage: storage) : nil
    }

    enum AcceptResult {
        case accepted(fd: Int32, peer: SocketAddress?)
        case wouldBlock
        case failed(SocketError)
    }

    static func accept(_ listener: Int32) -> AcceptResult {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        while true {
            let fd = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.accept(listener, $0, &length)
                }
            }
            if fd >= 0 {
                // Glibc's module map does not export accept4, so the flags are set afterwards.
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                var on: Int32 = 1
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
                return .accepted(fd: fd, peer: SocketAddress(storage: storage))
            }
            switch errno {
            case EINTR: continue
            // The peer gave up between SYN and accept: nothing to do, try the next one.
            case ECONNABORTED, EPROTO: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .failed(SocketError("accept"))
            }
        }
    }

    enum IOResult {
        case bytes(Int)
        case endOfFile
        case wouldBlock
        case failed(Int32)
    }

    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        while true {
            let count = recv(fd, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .bytes(count) }
            if count == 0 { return .endOfFile }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .failed(errno)
            }
        }
    }

    static func send(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> IOResult {
        while true {
            // MSG_NOSIGNAL: a peer that has gone away yields EPIPE here instead of killing the process.
            let count = Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
            if count >= 0 { return .bytes(count) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .failed(errno)
            }
        }
    }

    static func shutdownWrite(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// Raises the soft open-file limit to the hard one, so `maxConnections` is not capped by a
    /// default of 1024 descriptors.
    static func raiseOpenFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}

import CRemindSys

#if canImport(Glibc)
    import Glibc
#endif

/// The few POSIX file operations the store needs, with errors that name the path.
///
/// Plain syscalls rather than FileManager: durability depends on exactly which `fsync` runs
/// on which descriptor, and FileManager promises none.
enum FileIO {
    static func makeDirectories(_ path: String, mode: mode_t = 0o750) throws(StoreError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, mode) != 0 && errno != EEXIST {
                throw .io("mkdir", current)
            }
        }
    }

    static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o640) throws(StoreError) -> Int32 {
        let fd = Glibc.open(path, flags | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .io("open", path) }
        return fd
    }

    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(StoreError) {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw .io("write", path)
            }
            offset += written
        }
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(StoreError) {
        let result: Result<Void, StoreError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(StoreError) in try writeAll(fd, buffer, path: path) }
        }
        try result.get()
    }

    static func fsyncDirectory(_ path: String) throws(StoreError) {
        let fd = try open(path, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw .io("fsync", path) }
    }

    /// Replaces `path` with `bytes` so that a crash leaves the old or the new file, never a
    /// torn one: write a temp file, optionally fsync it, rename it over.
    ///
    /// With `durable: false` the caller makes it durable later (one `syncfs` for many files);
    /// until then a crash may tear it, which is why only files the write-ahead log can rebuild
    /// are written that way.
    static func replaceFile(
        _ path: String, with bytes: [UInt8], temporaryPath: String, durable: Bool
    ) throws(StoreError) {
        let fd = try open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC)
        let written: Result<Void, StoreError> = Result { () throws(StoreError) in
            try writeAll(fd, bytes, path: temporaryPath)
            if durable && fsync(fd) != 0 { throw StoreError.io("fsync", temporaryPath) }
        }
        close(fd)
        if case .failure(let error) = written {
            unlink(temporaryPath)
            throw error
        }
        guard rename(temporaryPath, path) == 0 else {
            let code = errno
            unlink(temporaryPath)
            throw .io("rename", path, errno: code)
        }
    }

    /// The whole file, or nil when it does not exist.
    ///
    /// Opened without updating the access time (a user file is read after each checkpoint
    /// rewrote it, and the atime update was an inode write per read: 2 % of the cooperative
    /// pool's time under `make bench` W1b), and read into a buffer of the size `fstat` gives
    /// rather than through a zeroed 64 KiB chunk per file.
    static func read(_ path: String) throws(StoreError) -> [UInt8]? {
        let fd = remindsys_open_read_noatime(path)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw .io("open", path)
        }
        defer { close(fd) }
        var info = stat()
        // One byte more than the size, to see the end in the same read.
        var capacity = (fstat(fd, &info) == 0 ? max(0, Int(info.st_size)) : 0) + 1
        var result: [UInt8] = []
        while true {
            var failed: Int32 = 0
            let start = result.count
            result.append(contentsOf: repeatElement(0, count: capacity))
            let filled = result.withUnsafeMutableBytes { buffer -> Int in
                var filled = 0
                while filled < capacity {
                    let count = Glibc.read(fd, buffer.baseAddress! + start + filled, capacity - filled)
                    if count < 0 {
                        if errno == EINTR { continue }
                        failed = errno
                        return filled
                    }
                    if count == 0 { break }
                    filled += count
                }
                return filled
            }
            result.removeLast(capacity - filled)
            if failed != 0 { throw .io("read", path, errno: failed) }
            // Short of the buffer: the end. Full: the file grew meanwhile; read on.
            if filled < capacity { return result }
            capacity = 64 * 1024
        }
    }

    /// Up to `count` bytes from `offset` (fewer at the end), or nil when the file does not exist.
    static func read(_ path: String, from offset: Int, count: Int) throws(StoreError) -> [UInt8]? {
        let fd = remindsys_open_read_noatime(path)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw .io("open", path)
        }
        defer { close(fd) }
        var result = [UInt8](repeating: 0, count: count)
        var filled = 0
        var failed: Int32 = 0
        result.withUnsafeMutableBytes { buffer in
            while filled < count {
                let read = pread(fd, buffer.baseAddress! + filled, count - filled, off_t(offset + filled))
                if read < 0 {
                    if errno == EINTR { continue }
                    failed = errno
                    return
                }
                if read == 0 { return }
                filled += read
            }
        }
        if failed != 0 { throw .io("read", path, errno: failed) }
        result.removeLast(count - filled)
        return result
    }

    /// Names in a directory, without `.` and `..`; empty when it does not exist.
    static func list(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// Flushes every dirty page of the file system holding `path`: one call makes many
    /// files written without fsync durable together.
    static func syncFileSystem(_ path: String) throws(StoreError) {
        let fd = try open(path, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        guard remindsys_syncfs(fd) == 0 else { throw .io("syncfs", path) }
    }
}

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
    static func read(_ path: String) throws(StoreError) -> [UInt8]? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw .io("open", path)
        }
        defer { close(fd) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .io("read", path)
            }
            if count == 0 { return result }
            result.append(contentsOf: chunk[0..<count])
        }
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

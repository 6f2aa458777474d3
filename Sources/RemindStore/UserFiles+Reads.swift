import NIOPosix
import RemindCore

extension UserFiles {
    /// Reads users' files off the actor that asks.
    ///
    /// Up to 32 files are read on the calling task: a file in the page cache takes
    /// microseconds, less than a hop to another thread. More are spread over the I/O pool in
    /// parallel jobs: a file not in the page cache costs a disk round trip, and the cooperative
    /// pool has one thread per core, whereas 16 pool threads keep the disk busy (`make bench`
    /// W2 ran at about 1,200 events/s while a million due users' files were read cold two at a
    /// time).
    func read(_ userIDs: [UserID], on io: NIOThreadPool) async throws(StoreError) -> [ReadResult] {
        guard userIDs.count > 32 else {
            return try userIDs.map { userID throws(StoreError) in try read(userID) }
        }
        let jobs = min(io.numberOfThreads, userIDs.count / 32)
        let files = self
        let parts = await withTaskGroup(of: (Int, Result<[ReadResult], StoreError>).self) { group in
            for job in 0..<jobs {
                group.addTask {
                    do throws(StoreError) {
                        let read = try await io.runBlocking { () throws(StoreError) in
                            try stride(from: job, to: userIDs.count, by: jobs).map { index throws(StoreError) in
                                try files.read(userIDs[index])
                            }
                        }
                        return (job, .success(read))
                    } catch {
                        return (job, .failure(error))
                    }
                }
            }
            var parts = [Result<[ReadResult], StoreError>?](repeating: nil, count: jobs)
            for await (job, result) in group { parts[job] = result }
            return parts
        }
        // Job j read indexes j, j + jobs, j + 2·jobs, …: put them back in order.
        var results = [ReadResult?](repeating: nil, count: userIDs.count)
        for (job, part) in parts.enumerated() {
            for (offset, result) in try part!.get().enumerated() { results[job + offset * jobs] = result }
        }
        return results.map { $0! }
    }
}

extension NIOThreadPool {
    /// Runs blocking file work on the pool and returns its result; throws `StoreError` only.
    func runBlocking<T: Sendable>(_ body: @escaping @Sendable () throws(StoreError) -> T) async throws(StoreError) -> T
    {
        do {
            return try await runIfActive { try body() }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.poolStopped
        }
    }
}

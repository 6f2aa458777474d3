/// Episodes summed along the funnel (docs/outcomes.md "The funnel"): how many reached each step
/// in order, and among those asked, the resolution of those who accepted an ask against those
/// who never did. Merges exactly, like `OutcomeAggregate`: what a store keeps per day.
public struct FunnelAggregate: Sendable, Equatable {
    /// The steps, in order.
    public static let steps = ["episodes", "reminded", "opened", "asked", "shown", "accepted", "resolved"]

    /// Episodes that reached each step of `steps` and every step before it.
    public private(set) var reached = [Int](repeating: 0, count: steps.count)
    /// Episodes with an accepted ask, and those of them resolved.
    public private(set) var accepted = 0
    public private(set) var acceptedResolved = 0
    /// Episodes asked that never accepted, and those of them resolved.
    public private(set) var notAccepted = 0
    public private(set) var notAcceptedResolved = 0
    /// Every episode resolved, whatever steps it reached (the funnel's last step counts only
    /// those that reached every step): what `byOpening` shows.
    public private(set) var resolved = 0
    /// Per channel (`ReminderChannel.allCases` order), episodes with a sent reminder through
    /// it and those of them resolved (docs/fallback.md): what `byChannel` shows.
    public private(set) var channelEpisodes = [Int](repeating: 0, count: ReminderChannel.allCases.count)
    public private(set) var channelResolved = [Int](repeating: 0, count: ReminderChannel.allCases.count)

    public init() {}

    /// Made again from its stored parts (`reached`, the four counts, `resolved`, then each
    /// channel's episodes and resolved); nil when they cannot be one sum's. A sum stored before
    /// channels were counted has no channel's part and counts none.
    public init?(stored: [Int]) {
        let base = Self.steps.count + 5
        guard stored.count == base || stored.count == base + 2 * ReminderChannel.allCases.count,
            stored.allSatisfy({ $0 >= 0 }),
            (1..<Self.steps.count).allSatisfy({ stored[$0] <= stored[$0 - 1] })
        else { return nil }
        reached = Array(stored.prefix(Self.steps.count))
        (accepted, acceptedResolved, notAccepted, notAcceptedResolved) = (
            stored[Self.steps.count], stored[Self.steps.count + 1], stored[Self.steps.count + 2],
            stored[Self.steps.count + 3]
        )
        resolved = stored[Self.steps.count + 4]
        guard resolved <= reached[0], reached[Self.steps.count - 1] <= resolved else { return nil }
        if stored.count > base {
            for channel in channelEpisodes.indices {
                (channelEpisodes[channel], channelResolved[channel]) = (
                    stored[base + 2 * channel], stored[base + 2 * channel + 1]
                )
                guard channelResolved[channel] <= channelEpisodes[channel], channelEpisodes[channel] <= reached[0]
                else { return nil }
            }
        }
    }

    /// `reached`, the four counts, `resolved` and each channel's pair: what a store keeps.
    public var stored: [Int] {
        var stored = reached + [accepted, acceptedResolved, notAccepted, notAcceptedResolved, resolved]
        for channel in channelEpisodes.indices { stored += [channelEpisodes[channel], channelResolved[channel]] }
        return stored
    }

    public var episodes: Int { reached[0] }

    public mutating func add(_ marks: FunnelMarks, resolved: Bool) {
        let depth = marks.depth(resolved: resolved)
        for step in 0...depth { reached[step] += 1 }
        if resolved { self.resolved += 1 }
        if marks.contains(.accepted) {
            accepted += 1
            if resolved { acceptedResolved += 1 }
        } else if marks.contains(.asked) {
            notAccepted += 1
            if resolved { notAcceptedResolved += 1 }
        }
        // Reminded with no channel marked: marks kept before channels were (an outcome line, a
        // snapshot row, a database column), when every reminder took push. The one place
        // that says so.
        let marks =
            marks.isDisjoint(with: [.pushed, .fellBack]) && marks.contains(.reminded) ? marks.union(.pushed) : marks
        for (index, channel) in ReminderChannel.allCases.enumerated()
        where marks.contains(FunnelMarks(channel: channel)) {
            channelEpisodes[index] += 1
            if resolved { channelResolved[index] += 1 }
        }
    }

    public mutating func merge(_ other: FunnelAggregate) {
        for step in reached.indices { reached[step] += other.reached[step] }
        accepted += other.accepted
        acceptedResolved += other.acceptedResolved
        notAccepted += other.notAccepted
        notAcceptedResolved += other.notAcceptedResolved
        resolved += other.resolved
        for channel in channelEpisodes.indices {
            channelEpisodes[channel] += other.channelEpisodes[channel]
            channelResolved[channel] += other.channelResolved[channel]
        }
    }
}

extension FunnelAggregate {
    /// One day's funnel of one group, reason, platform and opening, as a store keeps it.
    public struct Keyed: Sendable, Equatable {
        public var group: String
        public var reason: PermissionErrorType?
        public var platform: ReportedPlatform?
        public var opening: Episode.Opening?
        public var sum: FunnelAggregate

        public init(
            group: String, reason: PermissionErrorType?, platform: ReportedPlatform?, opening: Episode.Opening? = nil,
            sum: FunnelAggregate
        ) {
            self.group = group
            self.reason = reason
            self.platform = platform
            self.opening = opening
            self.sum = sum
        }
    }
}

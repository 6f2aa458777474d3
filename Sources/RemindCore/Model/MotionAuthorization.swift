/// The app's Motion & Fitness authorization (iOS `CMAuthorizationStatus`; on Android the
/// Activity Recognition permission). `unknown` is never reported by a device: it stands for
/// "no report has said", which is not an error but does not satisfy a service's `motion`.
public enum MotionAuthorization: String, Sendable, CaseIterable, Codable {
    case unknown, notDetermined, restricted, denied, authorized

    /// The values a report may carry.
    public static let reportable: [MotionAuthorization] = [.notDetermined, .restricted, .denied, .authorized]

    /// Error 5 (`motionNotAuthorized`): the user or a policy refused it. `notDetermined` is not
    /// an error yet, as the app has not asked.
    public var isMissing: Bool {
        self == .restricted || self == .denied
    }
}

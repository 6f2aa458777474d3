import NIOCore
import PostgresNIO

/// A `bigint[]` column read straight from PostgreSQL's binary array format. PostgresNIO's
/// `[Int]` decodes each element through generic code that looks up type metadata every time:
/// in a profile of `/v1/stats` over a million episodes' day sums (~66,000 bucket numbers) it
/// and the retains around it were most of remindd's CPU, ~22 ms a request; read here, ~11 ms.
struct BigintArray: PostgresDecodable, Sendable {
    var values: [Int]

    init<JSONDecoder: PostgresJSONDecoder>(
        from buffer: inout ByteBuffer, type: PostgresDataType, format: PostgresFormat,
        context: PostgresDecodingContext<JSONDecoder>
    ) throws {
        // Dimensions, a has-nulls flag and the element type; then each dimension's length and
        // lower bound; then each element as its length and its bytes.
        guard format == .binary, type == .int8Array,
            let dimensions = buffer.readInteger(as: Int32.self), (0...1).contains(dimensions),
            buffer.readInteger(as: Int32.self) != nil,
            buffer.readInteger(as: UInt32.self) == PostgresDataType.int8.rawValue
        else { throw PostgresDecodingError.Code.typeMismatch }
        guard dimensions == 1 else {
            values = []
            return
        }
        guard let count = buffer.readInteger(as: Int32.self), count >= 0, buffer.readInteger(as: Int32.self) != nil
        else { throw PostgresDecodingError.Code.failure }
        var values: [Int] = []
        values.reserveCapacity(Int(count))
        for _ in 0..<count {
            // A null element has length -1: not in these columns.
            guard buffer.readInteger(as: Int32.self) == 8, let value = buffer.readInteger(as: Int64.self) else {
                throw PostgresDecodingError.Code.failure
            }
            values.append(Int(value))
        }
        self.values = values
    }
}

/// Rows in aligned columns, two spaces apart, for people to read.
///
/// Widths are measured on the plain text and colour is applied after padding, so escape
/// sequences never push a column out of line.
struct Table {
    var header: [String]?
    var rows: [[String]] = []
    /// Columns aligned right (counts).
    var rightAligned: Set<Int> = []

    init(header: [String]? = nil, rightAligned: Set<Int> = []) {
        self.header = header
        self.rightAligned = rightAligned
    }

    mutating func append(_ row: [String]) {
        rows.append(row)
    }

    /// The lines of the table; `style` may colour a cell (row index, column, padded text).
    func lines(
        _ terminal: Terminal, style: (Int, Int, String) -> String = { _, _, text in text }
    ) -> [String] {
        let all = (header.map { [$0] } ?? []) + rows
        let columns = all.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for row in all {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        func render(_ row: [String], styled: (Int, String) -> String) -> String {
            var parts: [String] = []
            for (column, cell) in row.enumerated() {
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                let isLast = column == row.count - 1
                let padded =
                    rightAligned.contains(column) ? padding + cell : (isLast ? cell : cell + padding)
                parts.append(styled(column, padded))
            }
            return parts.joined(separator: "  ")
        }
        var lines: [String] = []
        if let header {
            lines.append(render(header) { _, text in terminal.style(text, .bold) })
        }
        for (index, row) in rows.enumerated() {
            lines.append(render(row) { column, text in style(index, column, text) })
        }
        return lines
    }

    func print(_ terminal: Terminal, style: (Int, Int, String) -> String = { _, _, text in text }) {
        for line in lines(terminal, style: style) { terminal.line(line) }
    }
}

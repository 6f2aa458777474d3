// Resolution rates as horizontal SVG bars with their 95 % interval as a whisker.

import { percent, s } from './dom.js';

const width = 960;
const labelWidth = 150;
const valueWidth = 190;
const rowHeight = 34;
const barHeight = 16;
const plot = width - labelWidth - valueWidth;

/** One row per group: bar to the rate, whisker over the interval, the numbers as text. */
export function rateChart(groups) {
    return barChart('Resolution rate by group', groups.map((g) => ({
        label: g.group, rate: g.resolutionRate, interval: g.resolutionRateCI95, note: '',
    })));
}

/**
 * One row per funnel step after the first: a bar to the step's rate of the step before,
 * whisker over its interval, the count and the rate as text.
 */
export function funnelChart(name, funnel, steps) {
    return barChart(`Funnel of ${name}`, steps.slice(1).map((step) => ({
        label: step, rate: funnel[step]?.rate, interval: funnel[step]?.rateCI95, note: `${funnel[step]?.count ?? 0} · `,
    })), 'chart funnel-chart');
}

/** Horizontal bars of rates (0 to 1) with their intervals, one per row. */
function barChart(title, rows, className = 'chart') {
    const height = rows.length * rowHeight + 24;
    const x = (rate) => labelWidth + Math.max(0, Math.min(1, rate)) * plot;
    const interval = (row) => (Array.isArray(row.interval) && row.interval.length === 2 ? row.interval : null);
    const text = (row) => `${percent(row.rate)}${interval(row) ? ` [${ci({ resolutionRateCI95: row.interval })}]` : ''}`;
    const summary = rows.map((row) => `${row.label}: ${row.note}${text(row)}`).join('; ');
    const svg = s('svg', {
        class: className,
        viewBox: `0 0 ${width} ${height}`,
        width,
        height,
        role: 'img',
        'aria-label': `${title}. ${summary}`,
    });
    for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
        svg.append(
            s('line', { class: 'grid', x1: x(tick), x2: x(tick), y1: 0, y2: height - 18 }),
            s('text', { class: 'tick', x: x(tick), y: height - 4, 'text-anchor': 'middle', text: `${tick * 100}%` }),
        );
    }
    rows.forEach((row, index) => {
        const top = index * rowHeight + 6;
        const middle = top + barHeight / 2;
        svg.append(s('text', { class: 'label', x: labelWidth - 8, y: middle + 4, 'text-anchor': 'end', text: row.label }));
        const rate = row.rate;
        if (typeof rate === 'number') {
            svg.append(s('rect', { class: 'bar', x: labelWidth, y: top, width: Math.max(1, x(rate) - labelWidth), height: barHeight, rx: 2 }));
        }
        if (interval(row)) {
            const [low, high] = interval(row);
            svg.append(
                s('line', { class: 'whisker', x1: x(low), x2: x(high), y1: middle, y2: middle }),
                s('line', { class: 'whisker', x1: x(low), x2: x(low), y1: middle - 6, y2: middle + 6 }),
                s('line', { class: 'whisker', x1: x(high), x2: x(high), y1: middle - 6, y2: middle + 6 }),
            );
        }
        svg.append(s('text', { class: 'value', x: labelWidth + plot + 10, y: middle + 4, text: `${row.note}${text(row)}` }));
    });
    return svg;
}

/** The interval as text, e.g. 47.0–53.0%, or '' without one. */
export function ci(group) {
    const interval = group.resolutionRateCI95;
    if (!Array.isArray(interval) || interval.length !== 2) return '';
    return `${(interval[0] * 100).toFixed(1)}–${percent(interval[1])}`;
}

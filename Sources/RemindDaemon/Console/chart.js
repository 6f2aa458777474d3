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
    const height = groups.length * rowHeight + 24;
    const x = (rate) => labelWidth + Math.max(0, Math.min(1, rate)) * plot;
    const summary = groups
        .map((g) => `${g.group}: ${percent(g.resolutionRate)}${ci(g) ? ` (95 % interval ${ci(g)})` : ''}`)
        .join('; ');
    const svg = s('svg', {
        class: 'chart',
        viewBox: `0 0 ${width} ${height}`,
        width,
        height,
        role: 'img',
        'aria-label': `Resolution rate by group. ${summary}`,
    });
    for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
        svg.append(
            s('line', { class: 'grid', x1: x(tick), x2: x(tick), y1: 0, y2: height - 18 }),
            s('text', { class: 'tick', x: x(tick), y: height - 4, 'text-anchor': 'middle', text: `${tick * 100}%` }),
        );
    }
    groups.forEach((group, index) => {
        const top = index * rowHeight + 6;
        const middle = top + barHeight / 2;
        svg.append(s('text', { class: 'label', x: labelWidth - 8, y: middle + 4, 'text-anchor': 'end', text: group.group }));
        const rate = group.resolutionRate;
        if (typeof rate === 'number') {
            svg.append(s('rect', { class: 'bar', x: labelWidth, y: top, width: Math.max(1, x(rate) - labelWidth), height: barHeight, rx: 2 }));
        }
        const interval = group.resolutionRateCI95;
        if (Array.isArray(interval) && interval.length === 2) {
            const [low, high] = interval;
            svg.append(
                s('line', { class: 'whisker', x1: x(low), x2: x(high), y1: middle, y2: middle }),
                s('line', { class: 'whisker', x1: x(low), x2: x(low), y1: middle - 6, y2: middle + 6 }),
                s('line', { class: 'whisker', x1: x(high), x2: x(high), y1: middle - 6, y2: middle + 6 }),
            );
        }
        svg.append(
            s('text', { class: 'value', x: labelWidth + plot + 10, y: middle + 4, text: `${percent(rate)}${ci(group) ? ` [${ci(group)}]` : ''}` }),
        );
    });
    return svg;
}

/** The interval as text, e.g. 47.0–53.0%, or '' without one. */
export function ci(group) {
    const interval = group.resolutionRateCI95;
    if (!Array.isArray(interval) || interval.length !== 2) return '';
    return `${(interval[0] * 100).toFixed(1)}–${percent(interval[1])}`;
}

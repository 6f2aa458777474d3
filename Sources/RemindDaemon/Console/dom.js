// Building the page without innerHTML: every text goes through textContent.

const svgNS = 'http://www.w3.org/2000/svg';

/**
 * An element: attrs may hold `text`, `class`, `on<event>` functions and plain attributes
 * (false and null leave an attribute out); children are nodes, strings or nested arrays.
 */
export function h(tag, attrs = {}, ...children) {
    return fill(document.createElement(tag), attrs, children);
}

/** An SVG element, same conventions as h(). */
export function s(tag, attrs = {}, ...children) {
    return fill(document.createElementNS(svgNS, tag), attrs, children);
}

function fill(element, attrs, children) {
    for (const [name, value] of Object.entries(attrs)) {
        if (value === false || value === null || value === undefined) continue;
        if (name === 'text') element.textContent = String(value);
        else if (name.startsWith('on') && typeof value === 'function') {
            element.addEventListener(name.slice(2), value);
        } else if (name === 'style') {
            throw new Error('inline styles are not allowed');
        } else element.setAttribute(name, value === true ? '' : String(value));
    }
    append(element, children);
    return element;
}

function append(element, children) {
    for (const child of children) {
        if (child === null || child === undefined || child === false) continue;
        if (Array.isArray(child)) append(element, child);
        else element.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
}

export const dash = '—';

/** A count as the API gives it, so a test can compare it exactly. */
export function count(n) {
    return n === null || n === undefined ? dash : String(n);
}

/** A timestamp as the API gives it. */
export function date(iso) {
    return iso === null || iso === undefined || iso === '' ? dash : String(iso);
}

/** A rate in [0, 1] as a percentage with one decimal. */
export function percent(rate) {
    return typeof rate === 'number' && Number.isFinite(rate) ? `${(rate * 100).toFixed(1)}%` : dash;
}

/** A difference of rates in percentage points, with its sign. */
export function points(delta) {
    if (typeof delta !== 'number' || !Number.isFinite(delta)) return dash;
    const text = (delta * 100).toFixed(1);
    return `${delta > 0 ? '+' : ''}${text} pp`;
}

/** Seconds as a short duration: 45 s, 12 min, 3 h 5 min, 2 d 4 h. */
export function duration(seconds) {
    if (typeof seconds !== 'number' || !Number.isFinite(seconds)) return dash;
    const total = Math.round(seconds);
    if (total < 60) return `${total} s`;
    const minutes = Math.floor(total / 60);
    if (minutes < 60) return `${minutes} min`;
    const hours = Math.floor(minutes / 60);
    if (hours < 24) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
    const days = Math.floor(hours / 24);
    return hours % 24 ? `${days} d ${hours % 24} h` : `${days} d`;
}

export function yesNo(value) {
    if (value === true) return 'yes';
    if (value === false) return 'no';
    return dash;
}

/** A figure a test can find: `data-field` is the API path, the text its formatted value. */
export function field(path, text, value) {
    return h('span', {
        class: 'figure',
        'data-field': path,
        'data-value': value === undefined || value === null ? null : String(value),
        text,
    });
}

/** A definition list from [term, description] pairs. */
export function pairs(rows) {
    return h('dl', { class: 'pairs' }, rows.map(([term, value]) => [h('dt', { text: term }), h('dd', {}, value)]));
}

/** A table: headers as strings, rows as arrays of cells (nodes or strings). */
export function table(caption, headers, rows, numeric = []) {
    return h(
        'table',
        {},
        caption ? h('caption', { text: caption }) : null,
        h('thead', {}, h('tr', {}, headers.map((title, i) => h('th', { scope: 'col', class: numeric.includes(i) ? 'num' : null, text: title })))),
        h('tbody', {}, rows.map((cells) => h('tr', {}, cells.map((cell, i) => h('td', { class: numeric.includes(i) ? 'num' : null }, cell))))),
    );
}

/** A visible error box, or null for an aborted call. */
export function problem(error) {
    if (error && error.status === -1) return null;
    const title = error && error.title ? error.title : 'Something went wrong';
    const detail = error && error.title ? error.detail : String(error);
    return h('div', { class: 'alert', role: 'alert' }, h('strong', { text: title }), detail ? ` ${detail}` : '');
}

// One user: look up an ID, then its status, explanation and history.

import { api, userPath } from './api.js';
import { h, problem } from './dom.js';
import { forgetControl } from './forget.js';
import { explanationView, historyView, statusView } from './user-view.js';

export function renderUser({ root, param, identity, signal }) {
    const id = param.trim();
    const input = h('input', { id: 'user-id', name: 'userID', type: 'text', value: id, autocomplete: 'off', spellcheck: 'false', required: true, maxlength: 128 });
    const form = h('form', { class: 'inline', role: 'search' },
        h('label', { for: 'user-id', text: 'User ID' }), input, h('button', { type: 'submit', text: 'Look up' }));
    form.addEventListener('submit', (event) => {
        event.preventDefault();
        const wanted = input.value.trim();
        if (wanted) location.hash = `#/users/${encodeURIComponent(wanted)}`;
    });
    const body = h('div', { class: 'user' });
    root.append(h('h1', { id: 'page-title', text: id ? `User ${id}` : 'Users' }), form, body);
    if (!id) {
        body.append(h('p', { class: 'muted', text: 'Enter a user ID to see its status, why a reminder is or is not due, and its history.' }));
        return;
    }
    body.append(h('p', { class: 'muted', text: 'Loading…' }));
    load(id, body, identity, signal);
}

async function load(id, body, identity, signal) {
    let status;
    try {
        status = await api(userPath(id), { signal });
    } catch (error) {
        if (error.status === 404) {
            body.replaceChildren(h('p', { class: 'alert', role: 'alert', 'data-field': 'notFound', text: `No such user: ${id}` }));
            return;
        }
        const box = problem(error);
        if (box && error.status !== 401) body.replaceChildren(box);
        return;
    }
    const [explanation, history] = await Promise.all([
        api(userPath(id, '/explain'), { signal }).catch((error) => error),
        api(userPath(id, '/history?limit=50'), { signal }).catch((error) => error),
    ]);
    if (signal.aborted) return;
    const parts = [statusView(status)];
    parts.push(h('h2', { text: 'Why a reminder is or is not due' }));
    parts.push(explanation instanceof Error ? problem(explanation) : explanationView(explanation));
    parts.push(h('h2', { text: 'History' }));
    parts.push(history instanceof Error ? problem(history) : historyView(history));
    if (identity.scope === 'admin') {
        parts.push(forgetControl(id, signal, (message) => body.replaceChildren(message)));
    }
    body.replaceChildren(...parts);
}

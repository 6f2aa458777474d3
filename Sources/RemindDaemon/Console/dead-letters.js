// Events no sink could deliver, with a way to send them again (admin only).

import { api } from './api.js';
import { count, date, h, problem, table } from './dom.js';

export function renderDeadLetters({ root, identity, signal }) {
    const admin = identity.scope === 'admin';
    const message = h('p', { class: 'note', role: 'status', hidden: true });
    const alert = h('div', {});
    const body = h('div', {}, h('p', { class: 'muted', text: 'Loading…' }));
    root.append(h('h1', { id: 'page-title', text: 'Dead letters' }), message, alert, body);

    async function replay(ids, button) {
        alert.replaceChildren();
        button.disabled = true;
        try {
            const answer = await api('/v1/dead-letters/replay', { method: 'POST', body: ids ? { ids } : {}, signal });
            const n = answer && typeof answer.replayed === 'number' ? answer.replayed : 0;
            message.replaceChildren('Done: replayed ', h('span', { 'data-field': 'replayed', text: count(n) }),
                n === 1 ? ' dead letter.' : ' dead letters.');
            message.hidden = false;
        } catch (error) {
            const box = problem(error);
            if (box && error.status !== 401) alert.replaceChildren(box);
        } finally {
            button.disabled = false;
        }
        await load();
    }

    async function load() {
        try {
            const answer = await api('/v1/dead-letters', { signal });
            const letters = Array.isArray(answer.deadLetters) ? answer.deadLetters : [];
            const headers = ['Event', 'Sink', 'Attempts', 'Last error', 'Dead-lettered at'];
            if (admin) headers.push('Action');
            const replayAll = admin && letters.length
                ? h('button', { type: 'button', class: 'replay-all', text: 'Replay all', onclick: (e) => replay(null, e.currentTarget) })
                : null;
            body.replaceChildren(
                h('div', { class: 'toolbar' },
                    h('p', {}, h('span', { 'data-field': 'deadLetters.length', text: count(letters.length) }),
                        letters.length === 1 ? ' dead letter.' : ' dead letters.'),
                    replayAll),
                letters.length
                    ? table(null, headers, letters.map((letter) => {
                        const cells = [
                            h('code', { text: letter.id }),
                            letter.sink,
                            count(letter.attempts),
                            h('span', { class: 'error-text', text: letter.lastError ?? '' }),
                            h('time', { datetime: letter.deadLetteredAt, text: date(letter.deadLetteredAt) }),
                        ];
                        if (admin) {
                            cells.push(h('button', {
                                type: 'button',
                                class: 'replay secondary',
                                'aria-label': `Replay ${letter.id}`,
                                text: 'Replay',
                                onclick: (e) => replay([letter.id], e.currentTarget),
                            }));
                        }
                        return cells;
                    }), [2])
                    : h('p', { text: 'Every event was delivered or is still being tried.' }),
            );
        } catch (error) {
            const box = problem(error);
            if (box && error.status !== 401) body.replaceChildren(box);
        }
    }
    load();
}

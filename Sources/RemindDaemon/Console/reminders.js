// Pending reminders, soonest first, optionally only those due before an instant.

import { api } from './api.js';
import { count, date, h, problem, table } from './dom.js';

const limit = 100;
let dueBefore = '';

export function renderReminders({ root, signal }) {
    const input = h('input', { id: 'due-before', name: 'dueBefore', type: 'datetime-local', value: dueBefore });
    const body = h('div', {}, h('p', { class: 'muted', text: 'Loading…' }));
    const form = h('form', { class: 'inline' },
        h('label', { for: 'due-before', text: 'Due before (your local time)' }), input,
        h('button', { type: 'submit', text: 'Filter' }),
        h('button', { type: 'button', class: 'secondary', text: 'Clear', onclick: () => { input.value = ''; submit(); } }));
    root.append(h('h1', { id: 'page-title', text: 'Pending reminders' }), form, body);

    async function load() {
        const query = new URLSearchParams({ limit: String(limit) });
        if (dueBefore) {
            const instant = new Date(dueBefore);
            if (Number.isNaN(instant.getTime())) {
                body.replaceChildren(h('p', { class: 'alert', role: 'alert', text: 'That date is not valid.' }));
                return;
            }
            query.set('dueBefore', instant.toISOString());
        }
        try {
            const answer = await api(`/v1/reminders?${query}`, { signal });
            const reminders = Array.isArray(answer.reminders) ? answer.reminders : [];
            body.replaceChildren(
                h('p', { class: 'muted' }, h('span', { 'data-field': 'reminders.length', text: count(reminders.length) }),
                    reminders.length === limit ? ` reminders shown (the first ${limit})` : ' pending reminders',
                    dueBefore ? ` due before ${query.get('dueBefore')}` : '', '.'),
                reminders.length
                    ? table(null, ['User', 'Due at', 'Sequence', 'Reason'], reminders.map((r) => [
                        h('a', { href: `#/users/${encodeURIComponent(r.userID)}`, text: r.userID }),
                        h('time', { datetime: r.dueAt, text: date(r.dueAt) }),
                        count(r.sequence),
                        h('code', { text: r.reason }),
                    ]), [2])
                    : h('p', { text: 'Nothing is due.' }),
            );
        } catch (error) {
            const box = problem(error);
            if (box && error.status !== 401) body.replaceChildren(box);
        }
    }
    function submit() {
        dueBefore = input.value;
        load();
    }
    form.addEventListener('submit', (event) => {
        event.preventDefault();
        submit();
    });
    load();
}

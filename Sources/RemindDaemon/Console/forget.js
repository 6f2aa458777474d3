// Forgetting a user: only after its ID is typed again.

import { api, userPath } from './api.js';
import { h, problem } from './dom.js';

/** The Forget button and its confirmation; `done` receives the message that replaces the page. */
export function forgetControl(id, signal, done) {
    const input = h('input', { id: 'forget-confirm', type: 'text', autocomplete: 'off', spellcheck: 'false' });
    const confirm = h('button', { type: 'submit', class: 'danger', disabled: true, text: 'Forget this user' });
    const alert = h('div', {});
    const form = h('form', { class: 'confirm', hidden: true },
        h('label', { for: 'forget-confirm' }, 'Type ', h('code', { text: id }), ' to confirm'),
        input, confirm,
        h('button', { type: 'button', class: 'secondary', text: 'Cancel', onclick: () => { form.hidden = true; open.hidden = false; open.focus(); } }),
        alert);
    const open = h('button', { type: 'button', class: 'danger forget', text: 'Forget…' });
    open.addEventListener('click', () => {
        open.hidden = true;
        form.hidden = false;
        input.value = '';
        confirm.disabled = true;
        input.focus();
    });
    input.addEventListener('input', () => {
        confirm.disabled = input.value !== id;
    });
    form.addEventListener('submit', async (event) => {
        event.preventDefault();
        if (input.value !== id) return;
        confirm.disabled = true;
        try {
            await api(userPath(id), { method: 'DELETE', signal });
            done(h('p', { class: 'note', role: 'status', 'data-field': 'forgotten', text: `User ${id} was forgotten.` }));
        } catch (error) {
            const box = problem(error);
            if (box && error.status !== 401) alert.replaceChildren(box);
            confirm.disabled = input.value !== id;
        }
    });
    return h('section', { class: 'forget-box', 'aria-labelledby': 'forget-title' },
        h('h2', { id: 'forget-title', text: 'Forget' }),
        h('p', { class: 'muted', text: 'Removes the user\u2019s file and schedule. This cannot be undone.' }),
        open, form);
}

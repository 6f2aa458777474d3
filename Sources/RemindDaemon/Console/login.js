// The token form: shown when the API answers 401.

import { storeToken } from './api.js';
import { h } from './dom.js';

/** Renders the form into `main`; `onToken` runs once a token was stored. */
export function renderLogin(main, { error = '', message = '', onToken }) {
    const input = h('input', {
        id: 'token',
        name: 'token',
        type: 'password',
        autocomplete: 'off',
        spellcheck: 'false',
        required: true,
    });
    const alert = h('p', { class: 'alert', role: 'alert', id: 'login-error', hidden: !error, text: error });
    const form = h(
        'form',
        { class: 'login', 'aria-describedby': 'login-help' },
        h('h1', { id: 'page-title', text: 'Sign in to remindd' }),
        message ? h('p', { class: 'note', role: 'status', text: message }) : null,
        h('p', { id: 'login-help', class: 'muted', text: 'Paste an access token from the daemon\u2019s tokens file. It is kept in this tab only.' }),
        alert,
        h('label', { for: 'token', text: 'Access token' }),
        input,
        h('button', { type: 'submit', text: 'Sign in' }),
    );
    form.addEventListener('submit', (event) => {
        event.preventDefault();
        const token = input.value.trim();
        if (!token) {
            alert.textContent = 'Enter a token.';
            alert.hidden = false;
            input.focus();
            return;
        }
        storeToken(token);
        onToken();
    });
    main.replaceChildren(form);
    document.title = 'Sign in · remindd';
    input.focus();
}

// The console's shell: who is signed in, the navigation, and which page the hash shows.

import { api, forgetToken, onUnauthorized, storedToken } from './api.js';
import { h } from './dom.js';
import { renderLogin } from './login.js';
import { renderOverview } from './overview.js';
import { renderOutcomes } from './outcomes.js';
import { renderReminders } from './reminders.js';
import { renderDeadLetters } from './dead-letters.js';
import { renderUser } from './user.js';
import { renderConfig } from './config.js';

const pages = [
    { key: 'overview', title: 'Overview', render: renderOverview },
    { key: 'outcomes', title: 'Outcomes', render: renderOutcomes },
    { key: 'reminders', title: 'Reminders', render: renderReminders },
    { key: 'dead-letters', title: 'Dead letters', render: renderDeadLetters },
    { key: 'users', title: 'Users', render: renderUser },
    { key: 'config', title: 'Configuration', render: renderConfig },
];

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const who = document.getElementById('who');

let identity = null;
let current = null; // { controller, cleanup }

/** Parses `#/page/rest…`; an unknown page is the overview. */
function route() {
    const hash = location.hash.replace(/^#\/?/, '');
    const slash = hash.indexOf('/');
    const key = slash < 0 ? hash : hash.slice(0, slash);
    let rest = slash < 0 ? '' : hash.slice(slash + 1);
    try {
        rest = decodeURIComponent(rest);
    } catch {
        // A malformed escape: show it as typed.
    }
    const page = pages.find((p) => p.key === key) ?? pages[0];
    return { page, rest };
}

function stopPage() {
    if (!current) return;
    current.controller.abort();
    try {
        current.cleanup?.();
    } catch {
        // A page that cannot clean up must not stop the next one.
    }
    current = null;
}

function showPage(moveFocus) {
    stopPage();
    if (!identity) return;
    const { page, rest } = route();
    for (const link of nav.querySelectorAll('a')) {
        if (link.dataset.page === page.key) link.setAttribute('aria-current', 'page');
        else link.removeAttribute('aria-current');
    }
    document.title = `${page.title} · remindd`;
    const section = h('section', { class: 'page', 'aria-labelledby': 'page-title' });
    main.replaceChildren(section);
    const controller = new AbortController();
    current = { controller, cleanup: null };
    const context = { root: section, param: rest, identity, signal: controller.signal };
    try {
        const result = page.render(context);
        if (typeof result === 'function') current.cleanup = result;
    } catch (error) {
        section.append(h('p', { class: 'alert', role: 'alert', text: String(error) }));
    }
    if (moveFocus) main.focus({ preventScroll: true });
}

function showNav() {
    nav.replaceChildren(
        h('ul', {}, pages.map((p) => h('li', {}, h('a', { href: `#/${p.key}`, 'data-page': p.key, text: p.title })))),
    );
    const signOut = h('button', { type: 'button', class: 'secondary', text: 'Sign out', onclick: signOutNow });
    who.replaceChildren(
        h('span', {}, 'signed in as ', h('strong', { 'data-field': 'whoami.name', text: identity.name }), ` (`,
            h('span', { 'data-field': 'whoami.scope', text: identity.scope }), ')'),
        storedToken() ? signOut : h('span', { class: 'muted', text: ` via ${identity.transport}` }),
    );
    nav.hidden = false;
    who.hidden = false;
}

function hideShell() {
    nav.hidden = true;
    who.hidden = true;
    nav.replaceChildren();
    who.replaceChildren();
}

function signOutNow() {
    forgetToken();
    identity = null;
    stopPage();
    hideShell();
    renderLogin(main, { message: 'Signed out.', onToken: start });
}

/** Asks who the credentials are; a 401 lands in the handler below. */
async function start() {
    try {
        identity = await api('/v1/whoami');
    } catch (error) {
        if (error.status === 401) return;
        main.replaceChildren(
            h('h1', { id: 'page-title', text: 'remindd console' }),
            h('p', { class: 'alert', role: 'alert', text: `Cannot reach the daemon. ${error.message}` }),
        );
        return;
    }
    showNav();
    showPage(false);
}

onUnauthorized(() => {
    const refused = storedToken() !== null || identity !== null;
    // Several calls may be refused at once: the first one shows the form, the others leave it be.
    if (!refused && document.getElementById('token')) return;
    forgetToken();
    identity = null;
    stopPage();
    hideShell();
    renderLogin(main, {
        error: refused ? 'The daemon did not accept that token. Sign in with a valid one.' : '',
        onToken: start,
    });
});

window.addEventListener('hashchange', () => showPage(true));
start();

// The effective configuration, as the daemon reports it (secrets never included).

import { api } from './api.js';
import { h, problem } from './dom.js';

export function renderConfig({ root, signal }) {
    const body = h('div', {}, h('p', { class: 'muted', text: 'Loading…' }));
    root.append(h('h1', { id: 'page-title', text: 'Configuration' }),
        h('p', { class: 'muted', text: 'Every default filled in. Secret values never appear; the files that hold them do.' }),
        body);
    api('/v1/config', { signal }).then(
        (config) => body.replaceChildren(h('pre', { class: 'config', tabindex: 0, text: JSON.stringify(config, null, 2) })),
        (error) => {
            const box = problem(error);
            if (box && error.status !== 401) body.replaceChildren(box);
        },
    );
}

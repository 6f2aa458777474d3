// The daemon's status, refreshed every 5 seconds.

import { api } from './api.js';
import { count, date, field, h, problem, table } from './dom.js';

const refreshMilliseconds = 5000;

const figures = [
    ['users', 'Users', count],
    ['openEpisodes', 'Open episodes', count],
    ['pendingReminders', 'Pending reminders', count],
    ['nextReminderAt', 'Next reminder', date],
    ['delivered', 'Delivered', count],
    ['suppressed', 'Suppressed', count],
    ['failed', 'Failed attempts', count],
    ['deadLetters', 'Dead letters', count],
    ['quarantined', 'Quarantined files', count],
];

export function renderOverview({ root, signal }) {
    const body = h('div', { class: 'overview' }, h('p', { class: 'muted', text: 'Loading…' }));
    const updated = h('p', { class: 'muted updated', role: 'status' });
    root.append(h('h1', { id: 'page-title', text: 'Overview' }), updated, body);

    let timer = null;
    async function refresh() {
        // A hidden tab asks nothing; it catches up at the first refresh once shown again.
        if (document.hidden) {
            timer = setTimeout(refresh, refreshMilliseconds);
            return;
        }
        try {
            const status = await api('/v1/status', { signal });
            body.replaceChildren(...view(status));
            updated.textContent = `Updated ${new Date().toLocaleTimeString()} · refreshes every 5 s`;
        } catch (error) {
            const box = problem(error);
            if (!box) return;
            if (error.status === 401) return;
            updated.replaceChildren(box);
        }
        if (!signal.aborted) timer = setTimeout(refresh, refreshMilliseconds);
    }
    refresh();
    return () => clearTimeout(timer);
}

function view(status) {
    const cards = h(
        'ul',
        { class: 'cards' },
        figures.map(([key, label, format]) =>
            h('li', { class: key === 'deadLetters' && status[key] > 0 ? 'card warn' : 'card' },
                h('span', { class: 'label', text: label }), field(key, format(status[key])))),
    );
    const sinks = Array.isArray(status.sinks) ? status.sinks : [];
    const sinkTable = table(
        null,
        ['Name', 'Type', 'Delivered', 'Failed', 'Pending'],
        sinks.map((sink) => [
            sink.name,
            sink.type,
            field(`sinks.${sink.name}.delivered`, count(sink.delivered)),
            field(`sinks.${sink.name}.failed`, count(sink.failed)),
            field(`sinks.${sink.name}.pending`, count(sink.pending)),
        ]),
        [2, 3, 4],
    );
    const parts = [cards, h('h2', { text: 'Sinks' }), sinks.length ? sinkTable : h('p', { text: 'No sinks configured.' })];
    const services = status.services && typeof status.services === 'object' ? Object.entries(status.services) : [];
    if (services.length) {
        parts.push(
            h('h2', { text: 'Services' }),
            table(
                null,
                ['Service', 'Active', 'Degraded', 'Permission missing'],
                services.map(([name, counts]) => [
                    name,
                    field(`services.${name}.active`, count(counts.active)),
                    field(`services.${name}.degraded`, count(counts.degraded)),
                    field(`services.${name}.permissionMissing`, count(counts.permissionMissing)),
                ]),
                [1, 2, 3],
            ),
        );
    }
    parts.push(
        h('p', { class: 'muted' }, 'remindd ', field('version', status.version ?? '—'), ', started ',
            field('startedAt', date(status.startedAt))),
    );
    return parts;
}

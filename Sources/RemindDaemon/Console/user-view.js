// How a user's status, explanation and history read on the page.

import { count, date, field, h, pairs, table, yesNo } from './dom.js';

export function statusView(status) {
    const p = status.permissions ?? {};
    const episode = status.episode;
    const errors = Array.isArray(status.errors) ? status.errors : [];
    const rows = [
        ['Always access', field('alwaysAccess', yesNo(status.alwaysAccess))],
        ['Errors', errors.length ? h('ul', { class: 'plain', 'data-field': 'errors' }, errors.map((e) => h('li', {}, h('code', { text: e })))) : field('errors', 'none')],
        ['Location', field('permissions.location', p.location ?? '—')],
        ['Accuracy', field('permissions.accuracy', p.accuracy ?? '—')],
        ['Location Services', field('permissions.locationServices', yesNo(p.locationServices))],
        ['Notifications', field('permissions.notifications', p.notifications ?? '—')],
        ['Motion', field('permissions.motion', p.motion ?? '—')],
        ['Time zone', field('permissions.timeZone', p.timeZone ?? '—')],
        ['Observed at', field('permissions.observedAt', date(p.observedAt))],
        ['Open episode', episode
            ? h('span', {}, 'since ', field('episode.startedAt', date(episode.startedAt)), ': ',
                field('episode.remindersDelivered', count(episode.remindersDelivered)), ' delivered, ',
                field('episode.remindersSuppressed', count(episode.remindersSuppressed)), ' suppressed, ',
                field('episode.remindersHeldOut', count(episode.remindersHeldOut)), ' held out',
                episode.opening ? h('span', {}, ' (', field('episode.opening', episode.opening), ')') : '')
            : field('episode', 'none')],
        ['In the app', episode
            ? h('span', {}, field('episode.opened', count(episode.opened)), ' reminders opened, ',
                field('episode.asks', count(episode.asks)), ' asks given, ',
                field('episode.asksShown', count(episode.asksShown)), ' shown, ',
                field('episode.asksAccepted', count(episode.asksAccepted)), ' accepted')
            : '—'],
        ['Next reminder', field('nextReminderAt', date(status.nextReminderAt))],
        ['Last reminder', field('lastReminderAt', date(status.lastReminderAt))],
        ['Experiment group', field('group', status.group ?? '—')],
        ['Reports', field('reportCount', count(status.reportCount))],
        ['Last report', field('lastReportAt', date(status.lastReportAt))],
        ['Platform', field('platform', status.platform ?? '—')],
        ['App version', field('appVersion', status.appVersion ?? '—')],
        ['Locale', field('locale', status.locale ?? '—')],
    ];
    const services = status.services && typeof status.services === 'object' ? Object.entries(status.services) : [];
    return h('div', { class: 'columns' },
        h('section', { 'aria-labelledby': 'status-title' }, h('h2', { id: 'status-title', text: 'Status' }), pairs(rows)),
        h('section', { 'aria-labelledby': 'device-title' },
            h('h2', { id: 'device-title', text: 'Push' }), pushView(status.push),
            h('h2', { text: 'Services' }),
            services.length
                ? table(null, ['Service', 'State', 'Missing'], services.map(([name, s]) => [
                    name,
                    field(`services.${name}.state`, s.state ?? '—'),
                    Array.isArray(s.missing) && s.missing.length ? s.missing.join(', ') : '—',
                ]))
                : h('p', { class: 'muted', text: 'No services configured.' })));
}

function pushView(push) {
    if (!push) return h('p', { class: 'muted', 'data-field': 'push', text: 'No push address reported.' });
    return pairs([
        ['Service', field('push.service', push.service ?? '—')],
        ['Environment', field('push.environment', push.environment ?? '—')],
        ['Token ends in', field('push.tokenSuffix', push.tokenSuffix ?? '—')],
        ['Reachable', field('push.reachable', yesNo(push.reachable))],
        ['Unreachable because', field('push.unreachableReason', push.unreachableReason ?? '—')],
        ['Unreachable since', field('push.unreachableSince', date(push.unreachableSince))],
    ]);
}

export function explanationView(explanation) {
    const reasons = Array.isArray(explanation.reasons) ? explanation.reasons : [];
    return h('div', {},
        h('p', {}, 'Next reminder: ', field('explain.nextReminderAt', date(explanation.nextReminderAt))),
        h('ol', { class: 'reasons' }, reasons.map((reason, index) =>
            h('li', { 'data-code': reason.code },
                h('code', { class: 'code', text: reason.code }), ' ',
                h('span', { class: 'reason-text', 'data-field': `reasons.${index}.text`, text: reason.text })))));
}

const engagementWords = {
    asked: 'ask given', reminderOpened: 'reminder opened', askShown: 'ask shown', askAccepted: 'ask accepted',
    askDismissed: 'ask dismissed',
};

/** The changes and, among them by time, the asks given and what the app reported. */
export function historyView(history) {
    const entries = Array.isArray(history.entries) ? history.entries : [];
    const engagement = Array.isArray(history.engagement) ? history.engagement : [];
    if (!entries.length && !engagement.length) return h('p', { class: 'muted', text: 'No history.' });
    const items = [
        ...entries.map((entry) => ({ at: entry.observedAt, view: () => stateItem(entry) })),
        ...engagement.map((item, index) => ({ at: item.at, view: () => engagementItem(item, index) })),
    ].sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
    return h('ol', { class: 'timeline', reversed: true }, items.map((item) => item.view()));
}

function engagementItem(item, index) {
    return h('li', { class: 'engagement', 'data-engagement': item.type },
        h('time', { datetime: item.at, text: date(item.at) }),
        h('p', {}, field(`engagement.${index}.type`, engagementWords[item.type] ?? item.type, item.type), ' ',
            h('code', { class: 'muted', text: item.id })));
}

function stateItem(entry) {
    {
        const p = entry.permissions ?? {};
        const errors = Array.isArray(entry.errors) ? entry.errors : [];
        return h('li', {},
            h('time', { datetime: entry.observedAt, text: date(entry.observedAt) }),
            h('span', { class: 'muted', text: ` received ${date(entry.receivedAt)}` }),
            h('p', {}, `location ${p.location ?? '—'}, accuracy ${p.accuracy ?? '—'}, location services ${yesNo(p.locationServices)}, `
                + `notifications ${p.notifications ?? '—'}, motion ${p.motion ?? '—'}${p.timeZone ? `, ${p.timeZone}` : ''}`),
            errors.length
                ? h('p', { class: 'errors' }, 'errors: ', errors.map((e, i) => [i ? ', ' : '', h('code', { text: e })]))
                : h('p', { class: 'ok', text: 'no errors' }));
    }
}

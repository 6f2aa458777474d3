// Did the reminders work: /v1/stats for the last 7, 30 or 90 days, per experiment group.

import { api } from './api.js';
import { ci, funnelChart, rateChart } from './chart.js';
import { count, date, duration, field, h, pairs, percent, points, problem, table } from './dom.js';

const windows = [7, 30, 90];
const dayMilliseconds = 86400 * 1000;
let chosenDays = 30;

export function renderOutcomes({ root, signal }) {
    const select = h('select', { id: 'window', name: 'window' },
        windows.map((days) => h('option', { value: days, selected: days === chosenDays, text: `Last ${days} days` })));
    const body = h('div', { class: 'outcomes' }, h('p', { class: 'muted', text: 'Loading…' }));
    root.append(
        h('h1', { id: 'page-title', text: 'Outcomes' }),
        h('form', { class: 'inline', onsubmit: (e) => e.preventDefault() }, h('label', { for: 'window', text: 'Episodes opened in' }), select),
        body,
    );
    async function load() {
        const until = new Date();
        const since = new Date(until.getTime() - chosenDays * dayMilliseconds);
        const query = new URLSearchParams({ since: since.toISOString(), until: until.toISOString() });
        body.setAttribute('aria-busy', 'true');
        try {
            const stats = await api(`/v1/stats?${query}`, { signal });
            body.replaceChildren(...view(stats));
        } catch (error) {
            const box = problem(error);
            if (box && error.status !== 401) body.replaceChildren(box);
        } finally {
            body.removeAttribute('aria-busy');
        }
    }
    select.addEventListener('change', () => {
        chosenDays = Number(select.value) || 30;
        load();
    });
    load();
}

function view(stats) {
    const groups = Array.isArray(stats.groups) ? stats.groups : [];
    const uplift = stats.upliftVsHoldout && typeof stats.upliftVsHoldout === 'object' ? stats.upliftVsHoldout : {};
    const reasons = stats.byReason && typeof stats.byReason === 'object' ? Object.entries(stats.byReason) : [];
    const parts = [
        h('p', { class: 'muted' }, 'From ', field('since', date(stats.since)), ' until ', field('until', date(stats.until)),
            '. Open episodes count as not resolved.'),
    ];
    if (!groups.length) {
        parts.push(h('p', { text: 'No episodes in this window.' }));
        return parts;
    }
    parts.push(
        h('h2', { text: 'Resolution rate by group' }),
        h('figure', { class: 'chart-box' }, rateChart(groups),
            h('figcaption', { class: 'muted', text: 'Bars: resolved / episodes. Whiskers: the 95 % (Wilson) interval.' })),
        h('h2', { text: 'Groups' }),
        h('div', { class: 'groups' }, groups.map((group) => groupCard(group, uplift, stats.allocation))),
        ...allocationView(stats.allocation),
        ...sendTimeView(stats),
        ...channelView(stats),
        ...funnelView(stats),
        ...keptView(stats),
        h('h2', { text: 'By reason' }),
        reasons.length
            ? table(null, ['Reason', 'Episodes', 'Resolved', 'Rate'],
                reasons.map(([reason, r]) => [
                    h('code', { text: reason }),
                    field(`byReason.${reason}.episodes`, count(r.episodes)),
                    field(`byReason.${reason}.resolved`, count(r.resolved)),
                    r.episodes ? percent(r.resolved / r.episodes) : '—',
                ]), [1, 2, 3])
            : h('p', { text: 'No reasons recorded.' }),
    );
    return parts;
}

const steps = ['episodes', 'reminded', 'opened', 'asked', 'shown', 'accepted', 'resolved'];

/** Where users are lost: a chart per group (each step's rate of the one before), the counts by
 * group, reason and platform, and the resolution after an accepted ask. */
function funnelView(stats) {
    const funnel = stats.funnel && typeof stats.funnel === 'object' ? stats.funnel : null;
    if (!funnel) return [];
    const groups = Object.entries(funnel).filter(([name]) => name !== 'byReason' && name !== 'byPlatform');
    const splits = [
        ['Group', '', groups],
        ['Reason', 'byReason.', Object.entries(funnel.byReason ?? {})],
        ['Platform', 'byPlatform.', Object.entries(funnel.byPlatform ?? {})],
    ];
    const after = stats.resolvedAfterAsk && typeof stats.resolvedAfterAsk === 'object' ? Object.entries(stats.resolvedAfterAsk) : [];
    const rate = (path, r) => [
        field(`${path}.episodes`, count(r?.episodes)), field(`${path}.resolved`, count(r?.resolved)),
        field(`${path}.rate`, r?.rate == null ? '—' : percent(r.rate), r?.rate),
        ci({ resolutionRateCI95: r?.rateCI95 }) || '—',
    ];
    return [
        h('h2', { text: 'Funnel' }),
        h('p', { class: 'muted', text: 'Each step counts the episodes that reached it and every step before it; its rate is of the step before.' }),
        ...groups.map(([name, f]) => h('figure', { class: 'chart-box', 'data-funnel': name }, funnelChart(name, f, steps),
            h('figcaption', { class: 'muted', text: `${name}: bars are each step's rate of the step before; whiskers the 95 % (Wilson) interval.` }))),
        ...splits.filter(([, , list]) => list.length).map(([title, prefix, list]) => table(null, [title, ...steps.map(capitalized)],
            list.map(([name, f]) => [h('code', { text: name }), ...steps.map((step) => {
                const path = `funnel.${prefix}${name}.${step}`;
                const cell = f?.[step] ?? {};
                return h('span', {}, field(`${path}.count`, count(cell.count)),
                    step === 'episodes' ? '' : h('span', { class: 'muted' }, ' ', field(`${path}.rate`, cell.rate == null ? '(—)' : `(${percent(cell.rate)})`, cell.rate)));
            })]), steps.map((_, i) => i + 1))),
        h('h3', { text: 'Resolved after an ask' }),
        after.length
            ? table(null, ['Group', 'Accepted', 'Resolved', 'Rate', '95 % interval', 'Asked, never accepted', 'Resolved', 'Rate', '95 % interval'],
                after.map(([name, r]) => [h('code', { text: name }),
                    ...rate(`resolvedAfterAsk.${name}.accepted`, r.accepted), ...rate(`resolvedAfterAsk.${name}.notAccepted`, r.notAccepted)]),
                [1, 2, 3, 5, 6, 7])
            : h('p', { text: 'No asks in this window.' }),
    ];
}

const horizons = ['7', '30', '90'];

/** Whether fixes last: episodes by how they opened, and the share of gains of Always still
 * held 7, 30 and 90 days on, overall and by platform. */
function keptView(stats) {
    const parts = [];
    const openings = stats.byOpening && typeof stats.byOpening === 'object' ? Object.entries(stats.byOpening) : [];
    if (openings.length) {
        parts.push(h('h2', { text: 'Always kept' }),
            h('h3', { text: 'Episodes by how they opened' }),
            resolutionTable('byOpening', 'Opening', openings, 'rate'));
    }
    const kept = stats.alwaysKept;
    if (!kept || typeof kept !== 'object') {
        parts.push(h('p', { class: 'muted', text: 'Always kept: the histories have not been read yet.' }));
        return parts;
    }
    const row = (label, path, k) => [label, ...horizons.flatMap((n) => {
        const share = k?.[n] ?? {};
        return [field(`${path}${n}.users`, count(share.users)),
            field(`${path}${n}.rate`, share.rate == null ? '—' : percent(share.rate), share.rate),
            ci({ resolutionRateCI95: share.rateCI95 }) || '—'];
    })];
    const headers = ['', ...horizons.flatMap((n) => [`Gained, ${n} d on`, 'Kept', '95 % interval'])];
    parts.push(
        h('h3', { text: 'Gains of Always still held later' }),
        h('p', { class: 'muted' }, 'Read from every history at ', field('alwaysKept.computedAt', date(kept.computedAt)), '.'),
        table(null, headers, [row('all', 'alwaysKept.', kept),
            ...Object.entries(kept.byPlatform ?? {}).map(([name, k]) => row(name, `alwaysKept.byPlatform.${name}.`, k))],
        [1, 2, 4, 5, 7, 8]));
    return parts;
}

function capitalized(text) {
    return text.charAt(0).toUpperCase() + text.slice(1);
}

function allocationView(allocation) {
    if (!allocation || typeof allocation !== 'object' || !allocation.groups) return [];
    const adaptive = allocation.type === 'adaptive';
    let note = adaptive ? 'Adaptive: weights learned from decided episodes (Thompson sampling).' : 'Fixed: the configured weights.';
    if (adaptive && allocation.computedAt) {
        note += allocation.learned ? ' Computed ' : ' Configured weights apply while every group collects its minimum of decided episodes; checked ';
    }
    return [
        h('h2', { text: 'Allocation' }),
        h('p', { class: 'muted' }, field('allocation.type', note, allocation.type),
            adaptive && allocation.computedAt ? field('allocation.computedAt', date(allocation.computedAt)) : ''),
        table(null, adaptive ? ['Group', 'Weight', 'Probability best', 'Successes', 'Failures'] : ['Group', 'Weight'],
            Object.entries(allocation.groups).map(([name, g]) => {
                const path = `allocation.groups.${name}`;
                const row = [h('code', { text: name }), field(`${path}.weight`, share(g.weight), g.weight)];
                if (adaptive) {
                    row.push(
                        field(`${path}.probabilityBest`, g.probabilityBest == null ? '—' : percent(g.probabilityBest), g.probabilityBest),
                        field(`${path}.successes`, count(g.successes)),
                        field(`${path}.failures`, count(g.failures)));
                }
                return row;
            }), adaptive ? [1, 2, 3, 4] : [1]),
    ];
}

/** A table of `{name: {episodes, resolved, <rateKey>, <rateKey>CI95}}`: the send-time arms and
 * the channels (`resolutionRate`), the openings (`rate`). */
function resolutionTable(key, heading, entries, rateKey = 'resolutionRate') {
    return table(null, [heading, 'Episodes', 'Resolved', 'Rate', '95 % interval'],
        entries.map(([name, a]) => [
            h('code', { text: name }),
            field(`${key}.${name}.episodes`, count(a.episodes)),
            field(`${key}.${name}.resolved`, count(a.resolved)),
            field(`${key}.${name}.${rateKey}`, percent(a[rateKey]), a[rateKey]),
            ci({ resolutionRateCI95: a[`${rateKey}CI95`] }) || '—',
        ]), [1, 2, 3]);
}

/** Episodes reached per channel, push or the fallback sinks, and their resolution: shown once
 * any episode got a reminder. */
function channelView(stats) {
    const channels = stats.byChannel && typeof stats.byChannel === 'object' ? Object.entries(stats.byChannel) : [];
    if (!channels.some(([, c]) => c?.episodes > 0)) return [];
    return [h('h2', { text: 'Channels' }), resolutionTable('byChannel', 'Channel', channels)];
}

function sendTimeView(stats) {
    const arms = stats.bySendTime && typeof stats.bySendTime === 'object' ? Object.entries(stats.bySendTime) : [];
    if (!arms.length) return [];
    return [
        h('h2', { text: 'Send time' }),
        resolutionTable('bySendTime', 'Sent', arms),
        h('p', {}, 'Uplift of the active hour over the due time: ',
            field('sendTimeUplift', stats.sendTimeUplift == null ? '—' : points(stats.sendTimeUplift), stats.sendTimeUplift)),
    ];
}

function groupCard(group, uplift, allocation) {
    const name = group.group;
    const path = `groups.${name}`;
    const times = group.timeToFixSeconds ?? {};
    const after = group.resolvedAfterReminders ?? {};
    const rate = h('span', {}, field(`${path}.resolutionRate`, percent(group.resolutionRate), group.resolutionRate),
        ci(group) ? h('span', { class: 'muted interval' }, '95 % interval ', field(`${path}.resolutionRateCI95`, ci(group),
            group.resolutionRateCI95.join(','))) : '');
    const rows = [
        ['Resolution rate', rate],
        ['Episodes', field(`${path}.episodes`, count(group.episodes))],
        ['Resolved', field(`${path}.resolved`, count(group.resolved))],
        ['Open', field(`${path}.open`, count(group.open))],
        ['Forgotten', field(`${path}.forgotten`, count(group.forgotten))],
        ['Uplift vs holdout', name in uplift
            ? field(`upliftVsHoldout.${name}`, points(uplift[name]), uplift[name])
            : h('span', { class: 'muted', text: name === 'holdout' ? 'reference' : '—' })],
        ['Time to fix (median)', field(`${path}.timeToFixSeconds.p50`, duration(times.p50), times.p50)],
        ['Time to fix (90 %)', field(`${path}.timeToFixSeconds.p90`, duration(times.p90), times.p90)],
    ];
    const learned = allocation?.groups?.[name];
    if (learned && !('weight' in group)) {
        rows.push(['Allocation weight', share(learned.weight)]);
        if (learned.probabilityBest != null) rows.push(['Probability best', percent(learned.probabilityBest)]);
    }
    if ('weight' in group) rows.push(['Allocation weight', field(`${path}.weight`, share(group.weight), group.weight)]);
    if ('probabilityBest' in group) {
        rows.push(['Probability best', field(`${path}.probabilityBest`, percent(group.probabilityBest), group.probabilityBest)]);
    }
    const buckets = ['0', '1', '2', '3+'];
    return h('article', { class: 'card group', 'data-group': name },
        h('h3', { text: name }),
        pairs(rows),
        table('Resolved after reminders', buckets, [buckets.map((b) => field(`${path}.resolvedAfterReminders.${b}`, count(after[b])))],
            [0, 1, 2, 3]),
    );
}

/** A weight as given when it is not a share of one, else as a percentage. */
function share(weight) {
    if (typeof weight !== 'number') return '—';
    return weight >= 0 && weight <= 1 ? percent(weight) : String(weight);
}

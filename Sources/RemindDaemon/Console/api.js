// The console's only way to the daemon: same-origin JSON calls carrying the session's token.

const tokenKey = 'remindd.token';
let memoryToken = null;

/** A failed call: the HTTP status (0 when the daemon did not answer) and the problem's words. */
export class ApiError extends Error {
    constructor(status, title, detail) {
        super(detail ? `${title}: ${detail}` : title);
        this.name = 'ApiError';
        this.status = status;
        this.title = title;
        this.detail = detail;
    }
}

let unauthorized = () => {};

/** Called on every 401, before the call's promise rejects. */
export function onUnauthorized(handler) {
    unauthorized = handler;
}

export function storedToken() {
    try {
        return sessionStorage.getItem(tokenKey) ?? memoryToken;
    } catch {
        return memoryToken;
    }
}

export function storeToken(token) {
    try {
        sessionStorage.setItem(tokenKey, token);
    } catch {
        // Storage refused (a locked-down profile): the token lives as long as this page.
        memoryToken = token;
    }
}

export function forgetToken() {
    memoryToken = null;
    try {
        sessionStorage.removeItem(tokenKey);
    } catch {
        // Nothing was stored.
    }
}

/**
 * Calls the API and answers the decoded JSON body (null for an empty one).
 * Rejects with an ApiError; an aborted call rejects with an ApiError whose status is -1.
 */
export async function api(path, { method = 'GET', body, signal } = {}) {
    const headers = { Accept: 'application/json' };
    const token = storedToken();
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let response;
    try {
        response = await fetch(path, {
            method,
            headers,
            body: body === undefined ? undefined : JSON.stringify(body),
            cache: 'no-store',
            credentials: 'omit',
            referrerPolicy: 'no-referrer',
            signal,
        });
    } catch (error) {
        if (error && error.name === 'AbortError') throw new ApiError(-1, 'Aborted', '');
        throw new ApiError(0, 'The daemon did not answer', String(error && error.message ? error.message : error));
    }
    const text = await response.text().catch(() => '');
    let data = null;
    if (text) {
        try {
            data = JSON.parse(text);
        } catch {
            data = null;
        }
    }
    if (response.status === 401) {
        unauthorized();
        throw new ApiError(401, problemTitle(data, 'Unauthorized'), problemDetail(data));
    }
    if (!response.ok) {
        throw new ApiError(response.status, problemTitle(data, `HTTP ${response.status}`), problemDetail(data));
    }
    return data;
}

function problemTitle(data, fallback) {
    return data && typeof data.title === 'string' && data.title ? data.title : fallback;
}

function problemDetail(data) {
    return data && typeof data.detail === 'string' ? data.detail : '';
}

/** Percent-encodes a user ID as one path segment. */
export function userPath(id, suffix = '') {
    return `/v1/users/${encodeURIComponent(id)}${suffix}`;
}

--
-- PostgreSQL database dump
--

\restrict JD2F0gHPFrDXbfAoOCfD3j5Cj8Hq5bzjhYlRNRsJ6jWswNG3LnPWLsp4fBomgin

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: remindd_counters; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.remindd_counters (
    name text NOT NULL,
    slot smallint NOT NULL,
    value bigint NOT NULL
);


--
-- Name: remindd_dead_letters; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.remindd_dead_letters (
    seq bigint NOT NULL,
    event_id text NOT NULL,
    sink text NOT NULL,
    record text NOT NULL
);


--
-- Name: remindd_dead_letters_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.remindd_dead_letters_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: remindd_dead_letters_seq_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.remindd_dead_letters_seq_seq OWNED BY public.remindd_dead_letters.seq;


--
-- Name: remindd_funnel_days; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.remindd_funnel_days (
    day bigint NOT NULL,
    grp text NOT NULL,
    reason text NOT NULL,
    platform text NOT NULL,
    opening text NOT NULL,
    counts bigint[] NOT NULL
);


--
-- Name: remindd_meta; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.remindd_meta (
    key text NOT NULL,
    value text NOT NULL
);


--
-- Name: remindd_outbox; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.remindd_outbox (
    seq bigint NOT NULL,
    event_id text NOT NULL,
    sink text NOT NULL,
    user_id text NOT NULL,
    event text NOT NULL,
    lease_owner text,
    lease_until timestamp with time zone
)
WITH (autovacuum_vacuum_scale_factor='0', autovacuum_vacuum_threshold='5000', autovacuum_analyze_scale_factor='0', autovacuum_analyze_threshold='5000', autovacuum_vacuum_cost_delay='0', fillfactor='50');


--
-- Name: remindd_outbox_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.remindd_outbox_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: remindd_outbox_seq_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.remindd_outbox_seq_seq OWNED BY public.remindd_outbox.seq;


--
-- Name: remindd_outcome_days; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.remindd_outcome_days (
    day bigint NOT NULL,
    grp text NOT NULL,
    reason text NOT NULL,
    episodes bigint NOT NULL,
    resolved bigint NOT NULL,
    forgotten bigint NOT NULL,
    after_reminders bigint[] NOT NULL,
    ttf_exact double precision[],
    ttf_buckets bigint[] NOT NULL,
    ttf_counts bigint[] NOT NULL,
    send_time text DEFAULT ''::text NOT NULL
);


--
-- Name: remindd_outcomes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.remindd_outcomes (
    user_id text NOT NULL,
    started_at timestamp with time zone NOT NULL,
    line text NOT NULL,
    summed boolean DEFAULT false NOT NULL
);


--
-- Name: remindd_quarantine; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.remindd_quarantine (
    user_id text NOT NULL,
    doc text NOT NULL,
    reason text NOT NULL,
    quarantined_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: remindd_schema; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.remindd_schema (
    version integer NOT NULL
);


--
-- Name: remindd_users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.remindd_users (
    user_id text NOT NULL,
    doc jsonb NOT NULL,
    wake_at timestamp with time zone,
    reminder_at timestamp with time zone,
    next_sequence integer NOT NULL,
    reason text,
    conditions smallint NOT NULL,
    episode_started_at timestamp with time zone,
    episode_group text,
    episode_reason text,
    active_hour smallint,
    platform text,
    episode_marks smallint DEFAULT 0 NOT NULL,
    episode_opening text
);


--
-- Name: remindd_dead_letters seq; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.remindd_dead_letters ALTER COLUMN seq SET DEFAULT nextval('public.remindd_dead_letters_seq_seq'::regclass);


--
-- Name: remindd_outbox seq; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.remindd_outbox ALTER COLUMN seq SET DEFAULT nextval('public.remindd_outbox_seq_seq'::regclass);


--
-- Data for Name: remindd_counters; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.remindd_counters VALUES ('users', 0, 0);
INSERT INTO public.remindd_counters VALUES ('open_episodes', 0, 0);
INSERT INTO public.remindd_counters VALUES ('active_hour:3', 5, 1);
INSERT INTO public.remindd_counters VALUES ('conditions:43', 5, 1);
INSERT INTO public.remindd_counters VALUES ('open_episodes', 5, 1);
INSERT INTO public.remindd_counters VALUES ('pending_reminders', 5, 1);
INSERT INTO public.remindd_counters VALUES ('users', 5, 1);
INSERT INTO public.remindd_counters VALUES ('active_hour:3', 11, 1);
INSERT INTO public.remindd_counters VALUES ('conditions:43', 11, 1);
INSERT INTO public.remindd_counters VALUES ('open_episodes', 11, 1);
INSERT INTO public.remindd_counters VALUES ('pending_reminders', 11, 1);
INSERT INTO public.remindd_counters VALUES ('users', 11, 1);
INSERT INTO public.remindd_counters VALUES ('active_hour:2', 10, 1);
INSERT INTO public.remindd_counters VALUES ('conditions:9', 10, 1);
INSERT INTO public.remindd_counters VALUES ('pending_reminders', 10, 1);
INSERT INTO public.remindd_counters VALUES ('users', 10, 1);
INSERT INTO public.remindd_counters VALUES ('active_hour:2', 12, 1);
INSERT INTO public.remindd_counters VALUES ('conditions:47', 12, 1);
INSERT INTO public.remindd_counters VALUES ('users', 12, 1);
INSERT INTO public.remindd_counters VALUES ('pending_reminders', 0, -1);
INSERT INTO public.remindd_counters VALUES ('pending_reminders', 13, -1);
INSERT INTO public.remindd_counters VALUES ('pending_reminders', 2, -1);
INSERT INTO public.remindd_counters VALUES ('conditions:43', 10, -1);
INSERT INTO public.remindd_counters VALUES ('conditions:47', 10, 1);
INSERT INTO public.remindd_counters VALUES ('open_episodes', 10, 0);
INSERT INTO public.remindd_counters VALUES ('active_hour:3', 15, 1);
INSERT INTO public.remindd_counters VALUES ('conditions:43', 15, 1);
INSERT INTO public.remindd_counters VALUES ('open_episodes', 15, 1);
INSERT INTO public.remindd_counters VALUES ('pending_reminders', 15, 1);
INSERT INTO public.remindd_counters VALUES ('users', 15, 1);
INSERT INTO public.remindd_counters VALUES ('conditions:11', 3, 1);
INSERT INTO public.remindd_counters VALUES ('conditions:9', 3, -1);


--
-- Data for Name: remindd_dead_letters; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.remindd_dead_letters VALUES (1, 'u-fired/1795918366/1', 'hook', '{"id":"u-fired/1795918366/1","sink":"hook","attempts":1,"lastError":"POST http://127.0.0.1:9/hook: connection reset (error set): Connection refused) (errno: 111)","deadLetteredAt":"2026-11-29T02:12:57.107Z","event":{"type":"reminder","id":"u-fired/1795918366/1","userID":"u-fired","title":"App is unable to record trips","body":"Please grant Always access for location.","reason":"locationNotAuthorizedAlways","errors":["locationNotAuthorizedAlways"],"sequence":1,"episodeStartedAt":"2026-11-29T02:12:46.099Z","dueAt":"2026-11-29T02:12:47.099Z","channel":"push","because":null,"locale":"de-DE","platform":null,"createdAt":"2026-11-29T02:12:47.099Z"}}');
INSERT INTO public.remindd_dead_letters VALUES (2, 'u-fixed/1795918366/1', 'hook', '{"id":"u-fixed/1795918366/1","sink":"hook","attempts":1,"lastError":"POST http://127.0.0.1:9/hook: connection reset (error set): Connection refused) (errno: 111)","deadLetteredAt":"2026-11-29T02:12:57.116Z","event":{"type":"reminder","id":"u-fixed/1795918366/1","userID":"u-fixed","title":"App is unable to record trips","body":"Please grant Always access for location.","reason":"locationNotAuthorizedAlways","errors":["locationNotAuthorizedAlways"],"sequence":1,"episodeStartedAt":"2026-11-29T02:12:46.105Z","dueAt":"2026-11-29T02:12:47.105Z","channel":"push","because":null,"locale":"de-DE","platform":null,"createdAt":"2026-11-29T02:12:47.108Z"}}');
INSERT INTO public.remindd_dead_letters VALUES (3, 'u-fixed/1795918366/withdraw', 'hook', '{"id":"u-fixed/1795918366/withdraw","sink":"hook","attempts":1,"lastError":"POST http://127.0.0.1:9/hook: connection reset (error set): Connection refused) (errno: 111)","deadLetteredAt":"2026-11-29T02:13:07.175Z","event":{"type":"withdraw","id":"u-fixed/1795918366/withdraw","userID":"u-fixed","reminderIDs":["u-fixed/1795918366/1"],"episodeStartedAt":"2026-11-29T02:12:46.105Z","createdAt":"2026-11-29T02:12:57.169Z"}}');


--
-- Data for Name: remindd_funnel_days; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.remindd_funnel_days VALUES (20786, 'default', 'locationNotAuthorizedAlways', '', 'first', '{1,1,0,0,0,0,0,0,0,0,0,1,1,1,0,0}');


--
-- Data for Name: remindd_meta; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.remindd_meta VALUES ('schedule_policy', 'v1|315360000|false|3|0|nil|0|nil|nil');


--
-- Data for Name: remindd_outbox; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: remindd_outcome_days; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.remindd_outcome_days VALUES (20786, 'default', 'locationNotAuthorizedAlways', 1, 1, 0, '{0,1,0,0}', '{11.063999891281128}', '{250}', '{1}', '');


--
-- Data for Name: remindd_outcomes; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.remindd_outcomes VALUES ('u-fixed', '2026-11-29 02:12:46.105+00', '{"userID":"u-fixed","group":"default","reason":"locationNotAuthorizedAlways","startedAt":"2026-11-29T02:12:46.105Z","closedAt":"2026-11-29T02:12:57.169Z","outcome":"resolved","reminders":1,"platform":null,"opening":"first","opened":0,"asks":0,"asksShown":0,"asksAccepted":0,"channels":["push"]}', true);


--
-- Data for Name: remindd_quarantine; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: remindd_schema; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.remindd_schema VALUES (1);
INSERT INTO public.remindd_schema VALUES (2);
INSERT INTO public.remindd_schema VALUES (3);
INSERT INTO public.remindd_schema VALUES (4);
INSERT INTO public.remindd_schema VALUES (5);
INSERT INTO public.remindd_schema VALUES (6);
INSERT INTO public.remindd_schema VALUES (7);
INSERT INTO public.remindd_schema VALUES (8);
INSERT INTO public.remindd_schema VALUES (9);


--
-- Data for Name: remindd_users; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.remindd_users VALUES ('u-silent', '{"known": {"notifications": {"value": "authorized", "observedAt": "2026-11-29T02:12:46.118Z"}}, "errors": [], "userID": "u-silent", "history": [{"errors": [], "observedAt": "2026-11-29T02:12:46.118Z", "receivedAt": "2026-11-29T02:12:46.118Z", "permissions": {"motion": "unknown", "accuracy": "full", "location": "always", "timeZone": null, "notifications": "authorized", "locationServices": true}}], "activity": [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], "episodes": [], "platform": null, "appVersion": null, "permissions": {"motion": "unknown", "accuracy": "full", "location": "always", "timeZone": null, "observedAt": "2026-11-29T02:12:46.118Z", "notifications": "authorized", "locationServices": true}, "reportCount": 1, "lastReportAt": "2026-11-29T02:12:46.118Z", "schemaVersion": 1, "lastHeartbeatAt": null}', NULL, NULL, 1, 'locationNotAuthorizedAlways', 47, NULL, NULL, NULL, 2, NULL, 0, NULL);
INSERT INTO public.remindd_users VALUES ('u-fixed', '{"known": {"timeZone": {"value": "Europe/Berlin", "observedAt": "2026-11-29T02:12:46.105Z"}, "notifications": {"value": "authorized", "observedAt": "2026-11-29T02:12:57.169Z"}}, "device": {"push": null, "locale": "de-DE"}, "errors": [], "userID": "u-fixed", "history": [{"errors": [], "observedAt": "2026-11-29T02:12:57.169Z", "receivedAt": "2026-11-29T02:12:57.169Z", "permissions": {"motion": "unknown", "accuracy": "full", "location": "always", "timeZone": "Europe/Berlin", "notifications": "authorized", "locationServices": true}}, {"errors": ["locationNotAuthorizedAlways"], "observedAt": "2026-11-29T02:12:46.105Z", "receivedAt": "2026-11-29T02:12:46.105Z", "permissions": {"motion": "unknown", "accuracy": "full", "location": "whileInUse", "timeZone": "Europe/Berlin", "notifications": "authorized", "locationServices": true}}], "activity": [0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], "episodes": [{"group": "default", "reason": "locationNotAuthorizedAlways", "opening": "first", "closedAt": "2026-11-29T02:12:57.169Z", "startedAt": "2026-11-29T02:12:46.105Z", "deliveries": [{"id": "u-fixed/1795918366/1", "dueAt": "2026-11-29T02:12:47.105Z", "sequence": 1, "deliveredAt": "2026-11-29T02:12:47.108Z"}], "suppressed": false, "suppressedCount": 0}], "platform": null, "appVersion": null, "permissions": {"motion": "unknown", "accuracy": "full", "location": "always", "timeZone": "Europe/Berlin", "observedAt": "2026-11-29T02:12:57.169Z", "notifications": "authorized", "locationServices": true}, "reportCount": 2, "lastReportAt": "2026-11-29T02:12:57.169Z", "schemaVersion": 1, "lastHeartbeatAt": null}', NULL, NULL, 1, 'locationNotAuthorizedAlways', 47, NULL, NULL, NULL, 3, NULL, 0, NULL);
INSERT INTO public.remindd_users VALUES ('u-fired', '{"known": {"timeZone": {"value": "Europe/Berlin", "observedAt": "2026-11-29T02:12:46.099Z"}, "notifications": {"value": "authorized", "observedAt": "2026-11-29T02:12:46.099Z"}}, "device": {"push": null, "locale": "de-DE"}, "errors": ["locationNotAuthorizedAlways"], "userID": "u-fired", "history": [{"errors": ["locationNotAuthorizedAlways"], "observedAt": "2026-11-29T02:12:46.099Z", "receivedAt": "2026-11-29T02:12:46.099Z", "permissions": {"motion": "unknown", "accuracy": "full", "location": "whileInUse", "timeZone": "Europe/Berlin", "notifications": "authorized", "locationServices": true}}], "activity": [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], "episodes": [{"group": "default", "reason": "locationNotAuthorizedAlways", "opening": "first", "closedAt": null, "startedAt": "2026-11-29T02:12:46.099Z", "deliveries": [{"id": "u-fired/1795918366/1", "dueAt": "2026-11-29T02:12:47.099Z", "sequence": 1, "deliveredAt": "2026-11-29T02:12:47.099Z"}], "suppressed": false, "suppressedCount": 0}], "platform": null, "appVersion": null, "permissions": {"motion": "unknown", "accuracy": "full", "location": "whileInUse", "timeZone": "Europe/Berlin", "observedAt": "2026-11-29T02:12:46.099Z", "notifications": "authorized", "locationServices": true}, "reportCount": 1, "lastReportAt": "2026-11-29T02:12:46.099Z", "schemaVersion": 1, "lastHeartbeatAt": null}', NULL, NULL, 2, 'locationNotAuthorizedAlways', 43, '2026-11-29 02:12:46.099+00', 'default', 'locationNotAuthorizedAlways', 3, NULL, 33, 'first');
INSERT INTO public.remindd_users VALUES ('u-pending', '{"known": {"timeZone": {"value": "Europe/Berlin", "observedAt": "2026-11-29T02:13:07.322Z"}, "notifications": {"value": "authorized", "observedAt": "2026-11-29T02:13:07.322Z"}}, "device": {"push": null, "locale": "de-DE"}, "errors": ["locationNotAuthorizedAlways"], "userID": "u-pending", "history": [{"errors": ["locationNotAuthorizedAlways"], "observedAt": "2026-11-29T02:13:07.322Z", "receivedAt": "2026-11-29T02:13:07.322Z", "permissions": {"motion": "unknown", "accuracy": "full", "location": "whileInUse", "timeZone": "Europe/Berlin", "notifications": "authorized", "locationServices": true}}], "activity": [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], "episodes": [{"group": "default", "reason": "locationNotAuthorizedAlways", "opening": "first", "closedAt": null, "startedAt": "2026-11-29T02:13:07.322Z", "deliveries": [], "suppressed": false, "suppressedCount": 0}], "platform": null, "appVersion": null, "permissions": {"motion": "unknown", "accuracy": "full", "location": "whileInUse", "timeZone": "Europe/Berlin", "observedAt": "2026-11-29T02:13:07.322Z", "notifications": "authorized", "locationServices": true}, "reportCount": 1, "lastReportAt": "2026-11-29T02:13:07.322Z", "schemaVersion": 1, "lastHeartbeatAt": null}', '2036-11-26 02:13:07.322+00', '2036-11-26 02:13:07.322+00', 1, 'locationNotAuthorizedAlways', 43, '2026-11-29 02:13:07.322+00', 'default', 'locationNotAuthorizedAlways', 3, NULL, 0, 'first');
INSERT INTO public.remindd_users VALUES ('u-denied', '{"known": {"notifications": {"value": "denied", "observedAt": "2026-11-29T02:13:07.328Z"}}, "errors": ["locationNotAuthorizedAlways", "notificationsTurnedOff"], "userID": "u-denied", "history": [{"errors": ["locationNotAuthorizedAlways", "notificationsTurnedOff"], "observedAt": "2026-11-29T02:13:07.328Z", "receivedAt": "2026-11-29T02:13:07.328Z", "permissions": {"motion": "unknown", "accuracy": "full", "location": "whileInUse", "timeZone": null, "notifications": "denied", "locationServices": true}}, {"errors": ["locationNotAuthorizedAlways", "notificationsTurnedOff"], "observedAt": "2026-11-29T02:12:46.112Z", "receivedAt": "2026-11-29T02:12:46.112Z", "permissions": {"motion": "unknown", "accuracy": "full", "location": "denied", "timeZone": null, "notifications": "denied", "locationServices": true}}], "activity": [0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], "episodes": [{"group": "default", "reason": "locationNotAuthorizedAlways", "opening": "first", "closedAt": null, "startedAt": "2026-11-29T02:12:46.112Z", "deliveries": [], "suppressed": true, "suppressedCount": 1}], "platform": null, "appVersion": null, "permissions": {"motion": "unknown", "accuracy": "full", "location": "whileInUse", "timeZone": null, "observedAt": "2026-11-29T02:13:07.328Z", "notifications": "denied", "locationServices": true}, "reportCount": 2, "lastReportAt": "2026-11-29T02:13:07.328Z", "schemaVersion": 1, "lastHeartbeatAt": null}', NULL, NULL, 1, 'locationNotAuthorizedAlways', 11, '2026-11-29 02:12:46.112+00', 'default', 'locationNotAuthorizedAlways', 2, NULL, 0, 'first');


--
-- Name: remindd_dead_letters_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.remindd_dead_letters_seq_seq', 3, true);


--
-- Name: remindd_outbox_seq_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.remindd_outbox_seq_seq', 6, true);


--
-- Name: remindd_counters remindd_counters_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.remindd_counters
    ADD CONSTRAINT remindd_counters_pkey PRIMARY KEY (name, slot);


--
-- Name: remindd_dead_letters remindd_dead_letters_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.remindd_dead_letters
    ADD CONSTRAINT remindd_dead_letters_pkey PRIMARY KEY (event_id, sink);


--
-- Name: remindd_funnel_days remindd_funnel_days_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.remindd_funnel_days
    ADD CONSTRAINT remindd_funnel_days_pkey PRIMARY KEY (day, grp, reason, platform, opening);


--
-- Name: remindd_meta remindd_meta_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.remindd_meta
    ADD CONSTRAINT remindd_meta_pkey PRIMARY KEY (key);


--
-- Name: remindd_outbox remindd_outbox_event_id_sink_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.remindd_outbox
    ADD CONSTRAINT remindd_outbox_event_id_sink_key UNIQUE (event_id, sink);


--
-- Name: remindd_outbox remindd_outbox_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.remindd_outbox
    ADD CONSTRAINT remindd_outbox_pkey PRIMARY KEY (seq);


--
-- Name: remindd_outcome_days remindd_outcome_days_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.remindd_outcome_days
    ADD CONSTRAINT remindd_outcome_days_pkey PRIMARY KEY (day, grp, reason, send_time);


--
-- Name: remindd_outcomes remindd_outcomes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.remindd_outcomes
    ADD CONSTRAINT remindd_outcomes_pkey PRIMARY KEY (user_id, started_at);


--
-- Name: remindd_users remindd_users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.remindd_users
    ADD CONSTRAINT remindd_users_pkey PRIMARY KEY (user_id);


--
-- Name: remindd_outbox_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX remindd_outbox_user ON public.remindd_outbox USING btree (sink, user_id, seq);


--
-- Name: remindd_outcomes_started; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX remindd_outcomes_started ON public.remindd_outcomes USING btree (started_at);


--
-- Name: remindd_outcomes_unsummed; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX remindd_outcomes_unsummed ON public.remindd_outcomes USING btree (started_at) WHERE (NOT summed);


--
-- Name: remindd_users_id_bytes; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX remindd_users_id_bytes ON public.remindd_users USING btree (user_id COLLATE "C");


--
-- Name: remindd_users_reminder; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX remindd_users_reminder ON public.remindd_users USING btree (reminder_at) WHERE (reminder_at IS NOT NULL);


--
-- Name: remindd_users_wake; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX remindd_users_wake ON public.remindd_users USING btree (wake_at) WHERE (wake_at IS NOT NULL);


--
-- PostgreSQL database dump complete
--

\unrestrict JD2F0gHPFrDXbfAoOCfD3j5Cj8Hq5bzjhYlRNRsJ6jWswNG3LnPWLsp4fBomgin


// The admin CLI's commands: each checks its flags with the admin API's own schemas (before any
// database is opened), then works through the same services, so CLI changes are validated and
// audited like admin API ones (metadata.via_cli).
import type { ParseArgsConfig } from 'node:util';
import type { Static, TSchema } from '@sinclair/typebox';
import { createDemoAccount, demoInstructions } from '../accounts/demo.js';
import { accountsRepository, toKeyView } from '../accounts/repository.js';
import { accountsService, type Operator } from '../accounts/service.js';
import * as S from '../admin/schemas.js';
import { systemClock } from '../clock.js';
import { type Config, serviceBaseUrl } from '../config.js';
import { recordedServerUrl } from '../server-address.js';
import type { Database } from '../db/database.js';
import { isUuid } from '../domain/ids.js';
import { isOneOf } from '../domain/records.js';
import { createObjectStore } from '../files/store-from-config.js';
import { compileBodyValidator, toSchemaItems } from '../http/validation.js';
import { runJobsOnce } from '../jobs/scheduler.js';
import { toVocabularyView, vocabularyRepository } from '../vocabularies/repository.js';
import { vocabularyService } from '../vocabularies/service.js';
import { webhookAdminService } from '../webhooks/service.js';

type Options = NonNullable<ParseArgsConfig['options']>;
export type Values = Record<string, string | boolean | undefined>;
export type Row = Record<string, unknown>;

/** What a command prints: a table, labelled fields, or text; --json prints `json` instead. */
export type Output = { json: unknown; table?: Row[]; fields?: Row; text?: string };

export interface Env {
  config: Config;
  db: Database;
}

export interface Command {
  summary: string;
  usage: string;
  options: Options;
  /** Checks the flags (before any database is opened) and answers the work to do. */
  prepare(values: Values): (env: Env) => Promise<Output>;
}

export class UsageError extends Error {}

const str = { type: 'string' } as const;
/** Audit rows of CLI changes say so (metadata.via_cli). */
const by: Operator = { cli: true };

/** Validates flags with the admin API's own schema; errors name the flag, not the JSON field. */
function checked<T extends TSchema>(schema: T, body: Row): Static<T> {
  const validate = compileBodyValidator(schema);
  // The schema's own validator has just accepted `body`: it is a Static<T>.
  if (validate(body)) return body as Static<T>;
  const problems = toSchemaItems(validate.errors ?? [], 'body').map((item) => {
    // ctx is a free-form record; toSchemaItems puts the field names of a multi-field item in ctx.fields.
    const fields = (item.ctx?.fields as string[] | undefined) ?? [String(item.loc[1] ?? '')];
    return `  ${fields.map((f) => `--${f.replace(/_/g, '-')}`).join(', ')}: ${item.msg}`;
  });
  throw new UsageError(`invalid input:\n${problems.join('\n')}`);
}

function uuid(values: Values, flag: string): string {
  const value = values[flag];
  if (typeof value !== 'string') throw new UsageError(`--${flag} is required`);
  if (!isUuid(value)) throw new UsageError(`--${flag} must be a UUID (got '${value}')`);
  return value;
}

function positive(value: string | boolean | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${flag} must be a positive integer (got '${value}')`);
  return n;
}

function onOff(value: string | boolean | undefined, flag: string): boolean | undefined {
  if (value === undefined) return undefined;
  const text = String(value).toLowerCase();
  if (['on', 'true', 'yes'].includes(text)) return true;
  if (['off', 'false', 'no'].includes(text)) return false;
  throw new UsageError(`--${flag} must be on or off (got '${value}')`);
}

const list = (value: string | boolean | undefined) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean)
    : [];

function vocabularyKind(values: Values) {
  const kind = String(values.kind ?? '');
  if (!isOneOf(S.VOCABULARY_KIND_PATHS, kind)) throw new UsageError(`--kind must be one of ${S.VOCABULARY_KIND_PATHS.join(', ')} (got '${kind}')`);
  return S.VOCABULARY_KINDS[kind];
}

const day = (d: Date | null | undefined) => (d ? d.toISOString().replace(/\.\d{3}Z$/, 'Z') : '-');

const service = (db: Database) => accountsService({ db, clock: systemClock });

export const commands: Record<string, Command> = {
  'create-org': {
    summary: 'Create an organization',
    usage: '--name NAME [--account-status active|inactive|churned] [--subscription-status active|trialing|...] [--api-access on|off]',
    options: { name: str, 'account-status': str, 'subscription-status': str, 'api-access': str },
    prepare(v) {
      const body = checked(
        S.CreateOrganizationBody,
        withoutUndefined({
          name: v.name,
          account_status: v['account-status'],
          subscription_status: v['subscription-status'],
          api_access_enabled: onOff(v['api-access'], 'api-access'),
        }),
      );
      return async ({ db }) => {
        const org = await service(db).createOrganization(body, by);
        return {
          json: org,
          fields: {
            id: org.id,
            name: org.name,
            account_status: org.account_status,
            subscription_status: org.subscription_status,
            api_access: org.api_access_enabled ? 'on' : 'off',
          },
        };
      };
    },
  },
  'create-user': {
    summary: 'Create a user in an organization',
    usage: '--org ORG_ID --email EMAIL [--capabilities seller,admin] (default: none, read-only)',
    options: { org: str, email: str, capabilities: str },
    prepare(v) {
      const orgId = uuid(v, 'org');
      const body = checked(
        S.CreateUserBody,
        withoutUndefined({ email: v.email, capabilities: list(v.capabilities) }),
      );
      return async ({ db }) => {
        const user = await service(db).createUser(orgId, body, by);
        return {
          json: user,
          fields: {
            id: user.id,
            org_id: user.org_id,
            email: user.email,
            capabilities: user.capabilities.join(',') || '-',
            status: user.status,
          },
        };
      };
    },
  },
  'mint-key': {
    summary: 'Mint an API key for a user (the secret is printed once)',
    usage: '--user USER_ID [--name NAME] [--expires-at 2027-01-01T00:00:00Z]',
    options: { user: str, name: str, 'expires-at': str },
    prepare(v) {
      const userId = uuid(v, 'user');
      const body = checked(
        S.MintKeyBody,
        withoutUndefined({ name: v.name, expires_at: v['expires-at'] }),
      );
      return async ({ db }) => {
        const key = await service(db).mintKey(
          userId,
          { name: body.name, expires_at: body.expires_at ? new Date(body.expires_at) : null },
          by,
        );
        return { json: key, text: secretText('API key minted.', key) };
      };
    },
  },
  'rotate-key': {
    summary: 'Replace a live key by a new secret (the old one stops working)',
    usage: '--key-id KEY_ID',
    options: { 'key-id': str },
    prepare(v) {
      const keyId = uuid(v, 'key-id');
      return async ({ db }) => {
        const key = await service(db).rotateKey(keyId, by);
        return { json: key, text: secretText('API key rotated; the previous secret no longer works.', key) };
      };
    },
  },
  'revoke-key': {
    summary: 'Revoke a key',
    usage: '--key-id KEY_ID',
    options: { 'key-id': str },
    prepare(v) {
      const keyId = uuid(v, 'key-id');
      return async ({ db }) => {
        const key = await service(db).revokeKey(keyId, by);
        return { json: key, fields: { id: key.id, prefix: key.prefix, revoked_at: day(key.revoked_at) } };
      };
    },
  },
  'list-orgs': {
    summary: 'List organizations',
    usage: '',
    options: {},
    prepare:
      () =>
      async ({ db }) => {
        const orgs = await accountsRepository(db).listOrganizations();
        const table = orgs.map((o) => ({
          id: o.id,
          name: o.name,
          account: o.account_status,
          subscription: o.subscription_status,
          api_access: o.api_access_enabled ? 'on' : 'off',
          created: day(o.created_at),
        }));
        return { json: { items: orgs }, table };
      },
  },
  'list-users': {
    summary: 'List the users of an organization',
    usage: '--org ORG_ID',
    options: { org: str },
    prepare(v) {
      const orgId = uuid(v, 'org');
      return async ({ db }) => {
        const users = await accountsRepository(db).listUsers(orgId);
        const table = users.map((u) => ({
          id: u.id,
          email: u.email,
          capabilities: u.capabilities.join(',') || '-',
          status: u.status,
          created: day(u.created_at),
        }));
        return { json: { items: users }, table };
      };
    },
  },
  'list-keys': {
    summary: "List a user's keys (prefixes only; secrets are never stored)",
    usage: '--user USER_ID',
    options: { user: str },
    prepare(v) {
      const userId = uuid(v, 'user');
      return async ({ db }) => {
        const keys = (await accountsRepository(db).listKeys(userId)).map(toKeyView);
        const state = (k: (typeof keys)[number]) => (k.revoked_at ? 'revoked' : k.rotated_at ? 'rotated' : 'live');
        const table = keys.map((k) => ({
          id: k.id,
          prefix: k.prefix,
          name: k.name ?? '-',
          state: state(k),
          expires: day(k.expires_at),
          last_used: day(k.last_used_at),
        }));
        return { json: { items: keys }, table };
      };
    },
  },
  'list-vocabularies': {
    summary: 'List a vocabulary',
    usage: '--kind aircraft-types|engine-models|apu-models',
    options: { kind: str },
    prepare(v) {
      const kind = vocabularyKind(v);
      return async ({ db }) => {
        const rows = (await vocabularyRepository(db).list(kind)).map(toVocabularyView);
        const table = rows.map((r) => ({
          name: r.name,
          manufacturer: r.manufacturer,
          category: r.category ?? '-',
          active: r.is_active ? 'yes' : 'no',
        }));
        return { json: { items: rows }, table };
      };
    },
  },
  'add-vocabulary': {
    summary: 'Add a vocabulary term',
    usage: '--kind aircraft-types|engine-models|apu-models --name NAME --manufacturer NAME [--category TEXT] [--inactive]',
    options: { kind: str, name: str, manufacturer: str, category: str, inactive: { type: 'boolean' } },
    prepare(v) {
      const kind = vocabularyKind(v);
      const body = checked(
        S.CreateVocabularyBody,
        withoutUndefined({ name: v.name, manufacturer: v.manufacturer, category: v.category, is_active: v.inactive ? false : undefined }),
      );
      return async ({ db }) => {
        const row = await vocabularyService({ db, vocabularies: vocabularyRepository(db) }).add({ kind: 'admin' }, { kind, ...body }, { via_cli: true });
        if (!row) throw new UsageError(`'${body.name.trim()}' already exists in ${String(v.kind)}`);
        const view = toVocabularyView(row);
        return {
          json: view,
          fields: {
            id: view.id,
            name: view.name,
            manufacturer: view.manufacturer,
            category: view.category ?? '-',
            active: view.is_active ? 'yes' : 'no',
          },
        };
      };
    },
  },
  'run-jobs': {
    summary: 'Run the periodic jobs now (auto-archive, key revocation, file sweep, Idempotency-Key, event and webhook delivery purges)',
    usage: '',
    options: {},
    prepare:
      () =>
      async ({ db, config }) => {
        const store = await createObjectStore(config);
        try {
          const result = await runJobsOnce({ db, store, config }, systemClock.now());
          return { json: result, fields: { ...result } };
        } finally {
          await store.close();
        }
      },
  },
  'list-webhooks': {
    summary: 'List webhook endpoints with their delivery state (secrets are never shown)',
    usage: '[--org ORG_ID]',
    options: { org: str },
    prepare(v) {
      const orgId = v.org === undefined ? undefined : uuid(v, 'org');
      return async ({ db, config }) => {
        const { items } = await webhookAdminService({ db, clock: systemClock, config }).list(orgId);
        const table = items.map((e) => ({
          id: e.id,
          org_id: e.org_id,
          url: e.url,
          state: e.enabled
            ? e.failing_since
              ? `failing since ${day(e.failing_since)}`
              : 'enabled'
            : `disabled: ${e.disabled_reason ?? '-'}`,
          delivered_seq: e.last_delivered_seq,
          next_attempt: day(e.next_attempt_at),
        }));
        return { json: { items }, table };
      };
    },
  },
  'list-webhook-deliveries': {
    summary: "An endpoint's delivery attempts, newest first",
    usage: '--endpoint ENDPOINT_ID [--page N] [--per-page N]',
    options: { endpoint: str, page: str, 'per-page': str },
    prepare(v) {
      const endpointId = uuid(v, 'endpoint');
      const page = positive(v.page, 'page', 1);
      const perPage = positive(v['per-page'], 'per-page', 20);
      return async ({ db, config }) => {
        const result = await webhookAdminService({ db, clock: systemClock, config }).deliveries(endpointId, {
          page,
          per_page: Math.min(perPage, 100),
        });
        const table = result.items.map((d) => ({
          at: day(d.created_at),
          event_id: d.event_id,
          type: d.event_type,
          attempt: d.attempt,
          result: d.status_code ?? '-',
          error: d.error ?? '-',
          ms: d.duration_ms,
          next_retry: day(d.next_retry_at),
        }));
        return { json: result, table };
      };
    },
  },
  'replay-webhook': {
    summary: 'Re-enable an endpoint and deliver again from an event (it and every later one, in order)',
    usage: '--endpoint ENDPOINT_ID --from EVENT_ID',
    options: { endpoint: str, from: str },
    prepare(v) {
      const endpointId = uuid(v, 'endpoint');
      const fromEventId = uuid(v, 'from');
      return async ({ db, config }) => {
        const view = await webhookAdminService({ db, clock: systemClock, config }).replay({ kind: 'admin' }, endpointId, fromEventId, {
          via_cli: true,
        });
        return {
          json: view,
          fields: { id: view.id, url: view.url, enabled: view.enabled ? 'yes' : 'no', replays_after_seq: view.last_delivered_seq },
        };
      };
    },
  },
  demo: {
    summary: 'Create a demo organization, seller and key, and print a ready-to-paste curl',
    usage: '',
    options: {},
    prepare:
      () =>
      async ({ db, config }) => {
        const demo = await createDemoAccount(db);
        return { json: demo, text: demoInstructions(demo, cliBaseUrl(config)) };
      },
  },
};

/**
 * The server's address as the CLI should print it: HOST and PORT when this process was given either
 * (the same settings as the server's), else where the server last listened under DATA_DIR, else the
 * defaults.
 */
export function cliBaseUrl(config: Config, env: Record<string, string | undefined> = process.env): string {
  if (env.PORT === undefined && env.HOST === undefined) {
    const recorded = recordedServerUrl(config.dataDir);
    if (recorded) return recorded;
  }
  return serviceBaseUrl(config);
}

function secretText(title: string, key: { id: string; key: string; prefix: string; expires_at: Date | null }) {
  return [
    title,
    'The secret is shown this once; store it now:',
    '',
    `  ${key.key}`,
    '',
    ...aligned({ id: key.id, prefix: key.prefix, expires_at: day(key.expires_at) }),
  ].join('\n');
}

function withoutUndefined(row: Row): Row {
  return Object.fromEntries(Object.entries(row).filter(([, value]) => value !== undefined));
}

export function aligned(fields: Row): string[] {
  const width = Math.max(...Object.keys(fields).map((k) => k.length));
  return Object.entries(fields).map(([k, value]) => `${k.padEnd(width)}  ${String(value)}`);
}

// Fixtures built through the admin API, as an operator would: organizations, users, keys.
import type { TestApp } from './app.js';

export interface Principal {
  orgId: string;
  userId: string;
  keyId: string;
  key: string;
  /** Authorization and X-Organization-Id headers for this key. */
  headers: Record<string, string>;
}

async function expectStatus<T>(res: { statusCode: number; body: string; json(): unknown }, status: number): Promise<T> {
  if (res.statusCode !== status) throw new Error(`expected ${status}, got ${res.statusCode}: ${res.body}`);
  return res.json() as T;
}

export async function createOrg(t: TestApp, fields: Record<string, unknown> = {}): Promise<{ id: string }> {
  return expectStatus(await t.admin('POST', '/admin/v1/organizations', { name: `Org ${Math.random().toString(36).slice(2, 8)}`, ...fields }), 201);
}

export async function createUser(t: TestApp, orgId: string, fields: { capabilities?: string[]; status?: string; email?: string } = {}) {
  return expectStatus<{ id: string; email: string }>(
    await t.admin('POST', `/admin/v1/organizations/${orgId}/users`, {
      email: fields.email ?? `user-${Math.random().toString(36).slice(2, 10)}@example.com`,
      capabilities: fields.capabilities ?? ['seller'],
      ...(fields.status ? { status: fields.status } : {}),
    }),
    201,
  );
}

export async function mintKey(t: TestApp, userId: string, fields: { expires_at?: string; name?: string } = {}) {
  return expectStatus<{ id: string; key: string; prefix: string }>(await t.admin('POST', `/admin/v1/users/${userId}/api-keys`, fields), 201);
}

export const headersFor = (key: string, orgId: string) => ({ authorization: `Bearer ${key}`, 'x-organization-id': orgId });

/** An organization with one user of the given capabilities and a live key. */
export async function createPrincipal(
  t: TestApp,
  options: { capabilities?: string[]; org?: Record<string, unknown>; orgId?: string; key?: { expires_at?: string } } = {},
): Promise<Principal> {
  const orgId = options.orgId ?? (await createOrg(t, options.org)).id;
  const user = await createUser(t, orgId, { capabilities: options.capabilities ?? ['seller'] });
  const key = await mintKey(t, user.id, options.key);
  return { orgId, userId: user.id, keyId: key.id, key: key.key, headers: headersFor(key.key, orgId) };
}

export const createSeller = (t: TestApp, options: Parameters<typeof createPrincipal>[1] = {}) => createPrincipal(t, { capabilities: ['seller'], ...options });

/** Audit rows for one entity, newest first, through the admin API. */
export async function auditFor(t: TestApp, entityId: string): Promise<{ action: string; previous_state: unknown; new_state: unknown; metadata: Record<string, unknown> }[]> {
  const res = await t.admin('GET', `/admin/v1/audit-events?entity_id=${entityId}&limit=1000`);
  return (await expectStatus<{ items: never[] }>(res, 200)).items;
}

// A ready-to-use demo organization, seller and key, so a newcomer's first curl works.
import type { Database } from '../db/database.js';
import { accountsRepository } from './repository.js';

export interface DemoAccount {
  orgId: string;
  userId: string;
  key: string;
}

export async function createDemoAccount(db: Database, name = 'Demo Aviation Parts'): Promise<DemoAccount> {
  return db.transaction().execute((tx) => createDemoAccountIn(tx, name));
}

async function createDemoAccountIn(tx: Database, name: string): Promise<DemoAccount> {
  const repo = accountsRepository(tx);
  const org = await repo.createOrganization({ name });
  const user = await repo.createUser(org.id, { email: 'seller@demo.example', capabilities: ['seller'] });
  if (!user) throw new Error('demo user could not be created');
  const key = await repo.mintKey(user, { name: 'demo key' });
  return { orgId: org.id, userId: user.id, key: key.key };
}

/** True when the database holds no organization at all: a first start. */
export async function isFirstStart(db: Database): Promise<boolean> {
  return !(await accountsRepository(db).hasOrganizations());
}

/**
 * Creates the demo account when the database holds no organization, and returns it; undefined when
 * it is not a first start. Instances starting together on an empty database serialise on an
 * advisory lock held by the transaction, so exactly one of them creates (and prints) the account.
 */
export async function createDemoAccountOnFirstStart(db: Database): Promise<DemoAccount | undefined> {
  return db.transaction().execute(async (tx) => {
    await accountsRepository(tx).lockFirstStart();
    if (!(await isFirstStart(tx))) return undefined;
    return createDemoAccountIn(tx, 'Demo Aviation Parts');
  });
}

export function demoInstructions(demo: DemoAccount, baseUrl: string): string {
  return [
    'Demo account ready. The key is shown this once:',
    `  organization: ${demo.orgId}`,
    `  API key:      ${demo.key}`,
    '',
    'Try it:',
    `  curl -sS ${baseUrl}/public/v1/teardowns \\`,
    `    -H 'Authorization: Bearer ${demo.key}' \\`,
    `    -H 'X-Organization-Id: ${demo.orgId}'`,
    '',
    `Or in the browser: ${baseUrl}/docs (Authorize with the key and the organization above).`,
  ].join('\n');
}

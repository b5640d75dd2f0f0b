// Idempotency-Key across instances: two apps on one PostgreSQL database, as behind a load
// balancer. The claim is one conditional statement, so retries racing through both instances run
// the write once; a retry through the other instance replays.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, createPostgresDatabase, createTestApp, type TestApp } from '../helpers/app.js';
import { createSeller, type Principal } from '../helpers/factories.js';
import { teardownBody } from '../helpers/teardowns.js';

describe.runIf(backend() === 'postgres')('two instances, one key', () => {
  let a: TestApp;
  let b: TestApp;
  let seller: Principal;

  beforeAll(async () => {
    const database = await createPostgresDatabase();
    a = await createTestApp({ postgres: database });
    b = await createTestApp({ postgres: { url: database.url, drop: async () => {} } });
    seller = await createSeller(a);
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const post = (t: TestApp, key: string) =>
    t.app.inject({
      method: 'POST',
      url: '/public/v1/teardowns',
      headers: { ...seller.headers, 'idempotency-key': key },
      payload: teardownBody(),
    });
  const teardowns = async () =>
    (await a.app.inject({ method: 'GET', url: '/public/v1/teardowns', headers: seller.headers })).json().total as number;

  it('retries racing through both instances write once; the others get 409 or the replay', async () => {
    for (let round = 0; round < 5; round++) {
      const before = await teardowns();
      const key = `race-${round}`;
      const results = await Promise.all([post(a, key), post(b, key), post(a, key), post(b, key)]);
      expect(await teardowns()).toBe(before + 1);
      const ran = results.filter((r) => r.statusCode === 201 && r.headers['idempotent-replayed'] === undefined);
      expect(ran).toHaveLength(1);
      for (const other of results.filter((r) => r !== ran[0])) {
        if (other.statusCode === 409) expect(other.headers['retry-after']).toBe('1');
        else expect([other.statusCode, other.headers['idempotent-replayed'], other.body]).toEqual([201, 'true', ran[0].body]);
      }
      const later = await post(round % 2 ? a : b, key);
      expect([later.statusCode, later.headers['idempotent-replayed'], later.body]).toEqual([201, 'true', ran[0].body]);
    }
  });
});

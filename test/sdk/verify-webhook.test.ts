// verifyWebhook against an independent implementation of Standard Webhooks (the `standardwebhooks`
// package): what it signs, verifyWebhook accepts; what it refuses (tampering, another secret, a stale
// or future timestamp), verifyWebhook refuses too; and both signatures of a rotation are honoured.
import { randomBytes } from 'node:crypto';
import { verifyWebhook, WebhookVerificationError } from '@aviation-marketplace/partner-sdk';
import { Webhook } from 'standardwebhooks';
import { describe, expect, test } from 'vitest';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const ID = '0b6f3a52-7a58-4d5e-9f0e-1c3b4f3f9a10';
const BODY = JSON.stringify({
  type: 'teardown.created',
  timestamp: '2026-11-22T20:00:00.000Z',
  data: { entity_id: '5d0c7f39-1c7e-4b4f-8d6a-2f0a9d1e6b11', object: { msn: 'é 1234' } },
});

/** The headers the service sends, signed by the reference implementation with each secret in turn. */
function signed(secrets: string[], at: Date, body = BODY, id = ID): Record<string, string> {
  const signature = secrets.map((s) => new Webhook(s).sign(id, at, body)).join(' ');
  return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature };
}

/** The reference implementation's verdict (it reads the real clock). */
function reference(secret: string, headers: Record<string, string>, body = BODY): boolean {
  try {
    new Webhook(secret).verify(body, headers);
    return true;
  } catch {
    return false;
  }
}

const refused = (promise: Promise<unknown>) => expect(promise).rejects.toBeInstanceOf(WebhookVerificationError);

describe('verifyWebhook', () => {
  test('accepts what standardwebhooks signs, with a string, bytes or Headers; answers id, time and the parsed body', async () => {
    const secret = newSecret();
    const now = new Date();
    const headers = signed([secret], now);
    expect(reference(secret, headers)).toBe(true);

    const verified = await verifyWebhook(secret, headers, BODY);
    expect(verified.id).toBe(ID);
    expect(verified.timestamp.getTime()).toBe(Math.floor(now.getTime() / 1000) * 1000);
    expect(verified.message).toEqual(JSON.parse(BODY));
    expect(verified.message.type).toBe('teardown.created');

    await expect(verifyWebhook(secret, new Headers(headers), Buffer.from(BODY))).resolves.toMatchObject({ id: ID });
    await expect(verifyWebhook(secret, new Headers(headers), new TextEncoder().encode(BODY).buffer)).resolves.toMatchObject({ id: ID });
    // Header names in any case (Node lowercases them; others may not).
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    await expect(verifyWebhook(secret, upper, BODY)).resolves.toMatchObject({ id: ID });
  });

  test('refuses what standardwebhooks refuses: a changed body, id or timestamp, another secret, a missing header', async () => {
    const secret = newSecret();
    const headers = signed([secret], new Date());
    const cases: [Record<string, string>, string][] = [
      [headers, BODY.replace('1234', '1235')],
      [{ ...headers, 'webhook-id': `${ID.slice(0, -1)}1` }, BODY],
      [{ ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1) }, BODY],
      [{ ...headers, 'webhook-signature': 'v1,AAAA' }, BODY],
      [{ ...headers, 'webhook-signature': (headers['webhook-signature'] ?? '').replace('v1,', 'v2,') }, BODY],
      [{ ...headers, 'webhook-signature': '' }, BODY],
    ];
    for (const [h, body] of cases) {
      expect(reference(secret, h, body)).toBe(false);
      await refused(verifyWebhook(secret, h, body));
    }
    await refused(verifyWebhook(newSecret(), headers, BODY));
    const { 'webhook-signature': _, ...unsigned } = headers;
    await refused(verifyWebhook(secret, unsigned, BODY));
  });

  test('the timestamp must be within 5 minutes of now, either way (as standardwebhooks checks)', async () => {
    const secret = newSecret();
    for (const offsetSeconds of [-299, 299]) {
      const headers = signed([secret], new Date(Date.now() + offsetSeconds * 1000));
      expect(reference(secret, headers)).toBe(true);
      await expect(verifyWebhook(secret, headers, BODY)).resolves.toMatchObject({ id: ID });
    }
    for (const offsetSeconds of [-301, 301, -86_400]) {
      const headers = signed([secret], new Date(Date.now() + offsetSeconds * 1000));
      expect(reference(secret, headers)).toBe(false);
      await refused(verifyWebhook(secret, headers, BODY));
    }
    // The receiver's clock and the tolerance can be given.
    const at = new Date('2026-11-22T20:00:00Z');
    const old = signed([secret], at);
    await expect(verifyWebhook(secret, old, BODY, { now: at.getTime() + 600_000, toleranceSeconds: 601 })).resolves.toBeDefined();
    await refused(verifyWebhook(secret, old, BODY, { now: new Date(at.getTime() + 600_000) }));
  });

  test('a rotation: two v1 signatures, either secret verifies; a list of secrets verifies either way', async () => {
    const [oldSecret, newer] = [newSecret(), newSecret()];
    const both = signed([newer, oldSecret], new Date());
    expect(both['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(reference(newer, both) && reference(oldSecret, both)).toBe(true);
    await expect(verifyWebhook(newer, both, BODY)).resolves.toMatchObject({ id: ID });
    await expect(verifyWebhook(oldSecret, both, BODY)).resolves.toMatchObject({ id: ID });
    // A receiver still holding the old secret and already the new one, before or after the switch.
    await expect(verifyWebhook([oldSecret, newer], signed([newer], new Date()), BODY)).resolves.toMatchObject({ id: ID });
    await expect(verifyWebhook([newer, oldSecret], signed([oldSecret], new Date()), BODY)).resolves.toMatchObject({ id: ID });
    await refused(verifyWebhook([newSecret(), newSecret()], both, BODY));
  });

  test('a body that is signed but is not a webhook message is refused; a secret that is not base64 is a TypeError', async () => {
    const secret = newSecret();
    await refused(verifyWebhook(secret, signed([secret], new Date(), '[1,2]'), '[1,2]'));
    await expect(verifyWebhook('whsec_not base64!', signed([secret], new Date()), BODY)).rejects.toBeInstanceOf(TypeError);
  });
});

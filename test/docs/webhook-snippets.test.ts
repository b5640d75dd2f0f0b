// The signature verification snippet the docs page gives partners (guides.ts, "Webhooks"), run as
// written against signatures made by an independent Standard Webhooks implementation (the
// `standardwebhooks` package): it accepts what is signed, and refuses a changed body, another
// secret and an old timestamp; during a rotation, either secret verifies.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { API_DESCRIPTION } from '../../src/observability/guides.js';

type Verify = (secret: string, headers: Record<string, string>, rawBody: string) => boolean;

function snippet(): Verify {
  const section = API_DESCRIPTION.slice(API_DESCRIPTION.indexOf('## Webhooks'));
  const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error('no js block in the Webhooks guide');
  const body = code
    .split('\n')
    .filter((line) => !line.startsWith('import '))
    .join('\n')
    .replace(/^export /m, '');
  return new Function('createHmac', 'timingSafeEqual', `${body}\nreturn verifyWebhook;`)(createHmac, timingSafeEqual) as Verify;
}

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

function signed(secrets: string[], body: string, at = new Date()) {
  const id = `evt_${randomBytes(8).toString('hex')}`;
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((s) => new Webhook(s).sign(id, at, body)).join(' '),
  };
}

describe('the webhook verification snippet of the docs page', () => {
  const verify = snippet();
  const body = JSON.stringify({ type: 'teardown.created', timestamp: new Date().toISOString(), data: { entity_id: 'x', object: { msn: '3456' } } });

  it('accepts a delivery signed the Standard Webhooks way', () => {
    const secret = newSecret();
    const headers = signed([secret], body);
    expect(verify(secret, headers, body)).toBe(true);
    // The independent implementation agrees on the same input.
    expect(() => new Webhook(secret).verify(body, headers)).not.toThrow();
  });

  it('refuses a changed body, another secret, an old timestamp and a missing signature', () => {
    const secret = newSecret();
    const headers = signed([secret], body);
    expect(verify(secret, headers, body.replace('3456', '3457'))).toBe(false);
    expect(verify(newSecret(), headers, body)).toBe(false);
    expect(verify(secret, signed([secret], body, new Date(Date.now() - 10 * 60_000)), body)).toBe(false);
    expect(verify(secret, { ...headers, 'webhook-signature': '' }, body)).toBe(false);
    expect(verify(secret, { ...headers, 'webhook-signature': 'v1,' }, body)).toBe(false);
  });

  it('accepts either secret while a rotation signs with both', () => {
    const before = newSecret();
    const after = newSecret();
    const headers = signed([before, after], body);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(verify(before, headers, body)).toBe(true);
    expect(verify(after, headers, body)).toBe(true);
    expect(verify(newSecret(), headers, body)).toBe(false);
  });
});

// The SSRF guard's address rules, unit by unit: which addresses are public, private (admitted only
// with WEBHOOK_ALLOW_PRIVATE_URLS=true) or never admitted; IPv4 embedded in IPv6 checked as IPv4;
// what net.BlockList itself does with IPv4-mapped addresses on this Node; and the guarded lookup.
import type { LookupAddress } from 'node:dns';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { classifyAddress, embeddedIpv4, guardedLookup, parseWebhookUrl, refusedAddressReason } from '../../src/webhooks/addresses.js';
import { sign, signatureHeader } from '../../src/webhooks/signature.js';
import { Webhook } from 'standardwebhooks';

describe('address classes', () => {
  const cases: [string, 'public' | 'private' | 'forbidden'][] = [
    ['93.184.216.34', 'public'],
    ['8.8.8.8', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['127.0.0.1', 'private'],
    ['127.255.0.9', 'private'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.10.10', 'private'],
    ['100.64.0.1', 'private'],
    ['::1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['::ffff:127.0.0.1', 'private'],
    ['::ffff:7f00:1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:93.184.216.34', 'public'],
    ['64:ff9b::7f00:1', 'private'], // NAT64 of 127.0.0.1
    ['2002:7f00:1::', 'private'], // 6to4 of 127.0.0.1
    ['0.0.0.0', 'forbidden'],
    ['::', 'forbidden'],
    ['169.254.169.254', 'forbidden'],
    ['169.254.1.1', 'forbidden'],
    ['::ffff:169.254.169.254', 'forbidden'],
    ['64:ff9b::a9fe:a9fe', 'forbidden'],
    ['fe80::1', 'forbidden'],
    ['fe80::1%eth0', 'forbidden'],
    ['febf::1', 'forbidden'],
    ['fd00:ec2::254', 'forbidden'],
    ['224.0.0.1', 'forbidden'],
    ['239.255.255.250', 'forbidden'],
    ['ff02::1', 'forbidden'],
    ['255.255.255.255', 'forbidden'],
    ['240.0.0.1', 'forbidden'],
    ['192.0.2.1', 'forbidden'],
    ['2001:db8::1', 'forbidden'],
    ['::7f00:1', 'forbidden'], // IPv4-compatible (deprecated)
    ['fec0::1', 'forbidden'], // site-local (deprecated)
    ['not-an-ip', 'forbidden'],
  ];
  for (const [address, expected] of cases) {
    it(`${address} is ${expected}`, () => {
      expect(classifyAddress(address)).toBe(expected);
    });
  }

  it('refuses private addresses unless allowed, and never admits link-local or metadata', () => {
    expect(refusedAddressReason('127.0.0.1', false)).toMatch(/loopback or private/);
    expect(refusedAddressReason('127.0.0.1', true)).toBeUndefined();
    expect(refusedAddressReason('169.254.169.254', true)).toMatch(/link-local, metadata/);
    expect(refusedAddressReason('fe80::1', true)).toMatch(/link-local/);
    expect(refusedAddressReason('93.184.216.34', false)).toBeUndefined();
  });

  it('unwraps IPv4 embedded in IPv6', () => {
    expect(embeddedIpv4('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(embeddedIpv4('::FFFF:A9FE:A9FE')).toBe('169.254.169.254');
    expect(embeddedIpv4('64:ff9b::0a00:0001')).toBe('10.0.0.1');
    expect(embeddedIpv4('2002:0a00:0001::1')).toBe('10.0.0.1');
    expect(embeddedIpv4('2606:4700::1111')).toBeUndefined();
  });

  it('net.BlockList on this Node: an IPv4 rule matches the IPv4-mapped form (the guard unwraps it anyway)', () => {
    const list = new net.BlockList();
    list.addSubnet('127.0.0.0', 8, 'ipv4');
    // Recorded, not relied upon: Node has changed this behaviour before, hence embeddedIpv4().
    expect(list.check('::ffff:127.0.0.1', 'ipv6')).toBe(true);
    expect(list.check('::ffff:7f00:1', 'ipv6')).toBe(true);
    // NAT64 is not mapped by BlockList: only the guard's unwrapping catches it.
    expect(list.check('64:ff9b::7f00:1', 'ipv6')).toBe(false);
    expect(classifyAddress('64:ff9b::7f00:1')).toBe('private');
  });
});

describe('URL form', () => {
  it('wants https, no credentials, at most 2048 characters', () => {
    expect(() => parseWebhookUrl('http://a.example/x', false)).toThrow(/https/);
    expect(parseWebhookUrl('http://a.example/x', true).hostname).toBe('a.example');
    expect(() => parseWebhookUrl('https://u:p@a.example/x', true)).toThrow(/credentials/);
    expect(() => parseWebhookUrl('https://u@a.example/x', true)).toThrow(/credentials/);
    expect(() => parseWebhookUrl(`https://a.example/${'x'.repeat(2048)}`, true)).toThrow(/2048/);
    expect(() => parseWebhookUrl('file:///etc/passwd', true)).toThrow(/https/);
  });
});

describe('guarded lookup', () => {
  const lookupWith = (answer: LookupAddress[], allowPrivate = false) =>
    guardedLookup({ allowPrivate, resolver: async () => answer, timeoutMs: 1000 });
  const run = (lookup: ReturnType<typeof lookupWith>, all: boolean) =>
    new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((resolve) =>
      lookup('host.test', { all }, (err, address) => resolve({ err, address })),
    );

  it('hands the connection only addresses it checked', async () => {
    const ok = await run(lookupWith([{ address: '93.184.216.34', family: 4 }]), false);
    expect(ok).toEqual({ err: null, address: '93.184.216.34' });
    const all = await run(
      lookupWith([
        { address: '2606:4700::1', family: 6 },
        { address: '93.184.216.34', family: 4 },
      ]),
      true,
    );
    expect(all.address).toEqual([
      { address: '2606:4700::1', family: 6 },
      { address: '93.184.216.34', family: 4 },
    ]);
  });

  it('fails the connection when any address is refused', async () => {
    const refused = await run(
      lookupWith([
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.1', family: 4 },
      ]),
      true,
    );
    expect(refused.err?.code).toBe('EWEBHOOKADDRESS');
    expect(refused.err?.message).toMatch(/10\.0\.0\.1 is a loopback or private address/);
    const metadata = await run(lookupWith([{ address: '169.254.169.254', family: 4 }], true), false);
    expect(metadata.err?.message).toMatch(/metadata/);
  });
});

describe('signatures', () => {
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const previous = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
  const now = new Date();
  const ts = Math.floor(now.getTime() / 1000);

  it('is what standardwebhooks computes', () => {
    const body = '{"type":"teardown.created","timestamp":"2026-03-01T00:00:00.000Z","data":{}}';
    expect(sign(secret, 'msg_1', ts, body)).toBe(new Webhook(secret).sign('msg_1', new Date(ts * 1000), body));
  });

  it('adds the previous secret while it is valid, and only then', () => {
    const both = signatureHeader(
      { secret, previous_secret: previous, previous_secret_expires_at: new Date(now.getTime() + 1000) },
      'id',
      ts,
      '{}',
      now,
    );
    expect(both.split(' ')).toEqual([sign(secret, 'id', ts, '{}'), sign(previous, 'id', ts, '{}')]);
    const one = signatureHeader(
      { secret, previous_secret: previous, previous_secret_expires_at: new Date(now.getTime() - 1) },
      'id',
      ts,
      '{}',
      now,
    );
    expect(one).toBe(sign(secret, 'id', ts, '{}'));
  });
});

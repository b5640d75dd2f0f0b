// Where webhooks may go (server-side request forgery): a webhook URL is chosen by a partner, and the
// service connects to it from inside the operator's network. The URL must be https, carry no
// credentials, and its host must resolve only to public addresses. Checked when the URL is set
// (create / PATCH) and again at every connection, by a `lookup` handed to http(s).request, so the
// socket goes to the very address that was checked: DNS cannot answer a public address to the check
// and a private one to the connection (rebinding).
//
// WEBHOOK_ALLOW_PRIVATE_URLS=true (development, tests) also admits http, loopback and private
// ranges. Link-local (169.254.0.0/16, fe80::/10, cloud metadata services among them), unspecified,
// multicast and reserved addresses are never admitted.
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOneOptions, LookupOptions } from 'node:dns';
import net from 'node:net';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export type AddressClass = 'public' | 'private' | 'forbidden';

/** Resolves a host name to its addresses: the DNS by default, a fake in tests (an option, never a global). */
export type WebhookResolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: WebhookResolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

function blockList(v4: [string, number][], v6: [string, number][]): net.BlockList {
  const list = new net.BlockList();
  for (const [address, prefix] of v4) list.addSubnet(address, prefix, 'ipv4');
  for (const [address, prefix] of v6) list.addSubnet(address, prefix, 'ipv6');
  return list;
}

/** Loopback and private networks: admitted only with WEBHOOK_ALLOW_PRIVATE_URLS=true. */
const PRIVATE = blockList(
  [
    ['127.0.0.0', 8],
    ['10.0.0.0', 8],
    ['172.16.0.0', 12],
    ['192.168.0.0', 16],
    ['100.64.0.0', 10], // carrier-grade NAT
  ],
  [
    ['::1', 128],
    ['fc00::', 7], // unique local
  ],
);

/** Never admitted: link-local and metadata, unspecified, multicast, broadcast, documentation and other reserved ranges. */
const FORBIDDEN = blockList(
  [
    ['0.0.0.0', 8],
    ['169.254.0.0', 16], // link-local; 169.254.169.254 is the cloud metadata service
    ['192.0.0.0', 24],
    ['192.0.2.0', 24],
    ['192.88.99.0', 24],
    ['198.18.0.0', 15],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 4], // multicast
    ['240.0.0.0', 4], // reserved, 255.255.255.255 included
  ],
  [
    ['::', 128],
    ['fe80::', 10], // link-local
    ['fd00:ec2::254', 128], // AWS metadata service over IPv6 (inside fc00::/7: checked before PRIVATE)
    ['ff00::', 8], // multicast
    ['2001:db8::', 32], // documentation
    ['2001::', 23], // IETF protocol assignments (Teredo among them)
    ['100::', 64], // discard-only
  ],
);

/** Global unicast IPv6: anything else (deprecated site-local, IPv4-compatible, ...) is refused. */
const GLOBAL_V6 = blockList([], [['2000::', 3]]);

function v4FromHex(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** The 8 groups of an IPv6 address (already known valid), an embedded dotted IPv4 tail included. */
function groupsOf(address: string): number[] {
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const h = head ? head.split(':').map((g) => Number.parseInt(g, 16)) : [];
  if (tail === undefined) return h;
  const t = tail ? tail.split(':').map((g) => Number.parseInt(g, 16)) : [];
  return [...h, ...new Array(8 - h.length - t.length).fill(0), ...t];
}

/**
 * The IPv4 address an IPv6 address stands for, when it embeds one that the network would reach:
 * IPv4-mapped (::ffff:a.b.c.d), NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:aabb:ccdd::). Checked as
 * IPv4, so ::ffff:127.0.0.1 is loopback and 64:ff9b::a9fe:a9fe is the metadata service.
 */
export function embeddedIpv4(address: string): string | undefined {
  const g = groupsOf(address);
  if (g.length !== 8) return undefined;
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return v4FromHex(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return v4FromHex(g[6], g[7]);
  if (g[0] === 0x2002) return v4FromHex(g[1], g[2]);
  return undefined;
}

/** Whether an IP address is public, private (loopback and private networks) or never admitted. */
export function classifyAddress(address: string): AddressClass {
  const family = net.isIP(address);
  if (family === 0) return 'forbidden';
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4) return classifyAddress(v4);
    const bare = address.split('%')[0];
    if (FORBIDDEN.check(bare, 'ipv6')) return 'forbidden';
    if (PRIVATE.check(bare, 'ipv6')) return 'private';
    return GLOBAL_V6.check(bare, 'ipv6') ? 'public' : 'forbidden';
  }
  if (FORBIDDEN.check(address, 'ipv4')) return 'forbidden';
  if (PRIVATE.check(address, 'ipv4')) return 'private';
  return 'public';
}

/** Why an address is refused, or undefined when webhooks may connect to it. */
export function refusedAddressReason(address: string, allowPrivate: boolean): string | undefined {
  const kind = classifyAddress(address);
  if (kind === 'public' || (kind === 'private' && allowPrivate)) return undefined;
  return kind === 'private'
    ? `${address} is a loopback or private address`
    : `${address} is a link-local, metadata, unspecified, multicast or reserved address`;
}

export class WebhookUrlError extends Error {
  override name = 'WebhookUrlError';
}

/** The host of a URL as an address, when it is an IP literal ([::1] → ::1). */
export function ipLiteral(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return net.isIP(bare) ? bare : undefined;
}

async function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new WebhookUrlError(what)), ms);
    timer.unref();
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The addresses of `hostname`, every one of them admitted, or a WebhookUrlError saying why not.
 * All must pass: a name that answers one public and one private address is refused as a whole.
 */
export async function admittedAddresses(
  hostname: string,
  options: { allowPrivate: boolean; resolver: WebhookResolver; timeoutMs: number },
): Promise<LookupAddress[]> {
  const literal = ipLiteral(hostname);
  let addresses: LookupAddress[];
  if (literal) {
    addresses = [{ address: literal, family: net.isIP(literal) }];
  } else {
    try {
      addresses = await withDeadline(options.resolver(hostname), options.timeoutMs, `The host '${hostname}' did not resolve in time.`);
    } catch (err) {
      if (err instanceof WebhookUrlError) throw err;
      throw new WebhookUrlError(`The host '${hostname}' does not resolve.`);
    }
    if (addresses.length === 0) throw new WebhookUrlError(`The host '${hostname}' does not resolve.`);
  }
  for (const { address } of addresses) {
    const reason = refusedAddressReason(address, options.allowPrivate);
    if (reason) throw new WebhookUrlError(`The host '${hostname}' resolves to ${reason}; webhooks go to public addresses only.`);
  }
  return addresses;
}

/** Parses and checks a webhook URL's form (scheme, credentials, length); the host is checked by `checkWebhookUrl`. */
export function parseWebhookUrl(text: string, allowPrivate: boolean): URL {
  if (text.length > MAX_WEBHOOK_URL_LENGTH) throw new WebhookUrlError(`The URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookUrlError('The URL is not a valid absolute URL.');
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    throw new WebhookUrlError(`The URL must use https (got '${url.protocol.replace(/:$/, '')}').`);
  }
  if (url.username || url.password)
    throw new WebhookUrlError('The URL must not contain credentials (user:password@); authenticate with the signature.');
  if (!url.hostname) throw new WebhookUrlError('The URL has no host.');
  return url;
}

/** The whole check of create / PATCH: form, then every address the host resolves to. */
export async function checkWebhookUrl(
  text: string,
  options: { allowPrivate: boolean; resolver: WebhookResolver; timeoutMs: number },
): Promise<URL> {
  const url = parseWebhookUrl(text, options.allowPrivate);
  await admittedAddresses(url.hostname, options);
  return url;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http(s).request: resolves with `resolver`, refuses the connection unless every
 * address is admitted, and hands the socket exactly those addresses. (IP-literal hosts never reach
 * a lookup: the sender checks them itself.)
 */
export function guardedLookup(options: { allowPrivate: boolean; resolver: WebhookResolver; timeoutMs: number }) {
  return (hostname: string, lookupOptions: LookupOneOptions | LookupOptions, callback: LookupCallback): void => {
    admittedAddresses(hostname, options).then(
      (addresses) => {
        const wanted =
          lookupOptions.family === 4 || lookupOptions.family === 6 ? addresses.filter((a) => a.family === lookupOptions.family) : addresses;
        const usable = wanted.length > 0 ? wanted : addresses;
        if ((lookupOptions as LookupOptions).all) callback(null, usable);
        else callback(null, usable[0].address, usable[0].family);
      },
      (err: Error) => {
        const error: NodeJS.ErrnoException = new Error(err.message);
        error.code = 'EWEBHOOKADDRESS';
        callback(error, '', 0);
      },
    );
  };
}

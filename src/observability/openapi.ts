// The public OpenAPI document: the partner operations of @fastify/swagger's document, with the
// headers every one of them carries declared once (components.headers) and referenced from each
// response, so that no route schema has to repeat them: x-request-id on every response, the rate
// limit fields on every authenticated one, Retry-After on 429 and 503.

type Json = Record<string, unknown>;

const header = (description: string, schema: Json = { type: 'string' }) => ({ description, schema });

export const COMMON_HEADERS = {
  XRequestId: header("The request's id: the caller's own x-request-id when safe (1-128 of [A-Za-z0-9._:-]), else a fresh UUID."),
  RateLimitLimit: header('Requests allowed per one-minute window for this key.', { type: 'integer' }),
  RateLimitRemaining: header('Requests left in the current window.', { type: 'integer' }),
  RateLimitReset: header('Seconds until the window resets.', { type: 'integer' }),
  RateLimitPolicy: header('The policy, IETF draft form: `"minute";q=<limit>;w=60`.'),
  RateLimit: header('The window, IETF draft form: `"minute";r=<remaining>;t=<seconds to reset>`.'),
  RetryAfter: header('Seconds to wait before retrying.', { type: 'integer' }),
  IdempotentReplayed: header('`true` when this answer is the stored answer of an earlier request with the same Idempotency-Key.'),
};

/** The request header every public POST takes (parsed by http/idempotency.ts, so a bad one is a 400, not a 422). */
const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the POST safe to retry: 1-255 printable ASCII characters (or an RFC 8941 quoted string), scoped to your organization and the user who minted the key, kept 24 hours. A retry with the same key and content gets the first answer back with `Idempotent-Replayed: true`; other content answers 422 `idempotency_key_reused`; while the first is still running, 409 `idempotency_key_in_use`.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

const ref = (name: keyof typeof COMMON_HEADERS) => ({ $ref: `#/components/headers/${name}` });
const RATE_LIMIT = {
  'RateLimit-Limit': ref('RateLimitLimit'),
  'RateLimit-Remaining': ref('RateLimitRemaining'),
  'RateLimit-Reset': ref('RateLimitReset'),
  'RateLimit-Policy': ref('RateLimitPolicy'),
  RateLimit: ref('RateLimit'),
};

/** The partner document: public paths only, each response declaring the common headers. */
export function publicDocument(served: Json): Json {
  const full = structuredClone(served);
  const paths = Object.fromEntries(
    Object.entries((full.paths ?? {}) as Record<string, Json>).filter(([path]) => path.startsWith('/public/v1/')),
  );
  for (const item of Object.values(paths)) {
    for (const [method, operation] of Object.entries(item) as [string, Json][]) {
      const responses = (operation.responses ?? {}) as Record<string, Json>;
      if (method === 'post') {
        operation.parameters = [...((operation.parameters ?? []) as Json[]), IDEMPOTENCY_KEY];
        responses['409'] ??= {
          description: 'idempotency_key_in_use: a request with this Idempotency-Key is still running',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/BusinessError' } } },
        };
        for (const [status, response] of Object.entries(responses)) {
          if (status.startsWith('2'))
            response.headers = { ...((response.headers ?? {}) as Json), 'Idempotent-Replayed': ref('IdempotentReplayed') };
        }
      }
      for (const [status, response] of Object.entries(responses)) {
        // 401 and the 400 of a malformed X-Organization-Id come before the key is known: no rate-limit fields.
        const counted = status !== '401';
        response.headers = {
          ...((response.headers ?? {}) as Json),
          'x-request-id': ref('XRequestId'),
          ...(counted ? RATE_LIMIT : {}),
          ...(status === '429' || status === '503' || status === '409' ? { 'Retry-After': ref('RetryAfter') } : {}),
        };
      }
    }
  }
  const components = (full.components ?? {}) as Json;
  return { ...full, paths, components: { ...components, headers: { ...((components.headers ?? {}) as Json), ...COMMON_HEADERS } } };
}

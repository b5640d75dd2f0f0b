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
    for (const operation of Object.values(item) as Json[]) {
      const responses = (operation.responses ?? {}) as Record<string, Json>;
      for (const [status, response] of Object.entries(responses)) {
        // 401 and the 400 of a malformed X-Organization-Id come before the key is known: no rate-limit fields.
        const counted = status !== '401';
        response.headers = {
          ...((response.headers ?? {}) as Json),
          'x-request-id': ref('XRequestId'),
          ...(counted ? RATE_LIMIT : {}),
          ...(status === '429' || status === '503' ? { 'Retry-After': ref('RetryAfter') } : {}),
        };
      }
    }
  }
  const components = (full.components ?? {}) as Json;
  return { ...full, paths, components: { ...components, headers: { ...((components.headers ?? {}) as Json), ...COMMON_HEADERS } } };
}

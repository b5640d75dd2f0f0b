// Idempotency-Key on the public POSTs (issue 10): a retry of a request that finished gets the
// stored answer back instead of running again. Routes opt in with `config.idempotent`; the hooks
// below are added to those routes only, after the API-key chain (onRequest) and after the one
// validation step (always the first preHandler), so auth failures, 422 validation errors and 429s
// never touch a key.
//
// The key's row (migration 0006) goes running → committed → done:
//   1. preHandler: look the key up. done: replay (same fingerprint) or 422; running under a live
//      lease, or committed: 409 + Retry-After: 1; absent or abandoned: claim it (one conditional
//      INSERT … ON CONFLICT, so of two instances racing exactly one wins).
//   2. The write's own transaction flips the row to committed (idempotency-scope.ts, through
//      recordAudit), by its lease token: effects and claim commit together or not at all.
//   3. onSend, before the client sees anything: store status, meaningful headers and body (done),
//      or, for a 5xx or an answer that must not be stored, delete the row while it is still
//      running (released: the retry runs again).
//
// The fingerprint is method + path + content: the raw JSON bytes (hashed in preParsing as they
// stream in), or for uploads each form part in order (fields by value, the file by the SHA-256 of
// its bytes, its filename and declared type), never the multipart boundary.
import { createHash, type Hash, randomUUID } from 'node:crypto';
import { pipeline, type Readable, Transform } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { AppContext } from '../context.js';
import { multipartForm } from '../files/form.js';
import { idempotencyKeyInUse, idempotencyKeyReused, invalidIdempotencyKey } from './errors.js';
import { type IdempotencyClaim, idempotencyScope } from './idempotency-scope.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** This POST honours Idempotency-Key: `json` fingerprints the raw body, `multipart` the streamed form. */
    idempotent?: 'json' | 'multipart';
  }
  interface FastifyRequest {
    /** Set when this request carries an Idempotency-Key on an idempotent route. */
    idempotency?: IdempotencyState;
  }
}

/** Incremental fingerprint of a multipart form, fed by files/form.ts as the parts stream in. */
export interface FormHasher {
  field(name: string, value: unknown): void;
  /** The file's stream, passed through a hash of its bytes. */
  file(name: string, filename: string | undefined, mimetype: string, stream: Readable): Readable;
  /** The form was read to its end. */
  end(): void;
}

interface IdempotencyState {
  /** The raw JSON body's hash, fed by preParsing. */
  body?: Hash;
  form?: FormHasher;
  claim?: IdempotencyClaim;
  /** Answered or stored once: onSend does nothing more. */
  settled?: boolean;
}

/** Response headers that belong to the answer itself and are replayed; the rest is per response. */
const REPLAYED_HEADERS = ['content-type', 'location', 'etag', 'last-modified', 'content-location'];

/**
 * The key, or undefined when malformed: 1-255 printable ASCII characters (0x20-0x7E), bare or as a
 * structured-field string ("…" with \" and \\ escapes, draft-ietf-httpapi-idempotency-key-header).
 * Both forms name the same key.
 */
export function parseIdempotencyKey(value: string | string[] | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  let key = value;
  if (value.startsWith('"')) {
    const quoted = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/.exec(value);
    if (!quoted) return undefined;
    key = quoted[1].replace(/\\(["\\])/g, '$1');
  }
  return key.length >= 1 && key.length <= 255 && /^[\x20-\x7e]+$/.test(key) ? key : undefined;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const requestLine = (request: FastifyRequest) => `${request.method} ${request.url.split('?')[0]}`;

function formHasher(request: FastifyRequest): FormHasher & { fingerprint(): string | undefined } {
  const parts: unknown[] = [];
  let pendingFiles = 0;
  let ended = false;
  return {
    field(name, value) {
      parts.push({ field: name, value: typeof value === 'string' ? value : null });
    },
    file(name, filename, mimetype, stream) {
      const entry: { file: string; filename: string | null; type: string; sha256?: string } = {
        file: name,
        filename: filename ?? null,
        type: mimetype,
      };
      parts.push(entry);
      pendingFiles++;
      const hash = createHash('sha256');
      const hashed = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash.update(chunk);
          done(null, chunk);
        },
        flush(done) {
          entry.sha256 = hash.digest('hex');
          pendingFiles--;
          done();
        },
      });
      // pipeline, not pipe: the parser's errors reach the reader, and a reader that gives up
      // (destroying the stream) releases the parser too.
      return pipeline(stream, hashed, () => {});
    },
    end() {
      ended = true;
    },
    fingerprint: () => (ended && pendingFiles === 0 ? sha256(`${requestLine(request)}\n${JSON.stringify(parts)}`) : undefined),
  };
}

export function installIdempotency(app: FastifyInstance, ctx: Pick<AppContext, 'db' | 'clock' | 'config'>) {
  const { db, clock, config } = ctx;
  // A request holds its key at most as long as a request may last; one whose instance died is
  // then taken over by its retry.
  const leaseMs = (config.httpTimeouts.requestSeconds + 30) * 1000;
  const ttlMs = config.idempotencyTtlHours * 3600_000;

  const row = (claim: Pick<IdempotencyClaim, 'orgId' | 'userId' | 'key'>) =>
    db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('org_id', '=', claim.orgId)
      .where('user_id', '=', claim.userId)
      .where('key', '=', claim.key);

  /** Replays a done key's response when the fingerprints match; 422 when they do not. */
  async function replayOrRefuse(
    request: FastifyRequest,
    reply: FastifyReply,
    state: IdempotencyState,
    stored: {
      fingerprint: string | null;
      response_status: number | null;
      response_headers: Record<string, string> | null;
      response_body: string | null;
    },
  ) {
    let fingerprint: string | undefined;
    if (request.routeOptions.config.idempotent === 'multipart') {
      // Read the retried form to its end through the hasher, storing nothing.
      const form = multipartForm(request, config.maxUploadBytes);
      for (let part = await form.next(); part; part = await form.next()) {
        if (part.kind === 'file') for await (const _ of part.stream) void _;
      }
      fingerprint = (state.form as ReturnType<typeof formHasher>).fingerprint();
    } else {
      fingerprint = jsonFingerprint(request, state);
    }
    if (fingerprint !== stored.fingerprint) throw idempotencyKeyReused();
    state.settled = true;
    for (const [name, value] of Object.entries(stored.response_headers ?? {})) reply.header(name, value);
    reply.header('idempotent-replayed', 'true');
    return reply.code(stored.response_status ?? 200).send(stored.response_body);
  }

  const jsonFingerprint = (request: FastifyRequest, state: IdempotencyState) =>
    sha256(`${requestLine(request)}\n${state.body?.copy().digest('hex') ?? createHash('sha256').digest('hex')}`);

  async function before(request: FastifyRequest, reply: FastifyReply) {
    const header = request.headers['idempotency-key'];
    if (header === undefined) return;
    const key = parseIdempotencyKey(header);
    if (key === undefined) throw invalidIdempotencyKey();
    const auth = request.auth;
    if (!auth) return; // every public route has the API-key hook in front
    request.idempotency ??= {};
    const state = request.idempotency;
    const multipart = request.routeOptions.config.idempotent === 'multipart';
    const hasher = multipart ? formHasher(request) : undefined;
    state.form = hasher;
    const scope = { orgId: auth.orgId, userId: auth.userId, key };
    const now = clock.now();
    const stale = new Date(now.getTime() - ttlMs);

    // Claim first, in one statement: the key is taken when it is absent, abandoned (lease expired
    // while running) or past its TTL, so two instances racing for one key cannot both win, and a new
    // key (the common case) costs one round trip. Otherwise the row says why: replay or 409.
    const token = randomUUID();
    const fingerprint = multipart ? null : jsonFingerprint(request, state);
    const claimed = await db
      .insertInto('idempotency_keys')
      .values({
        org_id: scope.orgId,
        user_id: scope.userId,
        key,
        fingerprint,
        state: 'running',
        lease_token: token,
        lease_expires_at: new Date(now.getTime() + leaseMs),
        created_at: now,
      })
      .onConflict((oc) =>
        oc
          .columns(['org_id', 'user_id', 'key'])
          .doUpdateSet((eb) => ({
            fingerprint: eb.ref('excluded.fingerprint'),
            state: 'running',
            lease_token: eb.ref('excluded.lease_token'),
            lease_expires_at: eb.ref('excluded.lease_expires_at'),
            response_status: null,
            response_headers: null,
            response_body: null,
            created_at: eb.ref('excluded.created_at'),
          }))
          .where((eb) =>
            eb.or([
              eb.and([eb('idempotency_keys.state', '=', 'running'), eb('idempotency_keys.lease_expires_at', '<=', now)]),
              eb('idempotency_keys.created_at', '<=', stale),
            ]),
          ),
      )
      .returning('lease_token')
      .executeTakeFirst();
    if (!claimed) {
      // Held by a live request, committed, or done (the first request, or the winner of a race).
      const holder = await row(scope).executeTakeFirst();
      if (holder?.state === 'done') return replayOrRefuse(request, reply, state, holder);
      throw idempotencyKeyInUse();
    }
    state.claim = {
      ...scope,
      token,
      fingerprint: () => (hasher ? hasher.fingerprint() : (fingerprint ?? undefined)),
      committedIn: new WeakSet(),
    };
  }

  /** Stores the answer of a claimed request, or releases its key; never changes the answer. */
  async function after(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const state = request.idempotency;
    const claim = state?.claim;
    if (!state || !claim || state.settled) return payload;
    state.settled = true;
    const status = reply.statusCode;
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
    const fingerprint = claim.fingerprint();
    // Not stored: 5xx (nothing committed, the retry runs again), 429s, schema-shaped 422s (the
    // uploads' missing file is decided in the service), and an answer decided before an upload's
    // form was read (its fingerprint is unknown; the retry simply runs again).
    const storable =
      status < 500 &&
      status !== 429 &&
      !(status === 422 && body?.startsWith('{"detail":[')) &&
      body !== undefined &&
      fingerprint !== undefined;
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    const response = { response_status: status, response_headers: JSON.stringify(headers), response_body: body ?? '' };
    const mine = db
      .updateTable('idempotency_keys')
      .where('org_id', '=', claim.orgId)
      .where('user_id', '=', claim.userId)
      .where('key', '=', claim.key)
      .where('lease_token', '=', claim.token);
    try {
      if (storable) {
        await mine.set({ state: 'done', fingerprint, ...response }).execute();
      } else {
        await db
          .deleteFrom('idempotency_keys')
          .where('org_id', '=', claim.orgId)
          .where('user_id', '=', claim.userId)
          .where('key', '=', claim.key)
          .where('lease_token', '=', claim.token)
          .where('state', '=', 'running')
          .execute();
        // Effects committed before the failure: releasing would run them twice, so what the client
        // was answered is what its retries get.
        await mine
          .where('state', '=', 'committed')
          .set({ state: 'done', ...response })
          .execute();
      }
    } catch (err) {
      // The client still gets its answer; the key stays held until its lease (running) or TTL (committed).
      request.log.error({ err, idempotencyKey: claim.key }, 'could not store the idempotent response');
    }
    return payload;
  }

  /** Hashes the raw JSON bytes on their way to the parser, only when a key was sent. */
  async function hashBody(request: FastifyRequest, _reply: FastifyReply, payload: Readable) {
    if (request.headers['idempotency-key'] === undefined) return payload;
    const hash = createHash('sha256');
    request.idempotency ??= {};
    request.idempotency.body = hash;
    const hashed = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        done(null, chunk);
      },
    });
    return pipeline(payload, hashed, () => {});
  }

  app.addHook('onRoute', (route: RouteOptions) => {
    const mode = route.config?.idempotent;
    if (!mode) return;
    const list = <T>(hooks: T | T[] | undefined): T[] => (hooks ? (([] as T[]).concat(hooks).flat() as T[]) : []);
    // After the validation step, which installRequestValidation keeps first.
    route.preHandler = [...list(route.preHandler), before] as RouteOptions['preHandler'];
    route.onSend = [...list(route.onSend), after] as RouteOptions['onSend'];
    if (mode === 'json') route.preParsing = [...list(route.preParsing), hashBody] as RouteOptions['preParsing'];
    // The handler runs inside the claim's scope, so that its write transaction can commit the claim.
    const handler = route.handler;
    route.handler = function idempotentHandler(this: FastifyInstance, request, reply) {
      const claim = request.idempotency?.claim;
      return claim ? idempotencyScope.run(claim, () => handler.call(this, request, reply)) : handler.call(this, request, reply);
    };
  });
}

/** Purges keys past IDEMPOTENCY_TTL_HOURS (the periodic jobs); answers how many went. */
export async function purgeIdempotencyKeys(db: AppContext['db'], now: Date, ttlHours: number): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('created_at', '<=', new Date(now.getTime() - ttlHours * 3600_000))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

// The API-key check chain of decisions.md section 1, steps 2 to 12, as one onRequest hook.
// It runs before the body is read, so a refused request costs no parsing.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthRepository, KeyPrincipal } from '../accounts/auth-repository.js';
import { apiKeyDigest, parseBearer } from '../accounts/keys.js';
import type { PrincipalCache } from '../accounts/principal-cache.js';
import type { SecurityAlertsRepository } from '../accounts/security-alerts.js';
import type { Clock } from '../clock.js';
import type { Capability, SubscriptionStatus } from '../domain/accounts.js';
import { isUuid } from '../domain/ids.js';
import type { Metrics } from '../observability/metrics.js';
import {
  type ApiError,
  apiAccessDisabled,
  apiKeyCreatorRevoked,
  apiKeyExpired,
  insufficientCapability,
  invalidApiKey,
  invalidOrganizationHeader,
  missingOrMalformedAuthorization,
  organizationMismatch,
  orgChurned,
  orgInactive,
  subscriptionRequired,
  tooManyRequests,
} from './errors.js';
import type { RateLimitResult, RateLimitStore } from './rate-limit.js';

export type { Capability };

export interface RequestAuth {
  keyId: string;
  keyPrefix: string;
  orgId: string;
  userId: string;
  email: string;
  capabilities: Capability[];
}

declare module 'fastify' {
  interface FastifyRequest {
    auth?: RequestAuth;
  }
  interface FastifyContextConfig {
    /** Capability the key's minter needs for this route (step 12). */
    capability?: Capability;
  }
}

const WINDOW_MS = 60_000;
const GOOD_SUBSCRIPTIONS = new Set<SubscriptionStatus>(['active', 'trialing']);

export interface AuthDeps {
  repo: AuthRepository;
  alerts: Pick<SecurityAlertsRepository, 'record'>;
  cache: PrincipalCache;
  limiter: RateLimitStore;
  clock: Clock;
  metrics: Metrics;
  ratePerMinute: number;
  authFailuresPerMinute: number;
}

/** The limiter's answer, or undefined when it failed (the request then passes uncounted). */
type Window = RateLimitResult | undefined;

const isPromise = <T>(value: T | Promise<T>): value is Promise<T> => typeof (value as { then?: unknown } | undefined)?.then === 'function';

/**
 * The hook. Written without async: a request whose principal is cached, counted by the in-memory
 * limiter (nearly every one), passes with no promise at all; a cache miss, a shared limiter and the
 * refusals that record something continue on promises.
 */
export function apiKeyAuthHook(deps: AuthDeps) {
  const { repo, alerts, cache, limiter, clock, metrics } = deps;
  const policy = `"minute";q=${deps.ratePerMinute};w=${WINDOW_MS / 1000}`;

  // A limiter outage must not take the API down with it: the request passes, and the log says why.
  function count(request: FastifyRequest, key: string): Window | Promise<Window> {
    try {
      const window = limiter.hit(key, WINDOW_MS);
      return isPromise(window) ? window.catch((err) => uncounted(request, err)) : window;
    } catch (err) {
      return uncounted(request, err);
    }
  }

  function uncounted(request: FastifyRequest, err: unknown): Window {
    request.log.warn({ err }, 'rate limiter unavailable; request not counted');
    return undefined;
  }

  /** Steps 2-4 failures also spend the caller IP's small budget, so keys cannot be probed at speed. */
  async function unauthenticated(request: FastifyRequest, error: ApiError): Promise<never> {
    const window = await count(request, `authfail:${request.ip}`);
    if (window && window.count > deps.authFailuresPerMinute) {
      metrics.authFailures.inc({ code: 'too_many_requests' });
      throw tooManyRequests(Math.max(1, Math.ceil(window.resetMs / 1000)));
    }
    return refuse(error);
  }

  function refuse(error: ApiError): never {
    metrics.authFailures.inc({ code: error.errorCode ?? 'unknown' });
    throw error;
  }

  /** Steps 2-4: the key and the organization header, then the principal (cached, or read). */
  function identify(request: FastifyRequest, reply: FastifyReply): void | Promise<void> {
    const token = parseBearer(request.headers.authorization);
    if (!token) return unauthenticated(request, missingOrMalformedAuthorization());

    const orgHeader = request.headers['x-organization-id'];
    if (typeof orgHeader !== 'string' || !isUuid(orgHeader.trim())) {
      return unauthenticated(request, invalidOrganizationHeader());
    }
    const claimedOrg = orgHeader.trim().toLowerCase();

    const digest = apiKeyDigest(token);
    const now = clock.now();
    const cached = cache.get(digest, now.getTime());
    if (cached) return counted(request, reply, cached, claimedOrg, now);
    const generation = cache.generation;
    return repo.findPrincipal(digest).then((principal) => {
      if (!principal) return unauthenticated(request, invalidApiKey());
      cache.set(digest, principal, now.getTime(), generation);
      return counted(request, reply, principal, claimedOrg, now);
    });
  }

  /**
   * The limiter's bucket of a cached principal. A key joined per request is a new string that the
   * limiter's Map must flatten and hash every time (0.57 µs against 0.04 for this lookup by object, in
   * a loop); a principal stays the same object while it is cached.
   */
  const buckets = new WeakMap<KeyPrincipal, string>();
  function bucketOf(principal: KeyPrincipal): string {
    let bucket = buckets.get(principal);
    if (bucket === undefined) {
      bucket = `key:${principal.key_id}`;
      buckets.set(principal, bucket);
    }
    return bucket;
  }

  /** Step 5: every request presenting a known key counts, whatever the later steps decide. */
  function counted(request: FastifyRequest, reply: FastifyReply, principal: KeyPrincipal, claimedOrg: string, now: Date) {
    const window = count(request, bucketOf(principal));
    return isPromise(window)
      ? window.then((w) => admit(request, reply, principal, claimedOrg, now, w))
      : admit(request, reply, principal, claimedOrg, now, window);
  }

  /** Steps 5 (its headers and refusal) to 12. */
  function admit(
    request: FastifyRequest,
    reply: FastifyReply,
    principal: KeyPrincipal,
    claimedOrg: string,
    now: Date,
    window: Window,
  ): void | Promise<void> {
    if (window) {
      const resetSeconds = Math.max(1, Math.ceil(window.resetMs / 1000));
      const remaining = Math.max(0, deps.ratePerMinute - window.count);
      // The names of decisions.md section 1, which clients read today...
      reply.header('ratelimit-limit', deps.ratePerMinute);
      reply.header('ratelimit-remaining', remaining);
      reply.header('ratelimit-reset', resetSeconds);
      // ...and the current IETF draft's structured fields (draft-ietf-httpapi-ratelimit-headers).
      reply.header('ratelimit-policy', policy);
      reply.header('ratelimit', `"minute";r=${remaining};t=${resetSeconds}`);
      if (window.count > deps.ratePerMinute) refuse(tooManyRequests(resetSeconds));
    }

    if (principal.expires_at && principal.expires_at.getTime() <= now.getTime()) refuse(apiKeyExpired());

    if (principal.key_org_id !== claimedOrg) {
      metrics.securityAlerts.inc({ kind: 'organization_mismatch' });
      request.log.warn(
        { alert: 'organization_mismatch', apiKeyId: principal.key_id, keyOrgId: principal.key_org_id, claimedOrgId: claimedOrg },
        'API key presented with another organization',
      );
      return alerts
        .record({
          kind: 'organization_mismatch',
          orgId: principal.key_org_id,
          apiKeyId: principal.key_id,
          details: {
            claimed_org_id: claimedOrg,
            api_key_prefix: principal.key_prefix,
            ip: request.ip,
            method: request.method,
            path: request.routeOptions.url ?? request.url.split('?')[0],
            request_id: request.id,
          },
        })
        .then(() => refuse(organizationMismatch()));
    }

    if (principal.account_status === 'inactive') refuse(orgInactive());
    if (principal.account_status === 'churned') refuse(orgChurned());
    if (!GOOD_SUBSCRIPTIONS.has(principal.subscription_status)) refuse(subscriptionRequired(principal.subscription_status));
    if (!principal.api_access_enabled) refuse(apiAccessDisabled());
    if (principal.user_status !== 'active' || principal.user_org_id !== principal.key_org_id) refuse(apiKeyCreatorRevoked());

    const needed = request.routeOptions.config.capability;
    if (needed && !principal.capabilities.includes(needed)) refuse(insufficientCapability(needed));

    request.auth = {
      keyId: principal.key_id,
      keyPrefix: principal.key_prefix,
      orgId: principal.key_org_id,
      userId: principal.user_id,
      email: principal.user_email,
      capabilities: principal.capabilities,
    };

    if (!principal.last_used_at || now.getTime() - principal.last_used_at.getTime() > WINDOW_MS) {
      principal.last_used_at = now; // the cached copy too, so the next minute's requests do not write again
      repo.touch(principal.key_id, now).catch((err) => request.log.warn({ err }, 'could not record key use'));
    }
  }

  return function authenticate(request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void {
    let pending: void | Promise<void>;
    try {
      pending = identify(request, reply);
    } catch (err) {
      done(err as Error);
      return;
    }
    if (pending) pending.then(() => done(), done);
    else done();
  };
}

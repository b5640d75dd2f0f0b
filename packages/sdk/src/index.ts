// @aviation-marketplace/partner-sdk: a typed client of the aviation marketplace partner API.
export { type ClientOptions, createClient, PartnerClient, type WriteOptions } from './client.js';
export {
  ApiError,
  type BusinessDetail,
  BusinessError,
  CursorExpired,
  errorFromResponse,
  Forbidden,
  NetworkError,
  NotFound,
  PartnerSdkError,
  PreconditionFailed,
  RateLimited,
  ServiceUnavailable,
  TimeoutError,
  Unauthorized,
  ValidationError,
  type ValidationIssue,
} from './errors.js';
export {
  type EventListQuery,
  type EventPage,
  EventStream,
  type EventType,
  type FeedEvent,
  type FollowOptions,
  type KnownEventType,
} from './events.js';
export type { components, operations, paths } from './schema.js';
export { type CallOptions, DEFAULT_POLICY, type FetchLike, type RetryPolicy } from './transport.js';
export type * from './types.js';
export {
  type VerifiedWebhook,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookHeaders,
  type WebhookMessage,
  WebhookVerificationError,
} from './webhooks.js';

// Names for the generated types (schema.ts), taken from the operations so that they follow the
// document whatever its component names: a change of the service's schemas shows up here as a
// type error after `npm run sdk:generate`.
import type { operations } from './schema.js';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Ok<Op, Status extends number> = Op extends { responses: { [S in Status]: infer R } } ? Json<R> : never;
type Body<Op> = Op extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type Query<Op> = Op extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** A teardown in the detail shape (create, read, update): `teardown_id`, `tail_number`, `country`. */
export type Teardown = Ok<operations['getTeardown'], 200>;
/** A teardown in the list's legacy shape: `id`, `registration`, `location_country`. */
export type TeardownListItem = TeardownPage['items'][number];
export type TeardownPage = Ok<operations['listTeardowns'], 200>;
export type TeardownCreate = Body<operations['createTeardown']>;
export type TeardownUpdate = Body<operations['updateTeardown']>;
/** Every list filter is optional: the service's defaults are page 1, 20 per page, created_at desc. */
export type TeardownListQuery = Partial<Query<operations['listTeardowns']>>;
export type TeardownTransition = Body<operations['transitionTeardown']>;
/** The transition answer's legacy shape: `id`, `status`, `previous_status`. */
export type TeardownTransitionResult = Ok<operations['transitionTeardown'], 200>;
export type TeardownStatus = Teardown['status'];

export type Listing = Ok<operations['getListing'], 200>;
export type ListingListItem = ListingPage['items'][number];
export type ListingPage = Ok<operations['listListings'], 200>;
export type ListingCreate = Body<operations['createListing']>;
export type ListingUpdate = Body<operations['updateListing']>;
export type ListingListQuery = Partial<Query<operations['listListings']>>;
export type ListingStatus = Listing['status'];

/** The answer of every upload: where the file is stored and what was kept of it. */
export type UploadResult = Ok<operations['uploadTeardownDocument'], 200>;

/** A webhook endpoint as read, listed or updated: never its secret. */
export type WebhookEndpoint = Ok<operations['getWebhookEndpoint'], 200>;
/** The answer of create and rotate-secret: the endpoint and its signing `secret` (`whsec_...`), shown only then. */
export type WebhookEndpointWithSecret = Ok<operations['createWebhookEndpoint'], 201>;
export type WebhookEndpointCreate = Body<operations['createWebhookEndpoint']>;
export type WebhookEndpointUpdate = Body<operations['updateWebhookEndpoint']>;
/** What `POST /webhook-endpoints/{id}/test` answers: the test event's id and your endpoint's answer. */
export type WebhookTestResult = Ok<operations['testWebhookEndpoint'], 200>;
export type WebhookDeliveryPage = Ok<operations['listWebhookDeliveries'], 200>;
/** One delivery attempt (newest first): event, attempt number, your status code or the error, duration, next retry. */
export type WebhookDelivery = WebhookDeliveryPage['items'][number];
export type WebhookDeliveryQuery = Partial<Query<operations['listWebhookDeliveries']>>;

/** A record with the ETag it was read (or written) with: pass `etag` as `ifMatch` to the next update. */
export interface Tagged<T> {
  data: T;
  etag: string | undefined;
}

/** The four named document slots of a teardown (path segment of their endpoints). */
export type TeardownSlot = 'harvest-list' | 'occm' | 'aircraft-details' | 'non-incident-statement';

/** A file to upload: a Blob (or File) and the name to store it under. */
export interface FileInput {
  file: Blob;
  /** Default: the File's own name, else `upload`. */
  filename?: string;
  /** Declared type when `file` carries none (a Blob without type); the service infers from the extension otherwise. */
  contentType?: string;
}

/** Audience of a document: the contract's six values (case-insensitive on the wire). */
export type Audience = 'Airline' | 'Lessor' | 'OEM' | 'MRO' | 'Distributor' | 'Others';

export interface DocumentUpload extends FileInput {
  /** Restricts who sees the record's documents; sent as the comma-separated form field. */
  audience?: Audience[];
}

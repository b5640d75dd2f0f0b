// The client: auth headers, the retrying transport, and one method per public operation, each
// typed by the generated schema through openapi-fetch (paths, parameters and bodies are checked
// against the document at compile time).
import createFetchClient, { type Client } from 'openapi-fetch';
import { errorFromResponse } from './errors.js';
import { type EventListQuery, type EventPage, EventStream, type FollowOptions } from './events.js';
import type { paths } from './schema.js';
import { type CallOptions, createTransport, DEFAULT_POLICY, type FetchLike, type Transport } from './transport.js';
import type {
  DocumentUpload,
  FileInput,
  Listing,
  ListingCreate,
  ListingListItem,
  ListingListQuery,
  ListingPage,
  ListingUpdate,
  Tagged,
  Teardown,
  TeardownCreate,
  TeardownListItem,
  TeardownListQuery,
  TeardownPage,
  TeardownSlot,
  TeardownTransition,
  TeardownTransitionResult,
  TeardownUpdate,
  UploadResult,
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookDeliveryQuery,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointUpdate,
  WebhookEndpointWithSecret,
  WebhookTestResult,
} from './types.js';

export interface ClientOptions {
  /** The service's origin, e.g. `https://api.example.com` (a trailing `/public/v1` is accepted too). */
  baseUrl: string;
  /** `svc_live_...`, sent as `Authorization: Bearer <apiKey>`. */
  apiKey: string;
  /** Sent as `X-Organization-Id`; must be the organization the key was minted in. */
  organizationId: string;
  /** Default `globalThis.fetch`. */
  fetch?: FetchLike;
  /** Deadline of one attempt (default 30,000 ms). */
  timeoutMs?: number;
  /** Deadline of a call, retries and waits included (default 90,000 ms). */
  totalBudgetMs?: number;
  /** Retries after the first attempt (default 4; 0 disables retrying). */
  maxRetries?: number;
}

/** Options of a write on an existing record. */
export interface WriteOptions extends CallOptions {
  /** Only write if the record still has this ETag (from a read or an earlier write); else PreconditionFailed. */
  ifMatch?: string;
}

/** What openapi-fetch answers: the typed success body, or the typed error body, and the Response. */
type Result = { data?: unknown; error?: unknown; response: Response };
/** The success branch's `data` of an openapi-fetch answer (its error branch has no `data`). */
type DataOf<R> = R extends { data: infer D; error?: never } ? D : never;

/** The data of a success, or the typed error of anything else. */
function unwrap<R extends Result>(result: R): DataOf<R> {
  if (!result.response.ok || result.error !== undefined) throw errorFromResponse(result.response, result.error);
  // A success: openapi-fetch put the body parsed as the document's success response in `data`
  // (undefined for a 204). Its union does not narrow on `response.ok`, hence the one assertion.
  return result.data as DataOf<R>;
}

/**
 * The If-Match header of a write, as a plain header rather than the document's header parameter:
 * the SDK does not depend on how the document spells or documents it.
 */
const ifMatch = (options: WriteOptions): Record<string, string | undefined> => ({ 'if-match': options.ifMatch });

const tagged = <R extends Result>(result: R): Tagged<DataOf<R>> => ({ data: unwrap(result), etag: result.response.headers.get('etag') ?? undefined });

/** The multipart body of an upload: `audience` (comma-separated) before `file`. */
function uploadBody(input: DocumentUpload): { file: Blob; audience?: string } {
  const name = input.filename ?? (typeof File !== 'undefined' && input.file instanceof File ? input.file.name : 'upload');
  const type = input.file.type || input.contentType || '';
  const file = new File([input.file], name, type ? { type } : {});
  return input.audience === undefined ? { file } : { audience: input.audience.join(','), file };
}

function formData(body: { file: Blob; audience?: string }): FormData {
  const form = new FormData();
  if (body.audience !== undefined) form.append('audience', body.audience);
  form.append('file', body.file);
  return form;
}

/** Every page of a page-numbered list, each item once even when pages shift under the reader. */
async function* allItems<Item extends { id: string }>(
  readPage: (page: number) => Promise<{ items: Item[]; page: number; pages: number }>,
  firstPage: number,
): AsyncGenerator<Item> {
  const seen = new Set<string>();
  for (let page = firstPage; ; page++) {
    const answer = await readPage(page);
    for (const item of answer.items) {
      if (seen.has(item.id)) continue;
      seen.add(item.id);
      yield item;
    }
    if (answer.items.length === 0 || page >= answer.pages) return;
  }
}

export class PartnerClient {
  /** The typed openapi-fetch client under the resources, for anything they do not cover. */
  readonly http: Client<paths>;
  readonly teardowns: Teardowns;
  readonly listings: Listings;
  readonly events: Events;
  readonly webhookEndpoints: WebhookEndpoints;
  readonly #transport: Transport;

  constructor(options: ClientOptions) {
    const baseUrl = options.baseUrl.replace(/\/+$/, '').replace(/\/public\/v1$/, '');
    const headers = { authorization: `Bearer ${options.apiKey}`, 'x-organization-id': options.organizationId };
    this.#transport = createTransport({
      fetch: options.fetch ?? ((request) => globalThis.fetch(request)),
      policy: {
        ...DEFAULT_POLICY,
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        ...(options.totalBudgetMs === undefined ? {} : { totalBudgetMs: options.totalBudgetMs }),
        ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
      },
    });
    const transport = this.#transport;
    this.http = createFetchClient<paths>({ baseUrl, headers, fetch: (request) => transport(request) });
    this.teardowns = new Teardowns(this.http, transport);
    this.listings = new Listings(this.http, transport);
    this.events = new Events((query, call) => this.#readEvents(query, call));
    this.webhookEndpoints = new WebhookEndpoints(this.http, transport);
  }

  /** One page of GET /events through the typed client: `types` go comma-separated, as the document says. */
  async #readEvents(query: EventListQuery, call?: CallOptions): Promise<EventPage> {
    const { types, ...rest } = query;
    const params = types === undefined || types.length === 0 ? rest : { ...rest, types: types.join(',') };
    return unwrap(await this.http.GET('/public/v1/events', { params: { query: params }, fetch: via(this.#transport, call) }));
  }
}

/** A client for one API key and organization. */
export function createClient(options: ClientOptions): PartnerClient {
  return new PartnerClient(options);
}

/** A function that sends a Request through the retrying transport with this call's options. */
const via = (transport: Transport, call: CallOptions | undefined) => (request: Request) => transport(request, call);

class Teardowns {
  readonly #http: Client<paths>;
  readonly #transport: Transport;
  constructor(http: Client<paths>, transport: Transport) {
    this.#http = http;
    this.#transport = transport;
  }

  /** POST /teardowns: published at once. Sent with an Idempotency-Key, so retries never create two. */
  async create(body: TeardownCreate, options?: CallOptions): Promise<Tagged<Teardown>> {
    return tagged(await this.#http.POST('/public/v1/teardowns', { body, fetch: via(this.#transport, options) }));
  }

  /** GET /teardowns/{id}, with its ETag. Unknown or another organization's id: NotFound. */
  async get(teardownId: string, options?: CallOptions): Promise<Tagged<Teardown>> {
    return tagged(
      await this.#http.GET('/public/v1/teardowns/{teardown_id}', {
        params: { path: { teardown_id: teardownId } },
        fetch: via(this.#transport, options),
      }),
    );
  }

  /** GET with If-None-Match: `undefined` while the teardown still has `etag` (304, no body sent), else it anew. */
  async getIfChanged(teardownId: string, etag: string, options?: CallOptions): Promise<Tagged<Teardown> | undefined> {
    const result = await this.#http.GET('/public/v1/teardowns/{teardown_id}', {
      params: { path: { teardown_id: teardownId } },
      headers: { 'if-none-match': etag },
      fetch: via(this.#transport, options),
    });
    return result.response.status === 304 ? undefined : tagged(result);
  }

  /** One page of GET /teardowns (legacy item names: `id`, `registration`, `location_country`). */
  async listPage(query: TeardownListQuery = {}, options?: CallOptions): Promise<TeardownPage> {
    const full = { sort_by: 'created_at', sort_dir: 'desc', page: 1, per_page: 20, ...query } as const;
    return unwrap(await this.#http.GET('/public/v1/teardowns', { params: { query: full }, fetch: via(this.#transport, options) }));
  }

  /** Every teardown matching `query`, page after page (from `query.page`, default 1). */
  list(query: TeardownListQuery = {}, options?: CallOptions): AsyncIterable<TeardownListItem> {
    return allItems((page) => this.listPage({ ...query, page }, options), query.page ?? 1);
  }

  /** PATCH /teardowns/{id}: only the keys sent are written; `null` clears a nullable field. */
  async update(teardownId: string, body: TeardownUpdate, options: WriteOptions = {}): Promise<Tagged<Teardown>> {
    return tagged(
      await this.#http.PATCH('/public/v1/teardowns/{teardown_id}', {
        params: { path: { teardown_id: teardownId } },
        headers: ifMatch(options),
        body,
        fetch: via(this.#transport, options),
      }),
    );
  }

  /** POST /teardowns/transition/{id}: `start_processing`, `complete`, `unpublish`, `archive`, `restore`, `submit`. */
  async transition(
    teardownId: string,
    action: TeardownTransition | TeardownTransition['action'],
    options: WriteOptions = {},
  ): Promise<Tagged<TeardownTransitionResult>> {
    const body = typeof action === 'string' ? { action } : action;
    return tagged(
      await this.#http.POST('/public/v1/teardowns/transition/{teardown_id}', {
        params: { path: { teardown_id: teardownId } },
        headers: ifMatch(options),
        body,
        fetch: via(this.#transport, options),
      }),
    );
  }

  /** DELETE /teardowns/{id}: the record and its files. A retry that finds it already gone succeeds. */
  async delete(teardownId: string, options: WriteOptions = {}): Promise<void> {
    unwrap(
      await this.#http.DELETE('/public/v1/teardowns/{teardown_id}', {
        params: { path: { teardown_id: teardownId } },
        headers: ifMatch(options),
        fetch: via(this.#transport, options),
      }),
    );
  }

  /** Generic documents: appended to `documents[]`; `audience` applies to the teardown's documents. */
  readonly documents = {
    upload: async (teardownId: string, input: DocumentUpload, options: WriteOptions = {}): Promise<UploadResult> =>
      unwrap(
        await this.#http.POST('/public/v1/teardown/documents/{teardown_id}', {
          params: { path: { teardown_id: teardownId } },
          headers: ifMatch(options),
          body: uploadBody(input),
          bodySerializer: formData,
          fetch: via(this.#transport, options),
        }),
      ),
    /** Removes the URL from `documents[]` (and the file); an absent URL is not an error. */
    remove: async (teardownId: string, url: string, options: WriteOptions = {}): Promise<void> => {
      unwrap(
        await this.#http.DELETE('/public/v1/teardown/documents/{teardown_id}/by-url', {
          params: { path: { teardown_id: teardownId }, query: { url } },
          headers: ifMatch(options),
          fetch: via(this.#transport, options),
        }),
      );
    },
  };

  /** Images (JPEG, PNG, WEBP, GIF): appended to `images[]`; not covered by audience. */
  readonly images = {
    upload: async (teardownId: string, input: FileInput, options: WriteOptions = {}): Promise<UploadResult> =>
      unwrap(
        await this.#http.POST('/public/v1/teardown/images/{teardown_id}', {
          params: { path: { teardown_id: teardownId } },
          headers: ifMatch(options),
          body: uploadBody(input),
          bodySerializer: formData,
          fetch: via(this.#transport, options),
        }),
      ),
    remove: async (teardownId: string, url: string, options: WriteOptions = {}): Promise<void> => {
      unwrap(
        await this.#http.DELETE('/public/v1/teardown/images/{teardown_id}/by-url', {
          params: { path: { teardown_id: teardownId }, query: { url } },
          headers: ifMatch(options),
          fetch: via(this.#transport, options),
        }),
      );
    },
  };

  /** The four named slots: `upload` sets the slot (and appends to `documents[]`), `clear` empties it. */
  readonly slots = {
    upload: async (slot: TeardownSlot, teardownId: string, input: DocumentUpload, options: WriteOptions = {}): Promise<UploadResult> => {
      const init = {
        params: { path: { teardown_id: teardownId } },
        headers: ifMatch(options),
        body: uploadBody(input),
        bodySerializer: formData,
        fetch: via(this.#transport, options),
      };
      switch (slot) {
        case 'harvest-list':
          return unwrap(await this.#http.POST('/public/v1/teardown/harvest-list/{teardown_id}', init));
        case 'occm':
          return unwrap(await this.#http.POST('/public/v1/teardown/occm/{teardown_id}', init));
        case 'aircraft-details':
          return unwrap(await this.#http.POST('/public/v1/teardown/aircraft-details/{teardown_id}', init));
        case 'non-incident-statement':
          return unwrap(await this.#http.POST('/public/v1/teardown/non-incident-statement/{teardown_id}', init));
      }
    },
    clear: async (slot: TeardownSlot, teardownId: string, options: WriteOptions = {}): Promise<void> => {
      const init = { params: { path: { teardown_id: teardownId } }, headers: ifMatch(options), fetch: via(this.#transport, options) };
      switch (slot) {
        case 'harvest-list':
          unwrap(await this.#http.DELETE('/public/v1/teardown/harvest-list/{teardown_id}', init));
          return;
        case 'occm':
          unwrap(await this.#http.DELETE('/public/v1/teardown/occm/{teardown_id}', init));
          return;
        case 'aircraft-details':
          unwrap(await this.#http.DELETE('/public/v1/teardown/aircraft-details/{teardown_id}', init));
          return;
        case 'non-incident-statement':
          unwrap(await this.#http.DELETE('/public/v1/teardown/non-incident-statement/{teardown_id}', init));
          return;
      }
    },
  };
}

class Listings {
  readonly #http: Client<paths>;
  readonly #transport: Transport;
  constructor(http: Client<paths>, transport: Transport) {
    this.#http = http;
    this.#transport = transport;
  }

  /** POST /sales-lease-exchange: status `active` (default) or `draft`. Idempotent across retries. */
  async create(body: ListingCreate, options?: CallOptions): Promise<Tagged<Listing>> {
    return tagged(await this.#http.POST('/public/v1/sales-lease-exchange', { body, fetch: via(this.#transport, options) }));
  }

  /** GET /sales-lease-exchange/{id}: any status, with its ETag. */
  async get(listingId: string, options?: CallOptions): Promise<Tagged<Listing>> {
    return tagged(
      await this.#http.GET('/public/v1/sales-lease-exchange/{listing_id}', {
        params: { path: { listing_id: listingId } },
        fetch: via(this.#transport, options),
      }),
    );
  }

  /** GET with If-None-Match: `undefined` while the listing still has `etag` (304, no body sent), else it anew. */
  async getIfChanged(listingId: string, etag: string, options?: CallOptions): Promise<Tagged<Listing> | undefined> {
    const result = await this.#http.GET('/public/v1/sales-lease-exchange/{listing_id}', {
      params: { path: { listing_id: listingId } },
      headers: { 'if-none-match': etag },
      fetch: via(this.#transport, options),
    });
    return result.response.status === 304 ? undefined : tagged(result);
  }

  /** One page of the organization's `active` listings, newest first. */
  async listPage(query: ListingListQuery = {}, options?: CallOptions): Promise<ListingPage> {
    const full = { page: 1, per_page: 20, ...query };
    return unwrap(
      await this.#http.GET('/public/v1/sales-lease-exchange', { params: { query: full }, fetch: via(this.#transport, options) }),
    );
  }

  /** Every active listing matching `query`, page after page. */
  list(query: ListingListQuery = {}, options?: CallOptions): AsyncIterable<ListingListItem> {
    return allItems((page) => this.listPage({ ...query, page }, options), query.page ?? 1);
  }

  /** PATCH /sales-lease-exchange/{id}: sparse; also the only way to change a listing's status. */
  async update(listingId: string, body: ListingUpdate, options: WriteOptions = {}): Promise<Tagged<Listing>> {
    return tagged(
      await this.#http.PATCH('/public/v1/sales-lease-exchange/{listing_id}', {
        params: { path: { listing_id: listingId } },
        headers: ifMatch(options),
        body,
        fetch: via(this.#transport, options),
      }),
    );
  }

  /** DELETE /sales-lease-exchange/{id} (PATCH `status: 'archived'` is the soft alternative). */
  async delete(listingId: string, options: WriteOptions = {}): Promise<void> {
    unwrap(
      await this.#http.DELETE('/public/v1/sales-lease-exchange/{listing_id}', {
        params: { path: { listing_id: listingId } },
        headers: ifMatch(options),
        fetch: via(this.#transport, options),
      }),
    );
  }

  readonly documents = {
    upload: async (listingId: string, input: DocumentUpload, options: WriteOptions = {}): Promise<UploadResult> =>
      unwrap(
        await this.#http.POST('/public/v1/sales-lease-exchange/documents/{listing_id}', {
          params: { path: { listing_id: listingId } },
          headers: ifMatch(options),
          body: uploadBody(input),
          bodySerializer: formData,
          fetch: via(this.#transport, options),
        }),
      ),
    remove: async (listingId: string, url: string, options: WriteOptions = {}): Promise<void> => {
      unwrap(
        await this.#http.DELETE('/public/v1/sales-lease-exchange/documents/{listing_id}/by-url', {
          params: { path: { listing_id: listingId }, query: { url } },
          headers: ifMatch(options),
          fetch: via(this.#transport, options),
        }),
      );
    },
  };

  readonly images = {
    upload: async (listingId: string, input: FileInput, options: WriteOptions = {}): Promise<UploadResult> =>
      unwrap(
        await this.#http.POST('/public/v1/sales-lease-exchange/images/{listing_id}', {
          params: { path: { listing_id: listingId } },
          headers: ifMatch(options),
          body: uploadBody(input),
          bodySerializer: formData,
          fetch: via(this.#transport, options),
        }),
      ),
    remove: async (listingId: string, url: string, options: WriteOptions = {}): Promise<void> => {
      unwrap(
        await this.#http.DELETE('/public/v1/sales-lease-exchange/images/{listing_id}/by-url', {
          params: { path: { listing_id: listingId }, query: { url } },
          headers: ifMatch(options),
          fetch: via(this.#transport, options),
        }),
      );
    },
  };
}

class Events {
  readonly #read: (query: EventListQuery, call?: CallOptions) => Promise<EventPage>;
  constructor(read: (query: EventListQuery, call?: CallOptions) => Promise<EventPage>) {
    this.#read = read;
  }

  /** One page of GET /events: `{items, next_cursor, has_more}`. A cursor past retention: CursorExpired. */
  list(query: EventListQuery = {}, options?: CallOptions): Promise<EventPage> {
    return this.#read(query, options);
  }

  /** Every event after `after` available now, oldest first; ends when the feed is drained. Store `stream.cursor`. */
  iterate(options: FollowOptions = {}): EventStream {
    return new EventStream(this.#read, options, false);
  }

  /** Like `iterate`, then keeps polling every `pollIntervalMs` until `signal` aborts. */
  follow(options: FollowOptions = {}): EventStream {
    return new EventStream(this.#read, options, true);
  }
}

/** Webhook endpoints of the organization (seller capability to change them): verify deliveries with `verifyWebhook`. */
class WebhookEndpoints {
  readonly #http: Client<paths>;
  readonly #transport: Transport;
  constructor(http: Client<paths>, transport: Transport) {
    this.#http = http;
    this.#transport = transport;
  }

  /** POST /webhook-endpoints: answers the endpoint with its signing `secret`, shown only here (store it). Idempotent across retries. */
  async create(body: WebhookEndpointCreate, options?: CallOptions): Promise<WebhookEndpointWithSecret> {
    return unwrap(await this.#http.POST('/public/v1/webhook-endpoints', { body, fetch: via(this.#transport, options) }));
  }

  /** Every endpoint of the organization (at most 20), oldest first; never their secrets. */
  async list(options?: CallOptions): Promise<WebhookEndpoint[]> {
    return unwrap(await this.#http.GET('/public/v1/webhook-endpoints', { fetch: via(this.#transport, options) })).items;
  }

  /** GET /webhook-endpoints/{id}: settings and delivery state. Unknown or another organization's id: NotFound. */
  async get(endpointId: string, options?: CallOptions): Promise<WebhookEndpoint> {
    return unwrap(
      await this.#http.GET('/public/v1/webhook-endpoints/{endpoint_id}', {
        params: { path: { endpoint_id: endpointId } },
        fetch: via(this.#transport, options),
      }),
    );
  }

  /** PATCH: `url`, `event_types`, `description`, `enabled` (true resumes from the first event not delivered). No ETag: last write wins. */
  async update(endpointId: string, body: WebhookEndpointUpdate, options?: CallOptions): Promise<WebhookEndpoint> {
    return unwrap(
      await this.#http.PATCH('/public/v1/webhook-endpoints/{endpoint_id}', {
        params: { path: { endpoint_id: endpointId } },
        body,
        fetch: via(this.#transport, options),
      }),
    );
  }

  /** DELETE: stops deliveries at once. A retry that finds it already gone succeeds. */
  async delete(endpointId: string, options?: CallOptions): Promise<void> {
    unwrap(
      await this.#http.DELETE('/public/v1/webhook-endpoints/{endpoint_id}', {
        params: { path: { endpoint_id: endpointId } },
        fetch: via(this.#transport, options),
      }),
    );
  }

  /** A new signing secret (answered once); the previous one keeps signing beside it for 24 hours. */
  async rotateSecret(endpointId: string, options?: CallOptions): Promise<WebhookEndpointWithSecret> {
    return unwrap(
      await this.#http.POST('/public/v1/webhook-endpoints/{endpoint_id}/rotate-secret', {
        params: { path: { endpoint_id: endpointId } },
        fetch: via(this.#transport, options),
      }),
    );
  }

  /** Sends a signed `webhook.test` event now and answers your endpoint's status code or the error. */
  async test(endpointId: string, options?: CallOptions): Promise<WebhookTestResult> {
    return unwrap(
      await this.#http.POST('/public/v1/webhook-endpoints/{endpoint_id}/test', {
        params: { path: { endpoint_id: endpointId } },
        fetch: via(this.#transport, options),
      }),
    );
  }

  /** One page of the endpoint's delivery attempts, newest first. */
  async deliveriesPage(endpointId: string, query: WebhookDeliveryQuery = {}, options?: CallOptions): Promise<WebhookDeliveryPage> {
    const full = { page: 1, per_page: 20, ...query };
    return unwrap(
      await this.#http.GET('/public/v1/webhook-endpoints/{endpoint_id}/deliveries', {
        params: { path: { endpoint_id: endpointId }, query: full },
        fetch: via(this.#transport, options),
      }),
    );
  }

  /** Every delivery attempt of the endpoint, newest first, page after page (from `query.page`, default 1). */
  deliveries(endpointId: string, query: WebhookDeliveryQuery = {}, options?: CallOptions): AsyncIterable<WebhookDelivery> {
    return allItems((page) => this.deliveriesPage(endpointId, { ...query, page }, options), query.page ?? 1);
  }
}

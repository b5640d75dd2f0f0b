// The prose of the partner document: the introduction (info.description, Markdown rendered by the
// docs page at /docs) and the tags that group operations, each with a short guide of its own.
// app.ts places them in the document. The facts come from the contract (partner-api.md), the check
// order from decisions.md section 1, the lifecycle from teardowns/state-machine.ts, the file rules
// from files/content-types.ts, the event feed and webhooks from issue 11.
//
// Swagger UI renders this Markdown with Remarkable (CommonMark plus tables) and sanitises it: no raw
// HTML, no heading anchors. Keep to headings, paragraphs, lists, tables, code blocks and images.

/** Where the docs page serves the lifecycle picture (app.ts registers the route). */
export const LIFECYCLE_IMAGE_PATH = '/docs/assets/teardown-lifecycle.svg';

const GETTING_STARTED = `
## Getting started

**1. Get an API key.** Keys are minted for a user of your organization by the marketplace operator
(or, on your own instance, with \`npm run admin -- mint-key\`). A key looks like
\`svc_live_\` followed by 32 letters and digits and is **shown once**: store it in your secret manager.
Create, update, delete, transition and upload calls need a key minted by a user with the
\`seller\` capability; reads need any key of the organization. A local instance prints a ready-made
demo key on its first start (or run \`npm run demo\`).

**2. Send two headers on every call.**

| Header | Value |
|---|---|
| \`Authorization\` | \`Bearer svc_live_<API_KEY>\` |
| \`X-Organization-Id\` | your organization's UUID (printed with the key); it must be the key's organization |

**3. Make a first call.**

\`\`\`sh
export API=http://127.0.0.1:8080/public/v1     # your instance's address
export KEY=svc_live_...                         # your key
export ORG=...                                  # your organization's UUID

curl -sS "$API/teardowns" -H "Authorization: Bearer $KEY" -H "X-Organization-Id: $ORG"
# 200 {"items":[],"total":0,"page":1,"per_page":20,"pages":0}
\`\`\`

**4. Create a teardown.** This body succeeds as it is (vocabulary names such as \`A320-200\` and
\`CFM56-5B\` are looked up case-insensitively; ISO country codes):

\`\`\`sh
curl -sS "$API/teardowns" -X POST \\
  -H "Authorization: Bearer $KEY" -H "X-Organization-Id: $ORG" \\
  -H 'Content-Type: application/json' -H 'Idempotency-Key: first-teardown-1' \\
  -d '{"asset_type": "aircraft", "aircraft_type": "A320-200", "status": "Starting",
       "start_date": "2026-03-01", "location": "Châteauroux", "country": "FR",
       "traceability": "Air France", "incident_related": "No", "msn": "3456", "tail_number": "F-GKXA"}'
# 201 {"teardown_id": "…", "status": "active_starting", "teardown_status_label": "Starting", …}
\`\`\`

**5. Try it here.** Click **Authorize** (top right of the operation list), paste the key *without*
\`Bearer \` into the bearer field and the organization UUID into \`X-Organization-Id\`, then open an
operation, **Try it out**, **Execute**. The page remembers both in this browser until you log out.

The machine-readable document is at [\`/public/v1/openapi.json\`](/public/v1/openapi.json) (OpenAPI 3.1):
generate a client from it. Every path starts with \`/public/v1\`.
`;

const AUTHENTICATION = `
## Authentication and the order of checks

Every request goes through these checks in this order; the **first** failure answers, so a request
with two problems always reports the same one.

| # | Check | Status | \`error_code\` |
|---|---|---|---|
| 1 | Route exists, method allowed | 404 / 405 | none: \`{"detail": "Not Found"}\` |
| 2 | \`Authorization\` present and \`Bearer svc_live_<secret>\` | 401 | \`missing_or_malformed_authorization\` |
| 3 | \`X-Organization-Id\` present and a UUID | 400 | \`invalid_organization_header\` |
| 4 | Key known, not revoked, not rotated | 401 | \`invalid_api_key\` |
| 5 | Rate limit of the key (see Rate limits) | 429 | \`too_many_requests\` |
| 6 | Key not past its \`expires_at\` | 401 | \`api_key_expired\` |
| 7 | Key minted in the organization of \`X-Organization-Id\` | 403 | \`organization_mismatch\` (every occurrence raises a security alert) |
| 8 | Organization account active | 403 | \`org_inactive\`, \`org_churned\` |
| 9 | Subscription \`active\` or \`trialing\` | 403 | \`subscription_required\` (body adds \`subscription_status\`) |
| 10 | API access on for the organization | 403 | \`api_access_disabled\` |
| 11 | The user who minted the key still active | 403 | \`api_key_creator_revoked\` |
| 12 | \`seller\` capability for writes | 403 | \`insufficient_capability\` (body adds \`required\`) |
| 13 | Body and query valid, then the record exists, then business rules | 422 / 400, 404, 400 / 409 / 412 | see Errors |

Failed authentications (checks 2 to 4) are also limited per client IP, 60 a minute: past that they
answer 429 instead, so keys cannot be probed at speed. A valid key is never refused by this limit.

A record of another organization is answered exactly like a missing one (404): the API never
reveals that it exists. A key of a deactivated user is revoked within the hour; a rotated key stops
working at once.
`;

const ERRORS = `
## Errors

Success answers return the resource itself, without a wrapper. Errors come in four shapes; branch on
the status first, then on \`detail.error_code\` when \`detail\` is an object.

**Business error**: \`detail\` is an object with a stable \`error_code\`, a human \`message\`, and
extra fields named per code:

\`\`\`json
{"detail": {"error_code": "unknown_vocabulary", "message": "Unknown aircraft_type 'A320-9000'.",
            "field": "aircraft_type", "value": "A320-9000", "valid_values": ["A320-200", "…"]}}
\`\`\`

**Schema error (422)**: \`detail\` is a list, one item per problem (the pydantic form): \`type\`,
\`loc\` (where: \`["body", "msn"]\`, \`["query", "per_page"]\`), \`msg\`, \`input\`. An unknown body key is
\`extra_forbidden\`; all missing required fields are reported at once.

\`\`\`json
{"detail": [{"type": "missing", "loc": ["body", "traceability"], "msg": "Field required", "input": null},
            {"type": "extra_forbidden", "loc": ["body", "registration"], "msg": "Extra inputs are not permitted", "input": "F-GKXA"}]}
\`\`\`

**Plain string**: \`detail\` is a string and there is no \`error_code\`. Used for a missing or foreign
record (404 \`{"detail": "Teardown not found"}\`, \`"Listing not found"\`, also for a malformed id), for an
unknown route (404 \`"Not Found"\`), a wrong method (405), a transition the state machine refuses (400,
the text names the action and the current status), an empty upload, and 500
(\`{"detail": "Internal Server Error"}\`, never a stack trace).

**Temporarily unavailable (503)**: when a dependency of the service is down, retry after
\`Retry-After\` seconds; nothing was written.

\`\`\`json
{"detail": {"error_code": "service_unavailable", "message": "The service is temporarily unavailable (database). Retry in 5 seconds.",
            "dependency": "database"}}
\`\`\`

| Status | \`error_code\` | When |
|---|---|---|
| 400 | \`bad_request\` | the URL or the request is not valid HTTP (a malformed percent-escape, say) |
| 400 | \`unknown_vocabulary\` | a vocabulary name matches nothing; \`valid_values\` lists the names |
| 400 | \`invalid_idempotency_key\`, \`invalid_precondition_header\` | malformed \`Idempotency-Key\`, \`If-Match\` or \`If-None-Match\` |
| 400 | \`file_too_large\`, \`invalid_content_type\` | see Files |
| 408 | \`request_timeout\` | headers not complete within 10 s, or the whole request (body included) within 300 s (the defaults); the connection is closed |
| 409 | \`idempotency_key_in_use\` | the first request with this key still runs; retry after \`Retry-After\` |
| 409 | \`suspended_by_operator\` | a listing held by an operator; \`allowed\` lists the statuses you may still set |
| 412 | \`precondition_failed\` | \`If-Match\` no longer matches; \`current_etag\` says what does |
| 413 | \`payload_too_large\` | JSON body over 10 MB |
| 414 | \`uri_too_long\` | a path segment of the URL is too long |
| 415 | \`unsupported_media_type\` | a body that is not \`application/json\` (\`multipart/form-data\` on uploads) |
| 422 | \`invalid_status\`, \`vocab_required\`, \`invalid_audience\`, \`idempotency_key_reused\` | business rules on the body |
| 429 | \`too_many_requests\` | see Rate limits |
| 431 | \`request_header_fields_too_large\` | request line and headers over 16 KB; the connection is closed |
| 502 | \`storage_unavailable\` | file storage failed; nothing stored, retry |
| 503 | \`service_unavailable\` | a dependency is down; retry after \`Retry-After\` |

Every answer, errors included, carries an \`x-request-id\` header: your own value when you send a safe
one (1 to 128 characters of \`A-Z a-z 0-9 . _ : -\`), a fresh UUID otherwise. Quote it when you
contact support.
`;

const RATE_LIMITS = `
## Rate limits

Each key may make **600 requests per one-minute window**, in a burst if it likes. Every request that
presents a known key counts, whatever its answer. Each answer after the key is known tells you
where you stand:

| Header | Example | Meaning |
|---|---|---|
| \`RateLimit-Limit\` | \`600\` | requests per window |
| \`RateLimit-Remaining\` | \`587\` | left in this window |
| \`RateLimit-Reset\` | \`41\` | seconds until the window resets |
| \`RateLimit-Policy\` | \`"minute";q=600;w=60\` | the policy (IETF draft form) |
| \`RateLimit\` | \`"minute";r=587;t=41\` | remaining and reset together (IETF draft form) |

The 601st request inside the window answers **429** \`too_many_requests\` with a \`Retry-After\` header
(seconds until a request would pass) and the same number in \`detail.retry_after\`. Wait that long,
then retry; do not retry in a tight loop.
`;

const IDEMPOTENCY = `
## Safe retries: Idempotency-Key

Every \`POST\` (create, transition, upload) accepts an \`Idempotency-Key\` header: any 1 to 255
printable ASCII characters you choose, one per logical operation (a UUID, or your ERP's own
reference). Send the same key again with the same request, after a timeout say, and you get the
first answer back, marked \`Idempotent-Replayed: true\`: nothing is created twice.

- Keys are scoped to your organization and the user who minted the calling key, and kept 24 hours.
- The same key with a different body answers 422 \`idempotency_key_reused\`; the body must be the same
  bytes (re-serialising JSON differently counts as different).
- While the first request is still running, a retry answers 409 \`idempotency_key_in_use\` with
  \`Retry-After\`.
- 5xx, 429 and schema (422 list) answers are not stored: a retry with the same key runs again.

\`\`\`sh
curl -sS -i "$API/teardowns" -X POST -H "Authorization: Bearer $KEY" -H "X-Organization-Id: $ORG" \\
  -H 'Content-Type: application/json' -H 'Idempotency-Key: erp-sync-4711' -d "$BODY"
# the same command again: the same 201 and body, plus Idempotent-Replayed: true
\`\`\`
`;

const CONDITIONAL = `
## Conditional requests: ETag, If-Match, If-None-Match

Every answer carrying one teardown or listing (GET by id, create, PATCH, transition) has a strong,
opaque \`ETag\`. Use it to avoid overwriting a colleague's change, and to skip downloading what did
not change.

- **If-Match** on PATCH, DELETE, transitions, uploads and file removals: the write happens only if
  the record still has that ETag. Otherwise **412** \`precondition_failed\` with \`current_etag\`, and
  nothing changed: read again, merge, retry. \`*\` means "if it exists". \`W/\` (weak) tags never match.
- **If-None-Match** on the two GET-by-id operations: while the record is unchanged the answer is
  **304 Not Modified** with the ETag and no body.
- A header that is not \`*\` or a list of quoted tags answers 400 \`invalid_precondition_header\`.
- Order: authentication, validation, then the record (a missing record is 404 whatever the headers),
  then the precondition, then the business rules.

\`\`\`sh
ETAG=$(curl -sS -i "$API/teardowns/$ID" -H "Authorization: Bearer $KEY" -H "X-Organization-Id: $ORG" \\
  | tr -d '\\r' | sed -n 's/^etag: //Ip')
curl -sS "$API/teardowns/$ID" -X PATCH -H "If-Match: $ETAG" -H 'Content-Type: application/json' \\
  -H "Authorization: Bearer $KEY" -H "X-Organization-Id: $ORG" -d '{"description": "LLPs sold"}'
\`\`\`
`;

const PAGINATION = `
## Pagination and the legacy list field names

Both lists page the same way: \`page\` (1-based, default 1) and \`per_page\` (1 to 100, default 20).
The answer is \`{items, total, page, per_page, pages}\`: \`total\` counts every match, \`pages\` is
\`ceil(total / per_page)\`, and a page past the end has empty \`items\`. Teardowns sort with \`sort_by\`
(\`created_at\` by default, \`msn\`, \`status\`, \`location_country\`, \`teardown_start_date\`,
\`asset_type\`) and \`sort_dir\` (\`desc\` by default). Lists are always your organization's records only;
the listings list shows \`active\` listings only (read any status by id).

**Legacy names.** The teardown list and the transition answer still use the field names of the
first API version; the detail shape (create, GET by id, PATCH) uses the current ones:

| In create / GET / PATCH | In the list | In the transition answer |
|---|---|---|
| \`teardown_id\` | \`id\` | \`id\` |
| \`tail_number\` | \`registration\` | |
| \`country\` | \`location_country\` | |

The list names will be aligned in a future version of the API, announced in advance.
`;

const LIFECYCLE = `
## Teardown lifecycle

![Teardown lifecycle: statuses and transition actions](${LIFECYCLE_IMAGE_PATH})

A teardown is created published, in the status its \`status\` field names (\`Starting\`,
\`In process\`, \`Completed\`). After that only \`POST /public/v1/teardowns/transition/{teardown_id}\`
with \`{"action": "…"}\` changes the status; PATCH cannot.

| Action | From | To |
|---|---|---|
| \`start_processing\` | \`active_starting\` | \`active_in_process\` |
| \`complete\` | \`active_in_process\` | \`active_completed\` |
| \`unpublish\` | any \`active_*\` | \`draft\` |
| \`submit\` | \`draft\` | \`active_starting\`, published again with a new \`expires_at\` |
| \`archive\` | any \`active_*\`, \`draft\`, \`suspended\` | \`archived\` (archiving an archived teardown changes nothing) |
| \`restore\` | \`archived\` | \`draft\`, or \`suspended\` when an operator holds it |
| automatic | any \`active_*\` at \`expires_at\` (publication + 90 days) | \`archived\` |

\`approve\`, \`reject\` (with a \`reason\`) and \`suspend\` are operator actions: a partner key sending
one gets 400. A move the machine does not allow from the current status answers 400 with a
plain-string \`detail\` naming the action and the status. A teardown an operator suspended stays out
of the active statuses whatever the seller does, until an operator approves it.
\`teardown_status_label\` is \`Starting\`, \`In Process\` or \`Completed\` for the three active statuses, null
otherwise.

**Listings** have no transitions: PATCH \`status\` to any of \`active\`, \`under_offer\`, \`sold\`,
\`leased\`, \`exchanged\`, \`suspended\`, \`archived\`, \`draft\`, \`pending_review\` (a listing an operator
suspended answers 409 \`suspended_by_operator\` for the others).
`;

const AUDIENCES = `
## Audiences

An audience restricts who may see the **documents** of a teardown or listing (images are never
restricted): any of \`Airline\`, \`Lessor\`, \`OEM\`, \`MRO\`, \`Distributor\`, \`Others\`, matched
case-insensitively. No audience (null) means anyone with platform access.

- Set it on a document upload as a form field, comma-separated: \`audience=Lessor, MRO\`.
- Or PATCH \`"audience": ["Lessor", "MRO"]\`; \`null\` clears it. It cannot be sent on create.
- An unknown value answers 422 \`invalid_audience\` with \`got\` and \`allowed\`, before any file is stored.
`;

const FILES = `
## Files

Uploads are \`multipart/form-data\` with one \`file\` part per call (and an optional \`audience\` field on
document uploads). The answer is \`{url, filename, size, content_type}\`; the URL is appended to the
record's \`documents\` or \`images\`.

| Endpoint family | Accepts |
|---|---|
| documents, and the four teardown slots | PDF, XLSX, XLS, DOCX, DOC, CSV, JPEG, PNG, WEBP, GIF |
| images | JPEG, PNG, WEBP, GIF (never SVG, BMP or TIFF) |

**Teardown slots** hold one named document each: \`harvest-list\` (field \`harvest_list\`), \`occm\`,
\`aircraft-details\` (\`aircraft_details_doc\`) and \`non-incident-statement\`. Uploading to
\`POST /public/v1/teardown/{doc_type}/{teardown_id}\` sets the slot (replacing its previous URL) and
also appends the URL to \`documents\`; \`DELETE\` on the same path clears it.

Rules:

- At most **50 MB** per file: over that, 400 \`file_too_large\`, nothing kept.
- The type comes from the part's \`Content-Type\` (or, when that is absent or
  \`application/octet-stream\`, from the file name's extension), and the file's first bytes must agree
  with it (a \`.pdf\` that is not a PDF is refused): otherwise 400 \`invalid_content_type\` with
  \`allowed\`. An empty file, or a file that is not an image at all sent to an images endpoint, answers
  400 with a plain-string \`detail\`.
- A storage failure answers 502 \`storage_unavailable\`; nothing was stored, retry (a retry stores
  a new file under a new random prefix).
- Removing by URL (\`DELETE …/by-url?url=<encoded URL>\`) is idempotent: an absent URL also answers 200.

\`\`\`sh
curl -sS "$API/teardown/harvest-list/$ID" -H "Authorization: Bearer $KEY" -H "X-Organization-Id: $ORG" \\
  -F file=@harvest-list.pdf -F 'audience=Lessor, MRO'
# 200 {"url": "…/teardowns/<id>/harvest-list/3f9a1c2e_harvest-list.pdf", "filename": "harvest-list.pdf", "size": 1043, "content_type": "application/pdf"}
\`\`\`
`;

const EVENTS = `
## Staying in sync: the event feed

Every committed change of one of your teardowns or listings writes one event, in the same
transaction as the change: \`{id, type, created_at, data}\`, where \`data.entity_id\` is the record's id
and \`data.object\` the record as \`GET\` by id returns it after the change (for \`*.deleted\`, the
fields kept at deletion). \`*.status_changed\` adds \`data.previous_status\`; \`*.file_added\` and
\`*.file_removed\` add \`data.file\` (the file's URL, kind and, for teardowns, the slot). The event \`id\`
is the same in the feed and in webhook deliveries.

| \`type\` | When |
|---|---|
| \`teardown.created\`, \`listing.created\` | a create |
| \`teardown.updated\`, \`listing.updated\` | a PATCH |
| \`teardown.status_changed\`, \`listing.status_changed\` | a transition or status PATCH, by you, an operator or the auto-archive |
| \`teardown.file_added\`, \`listing.file_added\` | an upload |
| \`teardown.file_removed\`, \`listing.file_removed\` | a file removal or slot clear |
| \`teardown.deleted\`, \`listing.deleted\` | a DELETE |

\`GET /public/v1/events?after=<cursor>&types=<csv>&limit=<1..100, default 50>\` answers
\`{items, next_cursor, has_more}\`, oldest first, your organization only. Store \`next_cursor\` and pass it
as \`after\` next time: it is always present, on the last page too, and following it returns every
event **exactly once, in commit order**. Keep calling while \`has_more\` is true; then poll from the
stored cursor. Any key of the organization may read the feed.

Events are kept 30 days. A cursor older than that answers **410** \`cursor_expired\`: resynchronise with
the lists (\`updated_since\` with \`sort_by=updated_at\`), then start a fresh feed without \`after\`.
`;

const WEBHOOKS = `
## Webhooks

Instead of polling, register an endpoint (seller capability) under \`/public/v1/webhook-endpoints\`:
\`{url, event_types?, description?}\` (all event types when \`event_types\` is absent). The 201 answer
carries the signing **secret** (\`whsec_…\`), **shown once**. At most 20 endpoints per organization.
\`POST …/{id}/test\` sends a \`webhook.test\` event; \`GET …/{id}/deliveries\` lists recent attempts;
\`POST …/{id}/rotate-secret\` issues a new secret while the old one keeps signing for 24 hours.

**URL rule.** \`https\` only, and the host must not resolve to a loopback, private, link-local or cloud
metadata address (checked again at each delivery): otherwise 422 \`invalid_webhook_url\`.

**Each delivery** is a \`POST\` of \`{type, timestamp, data}\` (\`data\` as in the feed) with
[Standard Webhooks](https://www.standardwebhooks.com/) headers:

| Header | Value |
|---|---|
| \`webhook-id\` | the event id: the same on every retry, use it to drop duplicates |
| \`webhook-timestamp\` | Unix seconds of this attempt |
| \`webhook-signature\` | \`v1,<base64 HMAC-SHA256>\` of \`{webhook-id}.{webhook-timestamp}.{raw body}\`, keyed with the base64-decoded part of the secret after \`whsec_\`; two space-separated signatures during a rotation |

Verify the signature on the **raw** body before parsing it, reject timestamps more than 5 minutes
away, answer 2xx quickly and do the work afterwards. Delivery is at least once and in order per
endpoint. Any Standard Webhooks library works (\`standardwebhooks\` on npm and PyPI); without one:

\`\`\`js
// Node.js 18+
import { createHmac, timingSafeEqual } from 'node:crypto';

export function verifyWebhook(secret, headers, rawBody) {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(\`\${id}.\${timestamp}.\${rawBody}\`).digest();
  return signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    const given = Buffer.from(signature ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}
\`\`\`

\`\`\`python
# Python 3.9+
import base64, hashlib, hmac, time

def verify_webhook(secret: str, headers, raw_body: bytes) -> bool:
    msg_id, timestamp = headers["webhook-id"], headers["webhook-timestamp"]
    if abs(time.time() - int(timestamp)) > 300:
        return False
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{msg_id}.{timestamp}.".encode() + raw_body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    return any(
        hmac.compare_digest(entry.split(",", 1)[1], expected)
        for entry in headers["webhook-signature"].split(" ")
        if entry.startswith("v1,")
    )
\`\`\`

**Retries.** Any answer other than 2xx, a timeout (10 s) or a connection error is retried after 5 s,
5 min, 30 min, 2 h, 5 h, 10 h and 10 h. An answer of **410 Gone** disables the endpoint at once; an
endpoint that keeps failing for 3 days is disabled too. Re-enable it with PATCH \`{"enabled": true}\`
and catch up from the event feed.
`;

const VERSIONING = `
## Versioning

Every path carries \`/public/v1\`. Within v1, fields and operations may be added (ignore fields you do
not know) but none is removed or changes meaning without notice.
`;

export const API_DESCRIPTION = [
  'The partner API of the aviation marketplace: manage **teardowns** (aircraft and engine part-outs,',
  'with their harvest lists, OCCM documents and photos) and **sales / lease / exchange listings** from',
  'your ERP or scripts, and keep them in sync through an event feed and signed webhooks.',
  GETTING_STARTED,
  AUTHENTICATION,
  ERRORS,
  RATE_LIMITS,
  IDEMPOTENCY,
  CONDITIONAL,
  PAGINATION,
  LIFECYCLE,
  AUDIENCES,
  FILES,
  EVENTS,
  WEBHOOKS,
  VERSIONING,
].join('\n');

/** The tags of the partner operations, in the order the docs page shows them. */
export const TAGS: { name: string; description: string }[] = [
  {
    name: 'teardowns',
    description:
      'Aircraft and engine part-outs: create (published at once), list, read, update, move through the lifecycle (see **Teardown lifecycle** above), delete; and their documents, images and the four named document slots (see **Files**).',
  },
  {
    name: 'listings',
    description:
      'Sales / lease / exchange listings of aircraft, engines and APUs: create, list (active only), read in any status, update (status included), delete; and their documents and images.',
  },
  {
    name: 'events',
    description:
      'The event feed: every change of your teardowns and listings, oldest first, resumable from a cursor (see **Staying in sync** above).',
  },
  {
    name: 'webhooks',
    description: 'Webhook endpoints that receive your events as signed POSTs (see **Webhooks** above).',
  },
];

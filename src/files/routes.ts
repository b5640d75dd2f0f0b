// Upload and removal endpoints of teardown and listing files. One table of routes drives both
// owner kinds; the service does the work. Registered under /public/v1 behind the API-key hook.
import multipart from '@fastify/multipart';
import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest, FastifySchema } from 'fastify';
import { apiActor, callerOf } from '../http/caller.js';
import { ifMatchOf } from '../http/conditional.js';
import { documentOnly, IfMatchHeaders, type RouteErrors, routeErrors, StatusOk } from '../http/schemas.js';
import { validatorCompiler } from '../http/validation.js';
import { ACCEPTED } from './content-types.js';
import { multipartForm, multipartLimits } from './form.js';
import type { OwnerKind } from './ownership.js';
import { DOCUMENTS, filesService, IMAGES, OWNERS, SLOT_DOC_TYPES, type SlotDocType, slotTarget, type Target } from './service.js';

const UploadResult = Type.Object(
  {
    url: Type.String({
      description: 'URL of the stored file: {storage_url}/<media_bucket>/<owner_kind>/<record_id>/<folder>/<8-hex>_<filename>',
    }),
    filename: Type.String({ description: 'The safe file name kept from the one sent' }),
    size: Type.Integer({ description: 'Bytes stored' }),
    content_type: Type.String({ description: 'MIME type, verified against the leading bytes' }),
  },
  {
    title: 'UploadResult',
    description: 'The stored file.',
    examples: [
      {
        url: 'http://127.0.0.1:8080/storage/media/teardowns/5d0c8a57-3f0e-4c63-9d7a-1e2b3c4d5e6f/documents/3fa85f64_harvest-list.pdf',
        filename: 'harvest-list.pdf',
        size: 482133,
        content_type: 'application/pdf',
      },
    ],
  },
);

function uploadForm(target: Target, maxUploadBytes: number) {
  const accepted = ACCEPTED[target.fileClass].map((t) => t.mime).join(', ');
  return Type.Object(
    {
      file: Type.String({
        format: 'binary',
        maxLength: maxUploadBytes,
        description: `One file, at most the upload limit (50 MB by default). Accepted: ${accepted}.`,
      }),
      ...(target.acceptsAudience
        ? {
            audience: Type.Optional(
              Type.String({
                description: 'Comma-separated: Airline, Lessor, OEM, MRO, Distributor, Others (case-insensitive).',
                maxLength: 64 * 1024, // multipartLimits' fieldSize (form.ts)
                pattern: '^[A-Za-z, ]*$',
                examples: ['Airline, MRO'],
              }),
            ),
          }
        : {}),
    },
    { required: ['file'] },
  );
}

const uploadErrors = (family: Family, target: Target): RouteErrors => ({
  seller: true,
  notFound: `${family.noun} not found`,
  codes: {
    400: ['file_too_large', 'invalid_content_type'],
    422: target.acceptsAudience ? ['invalid_audience'] : [],
    502: ['storage_unavailable'],
  },
  plain400: {
    description: 'A plain-string detail: an empty file, a non-image on an image endpoint, a second file, a malformed form.',
    examples: ['The file is empty.', 'Send one file per call.'],
  },
});
const removalErrors = (family: Family): RouteErrors => ({ seller: true, notFound: `${family.noun} not found` });

interface Family {
  owner: OwnerKind;
  base: string;
  param: 'teardown_id' | 'listing_id';
  tag: string;
  noun: string;
}

const TEARDOWNS: Family = { owner: 'teardowns', base: '/teardown', param: 'teardown_id', tag: 'teardowns', noun: 'Teardown' };
const LISTINGS: Family = { owner: 'listings', base: '/sales-lease-exchange', param: 'listing_id', tag: 'listings', noun: 'Listing' };

// A malformed id is answered like an unknown one (404 plain string): UUID-typed in the document only.
const idParams = (family: Family) =>
  Type.Object({ [family.param]: Type.String({ description: `${family.noun} UUID`, ...documentOnly({ format: 'uuid', maxLength: 36 }) }) });
/**
 * Stored URLs are printable ASCII (their path segments are percent-encoded) and at most 2,048
 * characters (HttpUrl). Bounded so, the query string stays far below Node's 16 KB header limit
 * (a 431) even with every character percent-encoded.
 */
const UrlQuery = Type.Object({
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    pattern: '^[!-~]+$',
    description: 'The full URL to remove, as the record lists it (URL-encoded in the query string)',
    examples: ['http://127.0.0.1:8080/storage/media/teardowns/5d0c8a57-3f0e-4c63-9d7a-1e2b3c4d5e6f/documents/3fa85f64_harvest-list.pdf'],
  }),
});

/** The camel-case name of a slot for operation ids: harvest-list → HarvestList. */
const pascal = (text: string) => text.replace(/(^|-)(\w)/g, (_m, _d, c: string) => c.toUpperCase());

export async function fileRoutes(app: FastifyInstance) {
  const service = filesService(app.ctx);
  const maxUploadBytes = app.ctx.config.maxUploadBytes;

  // Every body reaches the handlers unparsed: multipart streams through @fastify/multipart, and
  // anything else is a form without its file, answered like FastAPI does (422 at ["body", "file"]).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  await app.register(multipart, { limits: multipartLimits(maxUploadBytes), throwFileSizeLimit: false });
  // The multipart body schemas document the form; the streaming handler is what validates it.
  app.setValidatorCompiler((route) => (route.httpPart === 'body' ? () => true : validatorCompiler(route)));
  // A refused upload leaves the rest of its body unread; closing the connection discards it.
  app.addHook('onError', async (request, reply) => {
    if (request.isMultipart() && !request.raw.readableEnded) reply.header('connection', 'close');
  });

  // Every route here has the API-key hook in front: `auth` is set (apiActor throws were it not).
  const caller = (request: FastifyRequest) => ({ orgId: callerOf(request).orgId, actor: apiActor(request), log: request.log });
  // Routes are built per family, so Fastify cannot type the params: idParams(family) declared this one.
  const recordId = (request: FastifyRequest, family: Family) => (request.params as Record<string, string>)[family.param];
  // Parsed before the body is read: a malformed If-Match is refused before any byte is stored.
  const ifMatch = (request: FastifyRequest, family: Family) => ifMatchOf(request, OWNERS[family.owner].entity, recordId(request, family));

  function upload(family: Family, path: string, target: Target, operationId: string, summary: string) {
    const accepted = ACCEPTED[target.fileClass].map((t) => t.mime).join(', ');
    const schema: FastifySchema = {
      operationId,
      summary,
      description: [
        `A multipart/form-data form with one \`file\` part (at most ${maxUploadBytes} bytes; accepted: ${accepted}; the leading bytes must match the type).`,
        target.acceptsAudience
          ? 'An optional `audience` part (comma-separated Airline, Lessor, OEM, MRO, Distributor, Others) restricts who sees the documents.'
          : 'Images are not covered by audience; an `audience` part is ignored.',
        target.slot
          ? `The URL replaces the \`${target.slot}\` slot and is appended to \`documents[]\`; the previous file stays listed until removed.`
          : `The URL is appended to \`${target.column}[]\`.`,
        'Storage failures answer 502 `storage_unavailable` and leave the record unchanged; a retry stores a new file.',
      ].join(' '),
      tags: [family.tag],
      params: idParams(family),
      headers: IfMatchHeaders,
      // An OpenAPI content map for the docs only (multipart bodies are not validated by Ajv), which TSchema does not describe.
      body: { content: { 'multipart/form-data': { schema: uploadForm(target, maxUploadBytes) } } } as unknown as TSchema,
      response: { 200: UploadResult },
      ...routeErrors(uploadErrors(family, target)),
    };
    app.post(`${family.base}/${path}/:${family.param}`, { schema, config: { capability: 'seller', idempotent: 'multipart' } }, async (request) => {
      const condition = ifMatch(request, family);
      const form = multipartForm(request, maxUploadBytes);
      return service.upload(OWNERS[family.owner], target, recordId(request, family), caller(request), form, condition);
    });
  }

  function removeByUrl(family: Family, path: string, target: Target, operationId: string, summary: string) {
    const schema: FastifySchema = {
      operationId,
      summary,
      description: `Removes the URL from \`${target.column}[]\` and deletes the stored file best effort. Idempotent: a URL the record does not list also answers 200.`,
      tags: [family.tag],
      params: idParams(family),
      headers: IfMatchHeaders,
      querystring: UrlQuery,
      response: { 200: StatusOk },
      ...routeErrors(removalErrors(family)),
    };
    app.delete(`${family.base}/${path}/:${family.param}/by-url`, { schema, config: { capability: 'seller' } }, async (request) =>
      // UrlQuery validated the query; the route's FastifySchema is untyped, being built per family.
      service.removeByUrl(
        OWNERS[family.owner],
        target,
        recordId(request, family),
        (request.query as { url: string }).url,
        caller(request),
        ifMatch(request, family),
      ),
    );
  }

  for (const family of [TEARDOWNS, LISTINGS]) {
    const noun = family.noun;
    upload(family, 'documents', DOCUMENTS, `upload${noun}Document`, `Upload a ${noun.toLowerCase()} document (appended to documents[])`);
    removeByUrl(family, 'documents', DOCUMENTS, `remove${noun}Document`, `Remove a ${noun.toLowerCase()} document by URL (idempotent)`);
    upload(family, 'images', IMAGES, `upload${noun}Image`, `Upload a ${noun.toLowerCase()} image (appended to images[])`);
    removeByUrl(family, 'images', IMAGES, `remove${noun}Image`, `Remove a ${noun.toLowerCase()} image by URL (idempotent)`);
  }

  // One static path per slot: an unknown {doc_type} is then an unknown route (404 Not Found), and
  // no slot path can shadow /teardown/documents or /teardown/images.
  // Object.keys answers string[]; these are SLOT_DOC_TYPES' own literal keys.
  for (const docType of Object.keys(SLOT_DOC_TYPES) as SlotDocType[]) {
    const field = SLOT_DOC_TYPES[docType];
    upload(
      TEARDOWNS,
      docType,
      slotTarget(docType),
      `uploadTeardown${pascal(docType)}`,
      `Upload the teardown's ${field} document (replaces the slot, appended to documents[])`,
    );
    app.delete(
      `/teardown/${docType}/:teardown_id`,
      {
        schema: {
          operationId: `clearTeardown${pascal(docType)}`,
          summary: `Clear the teardown's ${field} slot and remove its URL from documents[] (idempotent)`,
          description: `Sets \`${field}\` to null, removes its URL from \`documents[]\` and deletes the file best effort, in one transaction. An empty slot answers 200 and writes nothing.`,
          tags: [TEARDOWNS.tag],
          params: idParams(TEARDOWNS),
          headers: IfMatchHeaders,
          response: { 200: StatusOk },
          ...routeErrors(removalErrors(TEARDOWNS)),
        },
        config: { capability: 'seller' },
      },
      async (request) => service.clearSlot(docType, recordId(request, TEARDOWNS), caller(request), ifMatch(request, TEARDOWNS)),
    );
  }
}

// An upload's multipart form, read part by part as it streams in, with the parser's failures
// turned into the answers partners get. Nothing here buffers a file.
import type { Readable } from 'node:stream';
import type {} from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { ApiError, badUpload, fileTooLarge } from '../http/errors.js';
import type {} from '../http/idempotency.js';

export type FormPart =
  | { kind: 'field'; name: string; value: unknown }
  | { kind: 'file'; name: string; filename: string | undefined; mimetype: string; stream: Readable };

export interface UploadForm {
  /** The next part, in the order the client sent them; undefined at the end of the form. */
  next(): Promise<FormPart | undefined>;
}

/**
 * Parser limits. busboy may let one byte more than the limit through, so the byte counter sees
 * the excess and refuses the file; files: 1 makes a second file part an error rather than a stall.
 */
export const multipartLimits = (maxUploadBytes: number) => ({
  fileSize: maxUploadBytes + 1,
  files: 1,
  fields: 20,
  parts: 30,
  fieldSize: 64 * 1024,
  fieldNameSize: 200,
  headerPairs: 100,
});

export const truncatedUpload = () => badUpload('The request ended before the file was complete.');

/** The form of `request`; a request that is not multipart has no parts (the file is then missing). */
export function multipartForm(request: FastifyRequest, maxUploadBytes: number): UploadForm {
  if (!request.isMultipart()) return { next: async () => undefined };
  const parts = request.parts();
  // With an Idempotency-Key, every part also feeds the request's fingerprint as it streams past.
  const hasher = request.idempotency?.form;
  return {
    async next() {
      let result: IteratorResult<Awaited<ReturnType<typeof parts.next>>['value']>;
      try {
        result = await parts.next();
      } catch (err) {
        throw formError(err, maxUploadBytes);
      }
      if (result.done) {
        hasher?.end();
        return undefined;
      }
      const part = result.value;
      if (part.type === 'file') {
        const stream = hasher ? hasher.file(part.fieldname, part.filename, part.mimetype, part.file) : part.file;
        return { kind: 'file', name: part.fieldname, filename: part.filename, mimetype: part.mimetype, stream };
      }
      hasher?.field(part.fieldname, part.value);
      return { kind: 'field', name: part.fieldname, value: part.value };
    },
  };
}

/** Every failure of the parser comes from the request's bytes: a 400 in plain words, never a 500. */
function formError(err: unknown, maxUploadBytes: number): ApiError {
  if (err instanceof ApiError) return err;
  switch ((err as { code?: string } | undefined)?.code) {
    case 'FST_FILES_LIMIT':
      return badUpload('Send one file per call.');
    case 'FST_REQ_FILE_TOO_LARGE':
      return fileTooLarge(maxUploadBytes);
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return badUpload('Too many form fields.');
    case 'FST_MP_PREMATURE_CLOSE':
      return truncatedUpload();
    default:
      return badUpload('Malformed multipart/form-data body.');
  }
}

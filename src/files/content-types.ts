// Which files each upload endpoint accepts, how a part's type is decided, and how the leading
// bytes must agree with it (decisions.md section 4). The client's header is a claim, the bytes are the proof.
import { fileTypeFromBuffer } from 'file-type';
import { badUpload, contentTypeMismatch, invalidContentType } from '../http/errors.js';

export type FileClass = 'documents' | 'images';

export interface AcceptedType {
  mime: string;
  extensions: readonly string[];
  /** What file-type may report for these bytes; null for formats without a signature (CSV). */
  signatures: readonly string[] | null;
}

const PDF: AcceptedType = { mime: 'application/pdf', extensions: ['pdf'], signatures: ['pdf'] };
// OOXML files are ZIP containers; file-type names them when it can see their first entries.
const XLSX: AcceptedType = {
  mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  extensions: ['xlsx'],
  signatures: ['xlsx', 'zip'],
};
const DOCX: AcceptedType = {
  mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  extensions: ['docx'],
  signatures: ['docx', 'zip'],
};
// Legacy Office files are OLE2 compound files, which file-type reports as 'cfb'.
const XLS: AcceptedType = { mime: 'application/vnd.ms-excel', extensions: ['xls'], signatures: ['cfb'] };
const DOC: AcceptedType = { mime: 'application/msword', extensions: ['doc'], signatures: ['cfb'] };
const CSV: AcceptedType = { mime: 'text/csv', extensions: ['csv'], signatures: null };
const JPEG: AcceptedType = { mime: 'image/jpeg', extensions: ['jpg', 'jpeg'], signatures: ['jpg'] };
const PNG: AcceptedType = { mime: 'image/png', extensions: ['png'], signatures: ['png', 'apng'] };
const WEBP: AcceptedType = { mime: 'image/webp', extensions: ['webp'], signatures: ['webp'] };
const GIF: AcceptedType = { mime: 'image/gif', extensions: ['gif'], signatures: ['gif'] };

const IMAGES = [JPEG, PNG, WEBP, GIF] as const;
export const ACCEPTED: Record<FileClass, readonly AcceptedType[]> = {
  documents: [PDF, XLSX, XLS, DOCX, DOC, CSV, ...IMAGES],
  images: IMAGES,
};

const ALL = ACCEPTED.documents;
const mimesOf = (fileClass: FileClass) => ACCEPTED[fileClass].map((t) => t.mime);
const BY_EXTENSION = new Map(ALL.flatMap((t) => t.extensions.map((ext) => [ext, t] as const)));

// Names clients and operating systems really send for the same formats.
// A Map: the declared type is the client's text, and `constructor` must not find Object's.
const MIME_ALIASES = new Map([
  ['image/jpg', 'image/jpeg'],
  ['image/pjpeg', 'image/jpeg'],
  ['application/x-pdf', 'application/pdf'],
  ['application/csv', 'text/csv'],
  ['text/x-csv', 'text/csv'],
  ['text/comma-separated-values', 'text/csv'],
]);

// A part without its own Content-Type reaches us as text/plain (busboy's default), so text/plain
// says no more than octet-stream: the extension decides for all three.
const UNDECLARED = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'text/plain']);

/** How many leading bytes are sniffed; file-type needs about 4 KB for its deepest checks. */
export const SNIFF_BYTES = 4100;

export function extensionOf(filename: string): string {
  const dot = filename.lastIndexOf('.');
  return dot > 0 ? filename.slice(dot + 1).toLowerCase() : '';
}

/** The accepted type served for a stored name, or undefined: unknown names are served as opaque downloads. */
export function typeForExtension(filename: string): AcceptedType | undefined {
  return BY_EXTENSION.get(extensionOf(filename));
}

/**
 * Decides the type of an uploaded part before any byte is read: the declared type, or the
 * extension's when nothing useful was declared. Image endpoints refuse non-images in plain words
 * and unlisted images with invalid_content_type; document endpoints refuse anything unlisted.
 */
export function declaredType(fileClass: FileClass, declared: string, filename: string): AcceptedType {
  const bare = declared.split(';')[0]?.trim().toLowerCase() ?? '';
  const named = MIME_ALIASES.get(bare) ?? bare;
  const type = UNDECLARED.has(named) ? (typeForExtension(filename)?.mime ?? (named || 'application/octet-stream')) : named;
  if (fileClass === 'images' && !type.startsWith('image/')) {
    throw badUpload(`Only image files can be uploaded here (got '${type}'). Accepted: ${mimesOf('images').join(', ')}.`);
  }
  const accepted = ACCEPTED[fileClass].find((t) => t.mime === type);
  if (!accepted) throw invalidContentType(type, mimesOf(fileClass));
  return accepted;
}

/**
 * Checks the leading bytes against the decided type. Formats with a signature must show it;
 * CSV must not look like any binary format file-type recognises (its NUL bytes are checked while streaming).
 * Returns the type the bytes prove, which differs from the declared one only in the CSV case below.
 */
export async function verifySignature(fileClass: FileClass, type: AcceptedType, head: Buffer, filename: string): Promise<AcceptedType> {
  const sniffed = (await fileTypeFromBuffer(head))?.ext;
  if (type.signatures === null ? sniffed === undefined : sniffed !== undefined && type.signatures.includes(sniffed)) return type;
  // Windows browsers declare .csv files as application/vnd.ms-excel; the bytes and the name settle it.
  if (type === XLS && sniffed === undefined && extensionOf(filename) === 'csv' && ACCEPTED[fileClass].includes(CSV)) return CSV;
  throw contentTypeMismatch(type.mime, sniffed ?? null, mimesOf(fileClass));
}

/** The error for a CSV whose bytes turn out binary while it streams. */
export const binaryCsv = (fileClass: FileClass) => contentTypeMismatch(CSV.mime, 'binary', mimesOf(fileClass));

export const forbidsNul = (type: AcceptedType) => type === CSV;
export const isImage = (type: AcceptedType | undefined) => type !== undefined && IMAGES.includes(type as (typeof IMAGES)[number]);

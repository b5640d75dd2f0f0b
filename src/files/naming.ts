// Names of stored files: the safe filename kept from the client's, the object key, the public URL
// and the Content-Disposition a browser sees. decisions.md section 4.
import { randomBytes } from 'node:crypto';
import type { Config } from '../config.js';
import type { OwnerKind } from './ownership.js';

const MAX_NAME_BYTES = 150;
const EXTENSION = /^[\p{L}\p{N}]{1,16}$/u;
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Cuts `text` to at most `maxBytes` of UTF-8 without splitting a character or a combining sequence. */
function truncateUtf8(text: string, maxBytes: number): string {
  // Nearly every name fits: walking it by grapheme (ICU) cost an upload about 30 µs of CPU (profiled).
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let out = '';
  let bytes = 0;
  for (const { segment } of graphemes.segment(text)) {
    const size = Buffer.byteLength(segment);
    if (bytes + size > maxBytes) break;
    out += segment;
    bytes += size;
  }
  return out;
}

function cleanStem(stem: string): string {
  return (
    stem
      // Letters of every script, digits and a few harmless marks survive; any other run becomes one '_'.
      .replace(/[^\p{L}\p{M}\p{N} ._()-]+/gu, '_')
      .replace(/ {2,}/g, ' ')
      .replace(/\.{2,}/g, '.')
      .replace(/_{2,}/g, '_')
      // Leading dots would hide the file on disk; trailing dots and spaces vanish on some systems.
      .replace(/^[ .]+|[ .]+$/g, '')
  );
}

/**
 * The client's filename made safe to store and to put in a URL: its base name only, no control or
 * invisible formatting characters (bidi overrides can disguise an extension), no '..', at most
 * 150 bytes with the extension kept, never empty.
 */
export function safeFilename(raw: string | undefined): string {
  let name = (raw ?? '').normalize('NFC');
  name = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
  name = name.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, '');
  const dot = name.lastIndexOf('.');
  const extension = dot >= 0 && EXTENSION.test(name.slice(dot + 1)) ? name.slice(dot + 1) : '';
  const suffix = extension ? `.${extension}` : '';
  const stem = cleanStem(extension ? name.slice(0, dot) : name);
  const capped = cleanStem(truncateUtf8(stem, MAX_NAME_BYTES - Buffer.byteLength(suffix)));
  return `${capped || 'file'}${suffix}`;
}

export interface ObjectLocation {
  /** Relative to the media root: `<owner_kind>/<record_id>/<folder>/<8 hex>_<name>`. */
  key: string;
  url: string;
}

/** A fresh location: the random prefix keeps a retry or a same-named file from overwriting anything. */
export function newObjectLocation(
  storage: Config['storage'],
  ownerKind: OwnerKind,
  recordId: string,
  folder: string,
  filename: string,
): ObjectLocation {
  const leaf = `${randomBytes(4).toString('hex')}_${filename}`;
  const segments = [ownerKind, recordId, folder, leaf];
  return {
    key: segments.join('/'),
    url: [storage.publicUrl, storage.mediaBucket, ...segments.map(encodeURIComponent)].join('/'),
  };
}

/** The name a stored leaf was uploaded as (its random prefix dropped). */
export const displayName = (leaf: string) => leaf.replace(/^[0-9a-f]{8}_/, '');

/** RFC 6266 Content-Disposition with an ASCII fallback and the exact UTF-8 name. */
export function contentDisposition(filename: string, inline: boolean): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${inline ? 'inline' : 'attachment'}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

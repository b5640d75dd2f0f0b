// multipart/form-data bodies built by hand, so tests control every byte: part order, missing
// headers, hostile file names, a second file.
import { randomBytes } from 'node:crypto';

export type FormEntry =
  | { name: string; value: string }
  | {
      name: string;
      /** Raw file name as the client sends it (UTF-8 bytes, '"' escaped); omitted means no filename parameter. */
      filename?: string;
      /** Declared part type; null sends no Content-Type header. Default application/octet-stream. */
      contentType?: string | null;
      data: Buffer | string;
    };

export interface MultipartRequest {
  payload: Buffer;
  headers: Record<string, string>;
}

export function multipart(entries: FormEntry[], extraHeaders: Record<string, string> = {}): MultipartRequest {
  const boundary = `----form${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const entry of entries) {
    const lines = [`--${boundary}`];
    if ('value' in entry) {
      lines.push(`Content-Disposition: form-data; name="${entry.name}"`);
      chunks.push(Buffer.from(`${lines.join('\r\n')}\r\n\r\n${entry.value}\r\n`));
      continue;
    }
    const filename = entry.filename === undefined ? '' : `; filename="${entry.filename.replace(/"/g, '%22')}"`;
    lines.push(`Content-Disposition: form-data; name="${entry.name}"${filename}`);
    const type = entry.contentType === undefined ? 'application/octet-stream' : entry.contentType;
    if (type !== null) lines.push(`Content-Type: ${type}`);
    chunks.push(Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), Buffer.from(entry.data), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, ...extraHeaders } };
}

/** The usual upload: one `file` part, optionally preceded by an `audience` field. */
export function fileForm(
  file: { filename: string; contentType?: string | null; data: Buffer | string },
  audience?: string,
): MultipartRequest {
  return multipart([...(audience === undefined ? [] : [{ name: 'audience', value: audience }]), { name: 'file', ...file }]);
}

// multipart/form-data bodies carrying a PDF: a real PDF header, so the service's type sniffing accepts it.
import { Readable } from 'node:stream';

export const BOUNDARY = '----partner-api-bench-7d1f2c';
export const MULTIPART_CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

const head = (filename: string) =>
  Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/pdf\r\n\r\n`,
  );
const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
const PDF_START = Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1');
const PDF_END = Buffer.from('\n%%EOF\n');
const FILLER_LINE = Buffer.from('% bench payload: teardown harvest list, component records and certificates.....\n');

/** `size` bytes of PDF-looking content (header, comment lines, trailer). */
function pdfChunk(offset: number, length: number, size: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) {
    const at = offset + i;
    if (at < PDF_START.length) out[i] = PDF_START[at];
    else if (at >= size - PDF_END.length) out[i] = PDF_END[at - (size - PDF_END.length)];
    else out[i] = FILLER_LINE[(at - PDF_START.length) % FILLER_LINE.length];
  }
  return out;
}

/** A whole multipart body in memory (1 MB uploads: built once, sent many times). */
export function multipartPdf(size: number, filename = 'harvest-list.pdf'): Buffer {
  return Buffer.concat([head(filename), pdfChunk(0, size, size), tail]);
}

/** The same body as a stream of 1 MB chunks, with its total length (the 50 MB upload). */
export function multipartPdfStream(size: number, filename = 'records.pdf'): { stream: Readable; length: number } {
  const first = head(filename);
  const length = first.length + size + tail.length;
  async function* chunks() {
    yield first;
    const step = 1024 * 1024;
    for (let offset = 0; offset < size; offset += step) yield pdfChunk(offset, Math.min(step, size - offset), size);
    yield tail;
  }
  return { stream: Readable.from(chunks()), length };
}

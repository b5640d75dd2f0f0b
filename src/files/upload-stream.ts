// The bytes of an upload on their way to the store: the head peeked for sniffing, then the whole
// file streamed through a counter. Memory holds a few chunks, whatever the file's size.
import { Readable } from 'node:stream';
import { type ApiError, fileTooLarge } from '../http/errors.js';
import { truncatedUpload } from './form.js';

/** Reads the first `size` bytes (or the whole stream, if shorter) and hands back the rest unread. */
export async function peek(stream: Readable, size: number): Promise<{ head: Buffer; rest: AsyncIterator<Buffer> }> {
  const rest = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    while (length < size) {
      const next = await rest.next();
      if (next.done) break;
      chunks.push(next.value);
      length += next.value.length;
    }
  } catch {
    throw truncatedUpload();
  }
  return { head: Buffer.concat(chunks), rest };
}

/**
 * The file as a stream for the store: the peeked head, then the rest, counted on the way. Over the
 * limit, or a NUL in a CSV, the stream fails and the store keeps nothing of it.
 */
export function checkedBody(head: Buffer, rest: AsyncIterator<Buffer>, maxBytes: number, nulError: ApiError | undefined) {
  let bytes = 0;
  const check = (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > maxBytes) throw fileTooLarge(maxBytes);
    if (nulError && chunk.includes(0)) throw nulError;
    return chunk;
  };
  async function* chunks() {
    let finished = false;
    try {
      yield check(head);
      for (;;) {
        let next: IteratorResult<Buffer>;
        try {
          next = await rest.next();
        } catch {
          throw truncatedUpload();
        }
        if (next.done) break;
        yield check(next.value);
      }
      finished = true;
    } finally {
      // Stop reading a refused upload: the parser releases the request instead of buffering it.
      if (!finished) await rest.return?.().catch(() => {});
    }
  }
  return { stream: Readable.from(chunks(), { objectMode: false }), bytes: () => bytes };
}

// The filesystem store on its own: what put() answers and leaves on disk.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { fsObjectStore } from '../../src/files/fs-store.js';
import { StorageError } from '../../src/files/object-store.js';

const root = mkdtempSync(join(tmpdir(), 'fs-store-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('filesystem store', () => {
  const store = fsObjectStore(root, 'media');

  it('answers the size it wrote, and leaves the whole file under its key with nothing partial beside it', async () => {
    const chunks = [Buffer.from('%PDF-1.4 '), Buffer.alloc(70_000, 0x41), Buffer.from('é€ end')];
    const total = chunks.reduce((n, c) => n + c.length, 0);
    const stored = await store.put('teardowns/t1/documents/ab12cd34_report.pdf', Readable.from(chunks), 'application/pdf');
    expect(stored).toEqual({ key: 'teardowns/t1/documents/ab12cd34_report.pdf', size: total });
    const dir = join(root, 'media/teardowns/t1/documents');
    expect(readdirSync(dir)).toEqual(['ab12cd34_report.pdf']);
    expect(readFileSync(join(dir, 'ab12cd34_report.pdf'))).toEqual(Buffer.concat(chunks));
  });

  it('answers size 0 for an empty body', async () => {
    expect(await store.put('teardowns/t2/documents/empty.pdf', Readable.from([]), 'application/pdf')).toEqual({
      key: 'teardowns/t2/documents/empty.pdf',
      size: 0,
    });
  });

  it('refuses a key that would leave the media root, writing nothing', async () => {
    await expect(store.put('../outside.pdf', Readable.from([Buffer.from('x')]), 'application/pdf')).rejects.toBeInstanceOf(StorageError);
    expect(existsSync(join(root, 'outside.pdf'))).toBe(false);
  });
});

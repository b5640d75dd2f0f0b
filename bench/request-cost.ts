// Cost of one hostile request: a PATCH whose JSON body holds many unknown keys. Starts the service
// (in-memory PGlite) in a child process, sends the body over real HTTP, and reports the time to the
// answer, its size and item count, and the server's resident memory before and at its peak.
//
//   npx tsx bench/request-cost.ts                 # 1,000,000 keys (8.9 MB) and 110,000 keys (1 MB)
//   npx tsx bench/request-cost.ts 250000          # chosen key counts
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { readMemoryKb, watchMemory } from './memory.js';

async function serve() {
  const { createTestApp } = await import('../test/helpers/app.js');
  const { createSeller } = await import('../test/helpers/factories.js');
  const { createListing } = await import('../test/helpers/listings.js');
  const t = await createTestApp({ env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
  const seller = await createSeller(t);
  const listing = await createListing(t, seller);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ port: address.port, headers: seller.headers, id: listing.id })}\n`);
  process.on('SIGTERM', () => void t.close().then(() => process.exit(0)));
}

async function measure(counts: number[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), 'serve'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
    const { port, headers, id } = JSON.parse(line) as { port: number; headers: Record<string, string>; id: string };
    const url = `http://127.0.0.1:${port}/public/v1/sales-lease-exchange/${id}`;
    console.log('| keys | body | status | time to answer | answer bytes | items | RSS before | RSS peak |');
    console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const count of counts) {
      const parts: string[] = [];
      for (let i = 0; i < count; i++) parts.push(`"${i.toString(36)}":0`);
      const body = `{${parts.join(',')}}`;
      // Let the previous request's garbage go before opening the window.
      await new Promise((r) => setTimeout(r, 1500));
      const window = watchMemory(child.pid!);
      const started = performance.now();
      const res = await fetch(url, { method: 'PATCH', headers: { ...headers, 'content-type': 'application/json' }, body });
      const text = await res.text();
      const ms = performance.now() - started;
      const memory = window.close();
      let items = 0;
      try {
        const detail = JSON.parse(text).detail;
        items = Array.isArray(detail) ? detail.length : 0;
      } catch {}
      const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
      console.log(
        `| ${count.toLocaleString('en')} | ${mb(Buffer.byteLength(body))} | ${res.status} | ${(ms / 1000).toFixed(2)} s | ${text.length.toLocaleString('en')} | ${items.toLocaleString('en')} | ${memory.startMb.toFixed(0)} MB | ${memory.peakMb.toFixed(0)} MB |`,
      );
    }
    console.log(`(server RSS now: ${((readMemoryKb(child.pid!)?.rss ?? 0) / 1024).toFixed(0)} MB)`);
  } finally {
    child.kill('SIGTERM');
  }
}

if (process.argv[2] === 'serve') await serve();
else {
  const counts = process.argv
    .slice(2)
    .map(Number)
    .filter((n) => n > 0);
  await measure(counts.length > 0 ? counts : [110_000, 1_000_000]);
}

// The README's curl walkthrough, run as a newcomer runs it: its two shell blocks, verbatim but for
// the three exported values (the address, the demo key, its organization), in bash from the
// repository's root against a real listening app. Catches a walkthrough that drifts from the service,
// a sample file that goes missing, a curl that fails silently.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoAccount, type DemoAccount } from '../../src/accounts/demo.js';
import { backend, createTestApp, type TestApp } from '../helpers/app.js';

/** The ```sh blocks of the README section that starts with `heading`, up to the next `## `. */
function shellBlocks(readme: string, heading: string): string[] {
  const start = readme.indexOf(`\n${heading}\n`);
  const end = readme.indexOf('\n## ', start + heading.length + 2);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);
}

describe.runIf(backend() === 'pglite')('the README walkthrough', () => {
  let t: TestApp;
  let demo: DemoAccount;
  let api: string;

  beforeAll(async () => {
    t = await createTestApp();
    demo = await createDemoAccount(t.app.ctx.db);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    api = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}/public/v1`;
  });
  afterAll(async () => t?.close());

  it('runs as written: every curl is -sS, the create, list, transition, upload, listing, retry and ETag steps answer as the comments say', async () => {
    const blocks = shellBlocks(readFileSync('README.md', 'utf8'), '## A walkthrough with curl');
    expect(blocks).toHaveLength(4); // the walkthrough, retries and ETags, the event feed, updated_since
    const script = blocks.join('\n');
    for (const line of script.split('\n').filter((l) => /\bcurl\b/.test(l))) expect(line).toMatch(/curl -sSi? /);

    const values: Record<string, string> = { API: api, KEY: demo.key, ORG: demo.orgId };
    const runnable = script.replace(/^export (API|KEY|ORG)=.*$/gm, (_line, name: string) => `export ${name}='${values[name]}'`);
    expect(runnable).not.toContain('svc_live_...');

    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      execFile('bash', ['-euo', 'pipefail', '-c', runnable], { timeout: 60_000 }, (err, out, errOut) =>
        done({ code: err ? Number(err.code ?? -1) : 0, stdout: out, stderr: errOut }),
      );
    });
    expect(code, stderr).toBe(0);
    const output = stdout + stderr;
    expect(output).toMatch(/"teardown_id":"[0-9a-f-]{36}"/); // the create, echoed while $ID is kept
    expect(output).toContain('"status":"active_in_process","previous_status":null'); // the transition
    expect(output).toMatch(/"filename":"harvest-list\.pdf","size":\d+,"content_type":"application\/pdf"/); // the upload
    expect(output).toContain('"title":"CFM56-5B4/3 QEC, fresh shop visit"'); // the listing, created and listed
    expect(output.match(/^idempotent-replayed: true\r?$/gim)).toHaveLength(1); // the retried create
    expect(output).toContain('"error_code":"precondition_failed"'); // the losing PATCH
    expect(output).toMatch(/^HTTP\/1\.1 304 Not Modified/m); // the cached read
    expect(output).toMatch(/"type":"teardown\.status_changed","created_at":"[^"]+","data":\{"entity_id":"[0-9a-f-]{36}","object":\{/); // the feed
    expect(output).toMatch(/"next_cursor":"[A-Za-z0-9_-]+","has_more":false/); // the feed, resumed
    // Nothing else went wrong: no other error answer, no curl error.
    expect(output.match(/"error_code"/g)).toHaveLength(1);
    expect(output).not.toMatch(/curl: \(\d+\)|not found|Not Found/);
  });
});

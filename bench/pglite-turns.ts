// What starting each PGlite statement on its own turn of the event loop costs (src/db/pglite-turns.ts):
// CPU per statement of 20,000 primary-key reads, 50 at a time on the one connection, with the
// adapter as PGlite ships it ('none') and with the service's wrapper ('turns'), alternated ROUNDS
// times in fresh processes. Usage: npx tsx bench/pglite-turns.ts [rounds]
import { execFileSync } from 'node:child_process';
import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import pg from 'pg';
import { pgliteYieldingBetweenStatements } from '../src/db/pglite-turns.js';

const STATEMENTS = 20_000;
const CONCURRENCY = 50;

async function measureOne(mode: 'none' | 'turns'): Promise<number> {
  const pglite = await PGlite.create('memory://');
  await pglite.exec('CREATE TABLE t (id int PRIMARY KEY, v text); INSERT INTO t SELECT g, md5(g::text) FROM generate_series(1, 10000) g');
  const pool = new pg.Pool({
    ...createPgConfig(mode === 'turns' ? pgliteYieldingBetweenStatements(pglite) : pglite),
    max: 1,
  } as pg.PoolConfig);
  let next = 0;
  const worker = async () => {
    while (next < STATEMENTS) await pool.query('SELECT * FROM t WHERE id = $1', [(next++ % 10000) + 1]);
  };
  await Promise.all(Array.from({ length: 10 }, worker)); // JIT warm-up, not measured
  next = 0;
  const before = process.cpuUsage();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const cpu = process.cpuUsage(before);
  await pool.end();
  await pglite.close();
  return (cpu.user + cpu.system) / STATEMENTS;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

if (process.argv[2] === 'none' || process.argv[2] === 'turns') {
  console.log(await measureOne(process.argv[2]));
} else {
  const rounds = Number(process.argv[2] ?? 5);
  const results: Record<'none' | 'turns', number[]> = { none: [], turns: [] };
  for (let round = 0; round < rounds; round++) {
    const order: ('none' | 'turns')[] = round % 2 === 0 ? ['none', 'turns'] : ['turns', 'none'];
    for (const mode of order) {
      results[mode].push(
        Number(execFileSync(process.execPath, ['--import', 'tsx', import.meta.filename, mode], { encoding: 'utf8' }).trim()),
      );
    }
  }
  for (const mode of ['none', 'turns'] as const) {
    console.log(
      `${mode.padEnd(5)} median ${median(results[mode]).toFixed(1)} µs CPU per statement (${results[mode].map((x) => x.toFixed(1)).join(', ')})`,
    );
  }
}

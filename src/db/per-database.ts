// Objects built over a database handle (repositories: a dozen closures each), built once per handle
// instead of once per request. A transaction is a handle of its own, so it gets its own, as before.
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: keyed by any Kysely instance, whatever its schema type
export function perDatabase<D extends Kysely<any>, T>(build: (db: D) => T): (db: D) => T {
  const built = new WeakMap<D, T>();
  return (db) => {
    let value = built.get(db);
    if (value === undefined) {
      value = build(db);
      built.set(db, value);
    }
    return value;
  };
}

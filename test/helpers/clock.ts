// A clock tests move by hand, so expiry logic is tested without sleeping.
import type { Clock } from '../../src/clock.js';

export function manualClock(start = new Date()): Clock & { set(to: Date | string): void; advance(ms: number): void } {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    set(to: Date | string) {
      current = new Date(to).getTime();
    },
    advance(ms: number) {
      current += ms;
    },
  };
}

// Time comes from here, so expiry logic is testable without sleeping.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests move by hand. */
export function manualClock(start = new Date()) {
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

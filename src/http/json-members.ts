// Counts the members of the objects in a JSON text without building them. JSON.parse of an object
// with a million keys costs V8 most of a second and hundreds of megabytes before any validation can
// refuse it; no body of this API has an object of more than a few dozen members. The scan reads the
// text once (strings are skipped with indexOf) and keeps the first keys of the top-level object.
import { MAX_ERROR_ITEMS, type SchemaErrorItem, tooManyErrorsItem } from './errors.js';

export interface MemberScan {
  /** Members of the largest object anywhere in the text. */
  largest: number;
  /** Members of the top-level object (0 when the text is not an object). */
  topLevel: number;
  /** The first top-level keys, decoded, in order. */
  keys: string[];
  /** Top-level members whose key, as written, is one of `declared` (see scanMembers). */
  declaredSeen: number;
}

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;
const COLON = 58;

/** Scans `text`; undefined when it is not well-formed enough to scan (JSON.parse then reports the error). */
export function scanMembers(text: string, keysToKeep: number, declared?: ReadonlySet<string>): MemberScan | undefined {
  const counts: number[] = []; // members of each open container; -1 marks an array
  const keys: string[] = [];
  // Declared keys are plain ASCII names: compared as written (`"title"`), without decoding each key.
  const literals = new Set([...(declared ?? [])].map((key) => JSON.stringify(key)));
  let declaredSeen = 0;
  let largest = 0;
  let topLevel = 0;
  let lastString: [number, number] = [-1, -1];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let end = text.indexOf('"', i + 1);
      // A quote preceded by an odd number of backslashes is escaped: look further.
      for (;;) {
        if (end < 0) return undefined;
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes++;
        if (slashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      lastString = [i, end];
      i = end;
    } else if (c === OPEN_OBJECT) {
      counts.push(0);
    } else if (c === OPEN_ARRAY) {
      counts.push(-1);
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      const members = counts.pop();
      if (members === undefined) return undefined;
      if (members > largest) largest = members;
      if (counts.length === 0 && c === CLOSE_OBJECT) topLevel = members;
    } else if (c === COLON) {
      const top = counts.length - 1;
      if (top < 0 || counts[top] === -1) return undefined;
      counts[top] = (counts[top] ?? 0) + 1;
      if (top === 0 && literals.size > 0 && literals.has(text.slice(lastString[0], lastString[1] + 1))) declaredSeen++;
      if (top === 0 && keys.length < keysToKeep) {
        try {
          keys.push(JSON.parse(text.slice(lastString[0], lastString[1] + 1)));
        } catch {
          return undefined;
        }
      }
    }
  }
  return counts.length === 0 ? { largest, topLevel, keys, declaredSeen } : undefined;
}

/**
 * No object of this API has more than a few dozen members; a body holding one of more than this is
 * refused before parsing. Below it, validation itself reports (at most 100 of) every problem.
 */
export const MAX_OBJECT_MEMBERS = 10_000;
/** Texts shorter than this cannot hold an object that large, and are not scanned. */
const SCAN_FROM_BYTES = 8 * MAX_OBJECT_MEMBERS;

/**
 * The 422 items for a body holding an object of more than MAX_OBJECT_MEMBERS members, or undefined
 * for any other text. The top-level object's first unknown keys are reported as extra_forbidden
 * (as validation would), the others counted in one too_many_errors item; a huge object deeper in
 * the body is one object_too_large item. Values are not examined, nor is the rest of the text's
 * syntax: such a body is refused whatever else is wrong with it.
 */
export function oversizedObjectItems(text: string, declared: ReadonlySet<string> | undefined): SchemaErrorItem[] | undefined {
  if (text.length < SCAN_FROM_BYTES) return undefined;
  const scan = scanMembers(text, MAX_ERROR_ITEMS + (declared?.size ?? 0), declared);
  if (!scan || scan.largest <= MAX_OBJECT_MEMBERS) return undefined;
  if (scan.topLevel <= MAX_OBJECT_MEMBERS) {
    return [
      {
        type: 'object_too_large',
        loc: ['body'],
        msg: `An object in the body has ${scan.largest} members; at most ${MAX_OBJECT_MEMBERS} are accepted, and the body was not examined further`,
        input: null,
        ctx: { members: scan.largest, limit: MAX_OBJECT_MEMBERS },
      },
    ];
  }
  const items: SchemaErrorItem[] = [];
  for (const key of scan.keys) {
    if (items.length === MAX_ERROR_ITEMS) break;
    if (!declared?.has(key))
      items.push({ type: 'extra_forbidden', loc: ['body', key], msg: 'Extra inputs are not permitted', input: null });
  }
  // Every undeclared member is one extra_forbidden error: those not listed are counted.
  items.push(tooManyErrorsItem('body', scan.topLevel - scan.declaredSeen - items.length));
  return items;
}

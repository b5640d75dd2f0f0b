// Where and why a JSON text is malformed, as Python's json module reports it (FastAPI's
// `json_invalid` item carries its `pos` and `msg`). V8's own messages often omit the position,
// so the text is re-scanned; this runs only after JSON.parse has already failed.

export interface JsonSyntaxError {
  /** Offset in characters (code points, as Python counts them). */
  pos: number;
  msg: string;
}

const WS = new Set([' ', '\t', '\n', '\r']);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/y;
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const HEX4 = /^[0-9a-fA-F]{4}$/;

class Failure {
  constructor(
    readonly index: number,
    readonly msg: string,
  ) {}
}

/** The first syntax error of `text`, or undefined when it is valid JSON. Iterative: depth costs no stack. */
export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const result = scan(text);
  if (!result) return undefined;
  return { pos: codePointOffset(text, result.index), msg: result.msg };
}

function scan(text: string): Failure | undefined {
  const n = text.length;
  const ws = (i: number) => {
    while (i < n && WS.has(text[i] as string)) i++;
    return i;
  };

  /** Index just past the string starting at `start` (a quote), or a Failure. */
  const string = (start: number): number | Failure => {
    let i = start + 1;
    while (i < n) {
      const c = text[i] as string;
      if (c === '"') return i + 1;
      if (c === '\\') {
        const e = text[i + 1];
        if (e === 'u') {
          if (!HEX4.test(text.slice(i + 2, i + 6))) return new Failure(i + 1, 'Invalid \\uXXXX escape');
          i += 6;
        } else if (e !== undefined && ESCAPES.has(e)) i += 2;
        else return new Failure(i, 'Invalid \\escape');
        continue;
      }
      if (c < ' ') return new Failure(i, 'Invalid control character at');
      i++;
    }
    return new Failure(start, 'Unterminated string starting at');
  };

  /** Parses `"key" :` at i; the index just past the colon, or a Failure. */
  const member = (i: number): number | Failure => {
    if (text[i] !== '"') return new Failure(i, 'Expecting property name enclosed in double quotes');
    const end = string(i);
    if (end instanceof Failure) return end;
    const colon = ws(end);
    if (text[colon] !== ':') return new Failure(colon, "Expecting ':' delimiter");
    return colon + 1;
  };

  const stack: string[] = [];
  let i = 0;
  for (;;) {
    // A value is expected at i.
    i = ws(i);
    const c = text[i];
    if (c === '{' || c === '[') {
      const inner = ws(i + 1);
      if (text[inner] === (c === '{' ? '}' : ']')) i = inner + 1;
      else if (c === '{') {
        const next = member(inner);
        if (next instanceof Failure) return next;
        stack.push('{');
        i = next;
        continue;
      } else {
        stack.push('[');
        i = inner;
        continue;
      }
    } else if (c === '"') {
      const end = string(i);
      if (end instanceof Failure) return end;
      i = end;
    } else if (text.startsWith('true', i) || text.startsWith('null', i)) i += 4;
    else if (text.startsWith('false', i)) i += 5;
    else {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      if (!m) return new Failure(i, 'Expecting value');
      i += m[0].length;
    }

    // After a value: close containers or expect the next element.
    for (;;) {
      i = ws(i);
      const top = stack[stack.length - 1];
      if (top === undefined) return i < n ? new Failure(i, 'Extra data') : undefined;
      const d = text[i];
      if (d === (top === '{' ? '}' : ']')) {
        stack.pop();
        i++;
        continue;
      }
      if (d !== ',') return new Failure(i, "Expecting ',' delimiter");
      if (top === '[') {
        i++;
        break;
      }
      const next = member(ws(i + 1));
      if (next instanceof Failure) return next;
      i = next;
      break;
    }
  }
}

function codePointOffset(text: string, index: number): number {
  let count = 0;
  for (let i = 0; i < index; i++) {
    const code = text.charCodeAt(i);
    // A surrogate pair is one character for Python.
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < index) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

// The teardown lifecycle as a picture for the docs page (served at /docs/assets/teardown-lifecycle.svg,
// shown by the "Teardown lifecycle" guide). Drawn by hand from teardowns/state-machine.ts (MOVES):
// test/docs/lifecycle-picture.test.ts checks that every action and status of the machine appears here.
// A TypeScript string rather than a .svg file so that the compiled service in dist/ carries it too.

const BOX_W = 150;
const BOX_H = 58;

function state(x: number, y: number, label: string, status: string, fill: string, stroke: string): string {
  return [
    `<rect x="${x}" y="${y}" width="${BOX_W}" height="${BOX_H}" rx="10" fill="${fill}" stroke="${stroke}" stroke-width="1.5"/>`,
    `<text x="${x + BOX_W / 2}" y="${y + 25}" class="state">${label}</text>`,
    `<text x="${x + BOX_W / 2}" y="${y + 44}" class="code">${status}</text>`,
  ].join('\n  ');
}

/** A straight arrow; `operator` draws it dashed. */
const arrow = (x1: number, y1: number, x2: number, y2: number, operator = false) =>
  `<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" class="${operator ? 'move operator' : 'move'}" marker-end="url(#${operator ? 'head-op' : 'head'})"/>`;

/** One or more lines of label text; `anchor` is start, middle or end. */
const label = (x: number, y: number, lines: string[], anchor = 'middle', cls = 'action') =>
  lines.map((line, i) => `<text x="${x}" y="${y + i * 15}" text-anchor="${anchor}" class="${cls}">${line}</text>`).join('\n  ');

const ACTIVE_FILL = '#e8f5e9';
const ACTIVE_STROKE = '#2e7d32';

export const TEARDOWN_LIFECYCLE_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1040 500" width="1040" height="500" role="img" aria-labelledby="title desc">
  <title id="title">Teardown lifecycle</title>
  <desc id="desc">Statuses of a teardown and the transition actions between them. Solid arrows: seller actions sent to POST /public/v1/teardowns/transition/{teardown_id}. Dashed arrows: operator actions.</desc>
  <style>
    text { font-family: -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; fill: #1b1f23; }
    .state { font-size: 16px; font-weight: 600; text-anchor: middle; }
    .code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 12px; text-anchor: middle; fill: #3b4151; }
    .action { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 12.5px; font-weight: 600; fill: #0b5394; }
    .note { font-size: 12px; fill: #3b4151; }
    .group { font-size: 13px; font-weight: 600; fill: ${ACTIVE_STROKE}; }
    .operator-label { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 12.5px; font-weight: 600; fill: #b3261e; }
    .move { stroke: #0b5394; stroke-width: 1.8; fill: none; }
    .move.operator { stroke: #b3261e; stroke-dasharray: 6 4; }
  </style>
  <defs>
    <marker id="head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#0b5394"/></marker>
    <marker id="head-op" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#b3261e"/></marker>
  </defs>
  <rect x="0" y="0" width="1040" height="500" fill="#ffffff"/>

  <!-- create -->
  <rect x="8" y="104" width="112" height="40" rx="20" fill="#ffffff" stroke="#0b5394" stroke-width="1.5"/>
  <text x="64" y="129" text-anchor="middle" class="action">POST create</text>
  ${label(10, 164, ['status:', 'Starting,', 'In process or', 'Completed'], 'start', 'note')}
  ${arrow(120, 124, 158, 124)}

  <!-- published: the three active statuses -->
  <rect x="160" y="40" width="760" height="160" rx="14" fill="#f6fbf6" stroke="${ACTIVE_STROKE}" stroke-width="1.5"/>
  <text x="176" y="62" class="group">Published (active_*): listed, expires_at = publication + 90 days, then auto-archived</text>
  ${state(200, 100, 'Starting', 'active_starting', ACTIVE_FILL, ACTIVE_STROKE)}
  ${state(450, 100, 'In Process', 'active_in_process', ACTIVE_FILL, ACTIVE_STROKE)}
  ${state(700, 100, 'Completed', 'active_completed', ACTIVE_FILL, ACTIVE_STROKE)}
  ${arrow(350, 129, 448, 129)}
  ${label(400, 92, ['start_processing'])}
  ${arrow(600, 129, 698, 129)}
  ${label(650, 92, ['complete'])}

  <!-- the other statuses -->
  ${state(165, 330, 'Draft', 'draft', '#fff8e1', '#b7791f')}
  ${state(465, 330, 'Archived', 'archived', '#eceff1', '#546e7a')}
  ${state(765, 330, 'Suspended', 'suspended', '#ffebee', '#b3261e')}

  <!-- active <-> draft -->
  ${arrow(210, 200, 210, 330)}
  ${label(202, 262, ['unpublish', '(from any', 'active_*)'], 'end')}
  ${arrow(275, 330, 275, 158)}
  ${label(283, 255, ['submit', '(published again:', 'new expires_at)'], 'start')}

  <!-- active -> archived -->
  ${arrow(540, 200, 540, 330)}
  ${label(548, 255, ['archive', '(or auto-archive', 'at expires_at)'], 'start')}

  <!-- draft <-> archived -->
  ${arrow(315, 348, 465, 348)}
  ${label(390, 341, ['archive'])}
  ${arrow(465, 372, 315, 372)}
  ${label(390, 390, ['restore'])}

  <!-- suspended <-> archived -->
  ${arrow(765, 348, 615, 348)}
  ${label(690, 341, ['archive'])}
  ${arrow(615, 372, 765, 372)}
  ${label(690, 390, ['restore', '(when held)'])}

  <!-- operator moves -->
  ${arrow(810, 200, 810, 330, true)}
  ${label(802, 255, ['suspend,', 'reject', '(operator)'], 'end', 'operator-label')}
  ${arrow(870, 330, 870, 200, true)}
  ${label(878, 255, ['approve', '(operator;', 'to Starting)'], 'start', 'operator-label')}
  <path d="M 240 388 C 240 430, 760 440, 800 390" class="move operator" marker-end="url(#head-op)"/>
  ${label(520, 440, ['reject (operator, reason required) also applies to draft'], 'middle', 'operator-label')}

  <!-- legend -->
  <line x1="20" y1="475" x2="60" y2="475" class="move" marker-end="url(#head)"/>
  <text x="68" y="479" class="note">seller action: POST /public/v1/teardowns/transition/{teardown_id} {"action": "…"}</text>
  <line x1="610" y1="475" x2="650" y2="475" class="move operator" marker-end="url(#head-op)"/>
  <text x="658" y="479" class="note">operator action: a seller key sending it gets 400</text>
</svg>
`;

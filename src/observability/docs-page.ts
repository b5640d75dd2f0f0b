// The docs page at /docs: Swagger UI, self-hosted by @fastify/swagger-ui (nothing loads from a CDN),
// rendering the partner document (its guides come from guides.ts), plus the static picture the
// lifecycle guide shows. "Try it out" calls this same origin with the key and organization entered
// once under Authorize, kept in the browser's localStorage (persistAuthorization).
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { TEARDOWN_LIFECYCLE_SVG } from './docs-assets/teardown-lifecycle.js';
import { LIFECYCLE_IMAGE_PATH } from './guides.js';

export const DOCS_PREFIX = '/docs';
export const DOCS_TITLE = 'Aviation marketplace partner API: documentation';

/**
 * The page's Content-Security-Policy: the plugin's own policy without `https:` sources (everything is
 * served from here) and without `upgrade-insecure-requests`, which would turn the page's requests to
 * an instance reached over plain HTTP (a laptop, a private network) into failing HTTPS ones.
 * Swagger UI sets element styles from script, which `style-src 'self'` allows.
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "base-uri 'self'",
  "connect-src 'self'",
  "font-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "script-src 'self'",
  "script-src-attr 'none'",
  "style-src 'self'",
].join('; ');

/** Readability: a measure for the guide's prose, visible tables, a framed picture. */
const THEME_CSS = `
.swagger-ui .info { margin: 36px 0 24px; }
.swagger-ui .info .title { font-size: 32px; }
.swagger-ui .info .description { max-width: 1000px; }
.swagger-ui .info .markdown, .swagger-ui .info .renderedMarkdown { font-size: 15px; line-height: 1.6; color: #1b1f23; }
.swagger-ui .info .markdown p, .swagger-ui .info .markdown li, .swagger-ui .info .renderedMarkdown p, .swagger-ui .info .renderedMarkdown li { font-size: 15px; line-height: 1.6; }
.swagger-ui .info .markdown h2, .swagger-ui .info .renderedMarkdown h2 { font-size: 24px; margin: 2.2em 0 0.6em; padding-top: 0.8em; border-top: 1px solid #e3e6ea; }
.swagger-ui .markdown table, .swagger-ui .renderedMarkdown table { border-collapse: collapse; margin: 0.8em 0 1.2em; font-size: 14px; }
.swagger-ui .markdown th, .swagger-ui .markdown td, .swagger-ui .renderedMarkdown th, .swagger-ui .renderedMarkdown td { border: 1px solid #d5d9de; padding: 6px 10px; text-align: left; vertical-align: top; }
.swagger-ui .markdown th, .swagger-ui .renderedMarkdown th { background: #f3f5f7; font-weight: 600; }
.swagger-ui .markdown tr:nth-child(even) td, .swagger-ui .renderedMarkdown tr:nth-child(even) td { background: #fafbfc; }
.swagger-ui .markdown img, .swagger-ui .renderedMarkdown img { display: block; max-width: 100%; height: auto; margin: 1em 0; border: 1px solid #e3e6ea; border-radius: 8px; }
.swagger-ui .markdown pre, .swagger-ui .renderedMarkdown pre { background: #1f2430; color: #e6e6e6; padding: 12px 14px; border-radius: 6px; overflow-x: auto; font-size: 13px; line-height: 1.45; }
.swagger-ui .markdown pre code, .swagger-ui .renderedMarkdown pre code { background: none; color: inherit; padding: 0; }
.swagger-ui .markdown code, .swagger-ui .renderedMarkdown code { font-size: 0.9em; }
.swagger-ui .info .markdown td:first-child code, .swagger-ui .info .renderedMarkdown td:first-child code { white-space: nowrap; }
.swagger-ui .opblock-tag { font-size: 22px; }
.swagger-ui nav.guide-contents { margin: 1.5em 0 0.5em; padding: 12px 18px; background: #ffffff; border: 1px solid #e3e6ea; border-radius: 8px; max-width: 640px; }
.swagger-ui nav.guide-contents strong { font-size: 15px; }
.swagger-ui nav.guide-contents ol { margin: 6px 0 0; padding-left: 22px; columns: 2; column-gap: 28px; }
.swagger-ui nav.guide-contents li { font-size: 14px; line-height: 1.7; margin: 0; }
.swagger-ui nav.guide-contents button { all: unset; cursor: pointer; color: #0b5394; }
.swagger-ui nav.guide-contents button:hover, .swagger-ui nav.guide-contents button:focus-visible { text-decoration: underline; }
`;

/**
 * A table of contents for the guides: Swagger UI gives Markdown headings no anchors, so this script
 * (served from here, as CSP wants) lists the guide's h2 headings above the first one and scrolls to
 * them on click. Swagger UI may re-render the description; the observer puts the list back.
 */
const CONTENTS_JS = `(function () {
  'use strict';
  function build() {
    var body = document.querySelector('.swagger-ui .info .description');
    if (!body || body.querySelector('nav.guide-contents')) return;
    var headings = body.querySelectorAll('h2');
    if (headings.length < 2) return;
    var nav = document.createElement('nav');
    nav.className = 'guide-contents';
    nav.setAttribute('aria-label', 'Guide contents');
    var title = document.createElement('strong');
    title.textContent = 'Contents';
    nav.appendChild(title);
    var list = document.createElement('ol');
    // Targets are looked up at click time: a re-render replaces the heading elements.
    var entries = Array.prototype.map.call(headings, function (heading, index) {
      return { text: heading.textContent, find: function () { return document.querySelectorAll('.swagger-ui .info .description h2')[index]; } };
    });
    entries.push({
      text: 'Operations (Authorize, then Try it out)',
      find: function () { return document.querySelector('.swagger-ui .scheme-container') || document.querySelector('.swagger-ui .opblock-tag-section'); },
    });
    entries.forEach(function (entry) {
      var item = document.createElement('li');
      // A button, not a link: Swagger UI's deep linking scrolls back to the top after a '#' link.
      var link = document.createElement('button');
      link.type = 'button';
      link.textContent = entry.text;
      link.addEventListener('click', function (event) {
        event.preventDefault();
        event.stopPropagation();
        var target = entry.find();
        if (target) target.scrollIntoView({ block: 'start' });
      });
      item.appendChild(link);
      list.appendChild(item);
    });
    nav.appendChild(list);
    headings[0].parentNode.insertBefore(nav, headings[0]);
  }
  new MutationObserver(build).observe(document.documentElement, { childList: true, subtree: true });
  build();
})();
`;

export async function docsPage(app: FastifyInstance): Promise<void> {
  await app.register(swaggerUi, {
    routePrefix: DOCS_PREFIX,
    staticCSP: DOCS_CSP,
    theme: {
      title: DOCS_TITLE,
      css: [{ filename: 'partner-api.css', content: THEME_CSS }],
      js: [{ filename: 'guide-contents.js', content: CONTENTS_JS }],
    },
    uiConfig: {
      // No top bar with a field to load another document: this page documents this API.
      layout: 'BaseLayout',
      deepLinking: true,
      docExpansion: 'list',
      defaultModelsExpandDepth: 0,
      defaultModelExpandDepth: 2,
      displayOperationId: false,
      displayRequestDuration: true,
      filter: true,
      persistAuthorization: true,
      showExtensions: false,
      tryItOutEnabled: false,
    },
  });

  app.get(LIFECYCLE_IMAGE_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply
      .header('content-type', 'image/svg+xml; charset=utf-8')
      // An image, never a document: no script may run even when it is opened directly.
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
      .header('cache-control', 'public, max-age=3600')
      .send(TEARDOWN_LIFECYCLE_SVG),
  );
}

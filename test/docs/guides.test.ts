// The docs page's prose against the code it describes: the check-order table in the order the
// service checks, the lifecycle picture naming every action and status of the state machine, and
// the page's assets and headers as served (no browser needed; the browser test reads the page itself).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEARDOWN_STATUSES } from '../../src/domain/teardowns.js';
import { TEARDOWN_LIFECYCLE_SVG } from '../../src/observability/docs-assets/teardown-lifecycle.js';
import { API_DESCRIPTION, LIFECYCLE_IMAGE_PATH, TAGS } from '../../src/observability/guides.js';
import { MOVES } from '../../src/teardowns/state-machine.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createSeller } from '../helpers/factories.js';
import { multipart } from '../helpers/multipart.js';
import { createTeardown } from '../helpers/teardowns.js';

describe('the guides', () => {
  it('list the authentication refusals in the order of decisions.md section 1', () => {
    const order = [
      'missing_or_malformed_authorization',
      'invalid_organization_header',
      'invalid_api_key',
      'too_many_requests',
      'api_key_expired',
      'organization_mismatch',
      'org_inactive',
      'org_churned',
      'subscription_required',
      'api_access_disabled',
      'api_key_creator_revoked',
      'insufficient_capability',
    ];
    const section = API_DESCRIPTION.slice(API_DESCRIPTION.indexOf('## Authentication'), API_DESCRIPTION.indexOf('## Errors'));
    const positions = order.map((code) => section.indexOf(`\`${code}\``));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it('name every transition action in the lifecycle table and the picture, and every status in the picture', () => {
    for (const action of Object.keys(MOVES)) {
      expect(TEARDOWN_LIFECYCLE_SVG).toContain(action);
      expect(API_DESCRIPTION).toContain(`\`${action}\``);
    }
    for (const status of TEARDOWN_STATUSES) expect(TEARDOWN_LIFECYCLE_SVG).toContain(`>${status}<`);
  });

  it('show the picture and give every partner tag a description', () => {
    expect(API_DESCRIPTION).toContain(`](${LIFECYCLE_IMAGE_PATH})`);
    for (const tag of TAGS) expect(tag.description.length).toBeGreaterThan(40);
  });
});

describe('the docs page as served', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('serves the lifecycle picture as an inert SVG image', async () => {
    const res = await t.app.inject({ method: 'GET', url: LIFECYCLE_IMAGE_PATH });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.body).toBe(TEARDOWN_LIFECYCLE_SVG);
    expect(res.body).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
  });

  it('puts the guides and tags in the served document', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/public/v1/openapi.json' })).json();
    expect(document.info.description).toBe(API_DESCRIPTION);
    expect(document.tags).toEqual(expect.arrayContaining(TAGS));
  });

  it('loads nothing from another origin and never upgrades its requests to HTTPS', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(csp).not.toMatch(/https:|http:/);
    expect(page.body).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
  });

  it('accepts the sample harvest list the README uploads, as curl sends it (type from the .pdf name)', async () => {
    const seller = await createSeller(t);
    const teardown = await createTeardown(t, seller);
    const form = multipart([
      { name: 'file', filename: 'harvest-list.pdf', contentType: 'application/pdf', data: readFileSync('docs/samples/harvest-list.pdf') },
      { name: 'audience', value: 'Lessor, MRO' },
    ]);
    const res = await t.app.inject({
      method: 'POST',
      url: `/public/v1/teardown/harvest-list/${teardown.teardown_id}`,
      headers: { ...seller.headers, ...form.headers },
      payload: form.payload,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ filename: 'harvest-list.pdf', content_type: 'application/pdf' });
  });
});

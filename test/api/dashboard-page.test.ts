import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { localDashboardPage } from '../../src/api/dashboard-page.js';

const require = createRequire(import.meta.url);
/** Bull Board's own template, as installed: the test fails when an upgrade changes what it links. */
const TEMPLATE = readFileSync(require.resolve('@bull-board/ui/dist/index.ejs'), 'utf8');

/** Runs the page's inline scripts with `href` as the page's address; the address it reloads to. */
function reloadOf(html: string, href: string): string | undefined {
  const url = new URL(href);
  let replaced: string | undefined;
  const location = {
    href,
    username: url.username,
    password: url.password,
    replace: (to: string) => void (replaced = to),
  };
  for (const [, code] of html.matchAll(/<script>([\s\S]*?)<\/script>/g))
    runInNewContext(code ?? '', { location, URL });
  return replaced;
}

describe('the dashboard page', () => {
  it("links nothing on another host: Bull Board's Google Fonts link is dropped", () => {
    expect(TEMPLATE).toContain('fonts.googleapis.com');
    const page = localDashboardPage(TEMPLATE);
    expect(page).not.toContain('fonts.googleapis.com');
    expect(page).not.toMatch(/\b(?:src|href)="(?:https?:)?\/\//);
    expect(page).toContain('static/css/');
  });

  it('reloads itself without the credentials of its address, and only then', () => {
    const page = localDashboardPage(TEMPLATE);
    expect(reloadOf(page, 'http://ops:secret-token-0123456789@127.0.0.1:3000/admin/queues?x=1')).toBe(
      'http://127.0.0.1:3000/admin/queues?x=1',
    );
    expect(reloadOf(page, 'http://127.0.0.1:3000/admin/queues')).toBeUndefined();
  });
});

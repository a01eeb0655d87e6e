// The docs send the reader on with relative links: every one of them (README.md, CHANGELOG.md,
// docs/*.md, packages/*/README.md) must lead to a file that exists and, when it names a heading
// (`#anchor`), to a heading of that file, by GitHub's anchor rule. The README lists every page of
// docs/ in its "Where next" list.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

function markdownFiles(): string[] {
  const files = ['README.md', 'CHANGELOG.md'].map((name) => join(ROOT, name)).filter((f) => existsSync(f));
  const docs = join(ROOT, 'docs');
  if (existsSync(docs))
    files.push(
      ...readdirSync(docs)
        .filter((n) => n.endsWith('.md'))
        .map((n) => join(docs, n)),
    );
  const packages = join(ROOT, 'packages');
  if (existsSync(packages)) {
    for (const name of readdirSync(packages)) {
      const readme = join(packages, name, 'README.md');
      if (existsSync(readme)) files.push(readme);
    }
  }
  return files;
}

/** The text without fenced code blocks and code spans, where brackets are not links. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Targets of inline links and images: `[text](target)`, `![alt](target "title")`. */
export function linkTargets(text: string): string[] {
  return [...prose(text).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(
    (m) => m[1] ?? '',
  );
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of text.replace(/^```[\s\S]*?^```$/gm, '').matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const slug = (match[1] ?? '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

function brokenLinks(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const broken: string[] = [];
  for (const target of linkTargets(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:: not ours to check here
    const [path = '', anchor] = target.split('#', 2);
    const resolved = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
    if (!existsSync(resolved)) {
      broken.push(`${target}: no file ${relative(ROOT, resolved)}`);
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) {
      broken.push(`${target}: an anchor into something that is not a Markdown file`);
      continue;
    }
    if (!headingAnchors(readFileSync(resolved, 'utf8')).has(decodeURIComponent(anchor)))
      broken.push(`${target}: no heading #${anchor} in ${relative(ROOT, resolved)}`);
  }
  return broken;
}

describe('relative links in the docs', () => {
  for (const file of markdownFiles()) {
    it(`lead to existing files and headings from ${relative(ROOT, file)}`, () => {
      expect(brokenLinks(file)).toEqual([]);
    });
  }

  it('include every page of docs/ in the README', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const linked = new Set(linkTargets(readme).map((t) => t.split('#')[0]));
    const pages = readdirSync(join(ROOT, 'docs')).filter((n) => n.endsWith('.md'));
    expect(pages.filter((page) => !linked.has(`docs/${page}`))).toEqual([]);
  });
});

describe('the link reader', () => {
  it('finds links and images, not brackets in code', () => {
    expect(
      linkTargets(
        'See [a](docs/a.md#x) and ![p](docs/p.png "P").\n`[no](code.md)`\n```\n[no](block.md)\n```\n',
      ),
    ).toEqual(['docs/a.md#x', 'docs/p.png']);
  });

  it("gives headings GitHub's anchors", () => {
    const anchors = headingAnchors(
      '# Where exports go, and why a reader never sees half of one\n## The columns of `shifts.csv`\n## Notes\n## Notes\n',
    );
    expect([...anchors]).toEqual([
      'where-exports-go-and-why-a-reader-never-sees-half-of-one',
      'the-columns-of-shiftscsv',
      'notes',
      'notes-1',
    ]);
  });
});

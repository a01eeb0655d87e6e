// The pictures of docs/reports-for-many-people.md, "Languages", made from a real run: a sandbox in
// this process (fixed seed and dates, so the same pictures every time), a loopback SMTP server,
// and `shift-export run --export` of a weekly definition split by division and mailed to the
// division managers, for the week 2026-11-09..15 and then 2026-11-16..22 (so the second week's
// mail and Overview compare with the first). Then:
//   docs/mail-ru.png      the HTML part of the Russian manager's mail of «Центр», drawn by headless
//                         Chromium at 720 px wide, as a mail client about that wide shows it;
//   docs/overview-ru.png  the top of page 1 of that mail's workbook, shifts.ru.xlsx, printed by
//                         LibreOffice and drawn at 100 dpi by pdftoppm: the Overview sheet;
//   docs/overview.png     the same of the whole export's English workbook of 2026-11-16..22 (the
//                         README's picture), printed in an en-US locale.
// Every name in them is the sandbox's invention. Run after `npm run build`; needs chromium,
// soffice (Debian: libreoffice-calc) and pdftoppm (poppler-utils).
//
//   node scripts/docs-pictures.mjs [--keep DIR] [--dark]
//
// --keep DIR keeps the run's files (the exports, the PDF, each mail's HTML) in DIR; --dark also
// draws the mail as Chromium's forced dark mode shows it, as DIR/mail-ru-dark.png (needs --keep).

import { Buffer } from 'node:buffer';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { startSandbox } from 'wfm-sandbox';

const run = promisify(execFile);
const root = realpathSync(new URL('..', import.meta.url).pathname);
const keepIndex = process.argv.indexOf('--keep');
const keep = keepIndex > 0 ? process.argv[keepIndex + 1] : undefined;
const dark = process.argv.includes('--dark');
if (dark && keep === undefined) throw new Error('--dark writes beside the kept files: give --keep DIR');
const work = keep ?? mkdtempSync(join(tmpdir(), 'docs-pictures-'));
mkdirSync(work, { recursive: true });

const DEFINITION = 'weekly-divisions';
const DIVISION = 1; // «Центр»: its managers read Russian
const WEEK = '2026-11-16_2026-11-22';
/** The area of page 1 at 100 dpi that holds the headline and the charts, without the margins. */
const OVERVIEW_AREA = { x: 40, y: 50, width: 1020, height: 495 };

const mails = [];
const smtp = new SMTPServer({
  disabledCommands: ['STARTTLS', 'AUTH'],
  authOptional: true,
  logger: false,
  onData(stream, session, callback) {
    const chunks = [];
    stream.on('data', (chunk) => chunks.push(chunk));
    stream.on('end', () => {
      simpleParser(Buffer.concat(chunks)).then(
        (parsed) => {
          mails.push({ to: session.envelope.rcptTo.map((r) => r.address), parsed });
          callback();
        },
        (error) => callback(error),
      );
    });
  },
});
await new Promise((resolve) => smtp.listen(0, '127.0.0.1', resolve));
const sandbox = await startSandbox({ rows: 20_000, seed: 1, endDate: '2026-11-22' });
try {
  const exportsFile = join(work, 'exports.yaml');
  writeFileSync(
    exportsFile,
    [
      'exports:',
      `  - name: ${DEFINITION}`,
      '    period: last-week',
      '    formats: [xlsx]',
      '    lang: en',
      '    split: division',
      '    deliver:',
      '      email: { to: division-managers, attach: [xlsx] }',
      '',
    ].join('\n'),
  );
  const env = {
    PATH: process.env.PATH,
    EXPORTS_FILE: exportsFile,
    EXPORT_DEST: join(work, 'exports'),
    WFM_BASE_URL: sandbox.url,
    WFM_TOKEN: 'sandbox-admin',
    SMTP_URL: `smtp://127.0.0.1:${smtp.server.address().port}`,
    SMTP_FROM: 'Shift reports <reports@retail-sandbox.example>',
    LOG_LEVEL: 'warn',
  };
  // Mondays: each runs the ISO week before it. Asynchronously: the sandbox answers from this process.
  for (const date of ['2026-11-16', '2026-11-23'])
    await run(
      process.execPath,
      [join(root, 'bin/shift-export.js'), 'run', '--export', DEFINITION, '--date', date],
      {
        env,
      },
    );

  const mail = mails.find(
    (m) =>
      m.parsed.headers.get('content-language') === 'ru' && m.parsed.subject.includes(`(${DIVISION}), 16–22`),
  );
  if (mail === undefined) throw new Error(`no Russian mail of division ${DIVISION} for ${WEEK}`);
  const html = join(work, 'mail-ru.html');
  writeFileSync(html, mail.parsed.html);
  if (keep !== undefined)
    mails.forEach((m, i) => writeFileSync(join(work, `mail-${i}.html`), m.parsed.html || ''));

  await screenshot(html, join(root, 'docs/mail-ru.png'), []);
  if (dark)
    await screenshot(html, join(work, 'mail-ru-dark.png'), [
      '--force-dark-mode',
      '--enable-features=WebContentsForceDark',
    ]);

  const folder = join(work, 'exports', DEFINITION, WEEK, 'divisions', String(DIVISION));
  // The cells are numbers and dates with locale-neutral formats: in a Russian locale LibreOffice
  // shows them as a Russian reader's spreadsheet does (74,1 %, 2 108,1, 16.11.2026).
  await overviewPicture(join(folder, 'shifts.ru.xlsx'), 'ru_RU', 'overview-ru');

  // The whole export, unsplit, in English: the README's picture.
  const [from, to] = WEEK.split('_');
  await run(
    process.execPath,
    [join(root, 'bin/shift-export.js'), 'run', '--from', from, '--to', to, '--format', 'xlsx'],
    {
      env: {
        ...Object.fromEntries(Object.entries(env).filter(([key]) => key !== 'EXPORTS_FILE')),
        EXPORT_DEST: join(work, 'demo'),
      },
    },
  );
  await overviewPicture(join(work, 'demo', WEEK, 'shifts.xlsx'), 'en_US', 'overview');

  for (const name of ['mail-ru.png', 'overview-ru.png', 'overview.png'])
    console.log(`docs/${name}: ${Math.round(statSync(join(root, 'docs', name)).size / 1024)} KB`);
  if (keep !== undefined) console.log(`kept in ${work}: ${readdirSync(work).join(', ')}`);
} finally {
  await sandbox.close();
  await new Promise((resolve) => smtp.close(resolve));
  if (keep === undefined) rmSync(work, { recursive: true, force: true });
}

/** Page 1 of `workbook` printed by LibreOffice in `locale`, its top drawn as docs/`name`.png. */
async function overviewPicture(workbook, locale, name) {
  const pdfDir = join(work, `pdf-${name}`);
  const profile = join(work, 'lo-profile');
  await run(
    'soffice',
    [
      `-env:UserInstallation=file://${profile}`,
      '--headless',
      '--convert-to',
      'pdf',
      '--outdir',
      pdfDir,
      workbook,
    ],
    { timeout: 300_000, env: { ...process.env, LANG: `${locale}.UTF-8`, LC_ALL: `${locale}.UTF-8` } },
  );
  const pdf = join(pdfDir, readdirSync(pdfDir).find((file) => file.endsWith('.pdf')) ?? 'missing.pdf');
  // The top of page 1 at 100 dpi: the headline and the two charts (at 70 dpi the sheet's text
  // cannot be read); the charts' tables below are left out.
  await run('pdftoppm', [
    '-png',
    '-r',
    '100',
    '-f',
    '1',
    '-l',
    '1',
    '-x',
    String(OVERVIEW_AREA.x),
    '-y',
    String(OVERVIEW_AREA.y),
    '-W',
    String(OVERVIEW_AREA.width),
    '-H',
    String(OVERVIEW_AREA.height),
    '-singlefile',
    pdf,
    join(root, 'docs', name),
  ]);
}

/** The HTML file drawn by headless Chromium, 720 px wide, as `png`. */
async function screenshot(file, png, flags) {
  await run(
    'chromium',
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--hide-scrollbars',
      ...flags,
      `--screenshot=${png}`,
      '--window-size=720,1100',
      `file://${file}`,
    ],
    { timeout: 120_000 },
  );
}

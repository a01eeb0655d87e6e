// Bull Board's page as this API serves it: nothing loaded from another host, and a page opened with
// the token in its URL (http://ops:TOKEN@host/admin/queues) that works. Bull Board's template links
// Google Fonts (the dashboard of an internal service would tell Google who opens it, and the page
// waits for it offline: it falls back to the system font instead). A browser refuses fetch() of a
// URL with credentials, and the page's own URL lends them to every relative URL, so Bull Board's
// API calls fail and it stays on "Loading": the page first drops the credentials from its address
// (the browser keeps them for the Basic auth of the reload).

/** Runs before Bull Board's scripts: reloads the page without credentials in its URL. */
const DROP_URL_CREDENTIALS =
  '<script>if(location.username||location.password){var u=new URL(location.href);u.username="";u.password="";location.replace(u.href)}</script>';

const EXTERNAL_LINK = /<link\b[^>]*\bhref="(?:https?:)?\/\/[^"]*"[^>]*>\s*/gi;
const EXTERNAL_SCRIPT = /<script\b[^>]*\bsrc="(?:https?:)?\/\/[^"]*"[^>]*>\s*<\/script>\s*/gi;

/** The dashboard's HTML without links to other hosts, and with the credentials fix in its head. */
export function localDashboardPage(html: string): string {
  const local = html.replace(EXTERNAL_LINK, '').replace(EXTERNAL_SCRIPT, '');
  return local.includes('</head>') ? local.replace('</head>', `${DROP_URL_CREDENTIALS}</head>`) : local;
}

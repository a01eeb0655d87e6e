// The wrongBody fault's answers (faults.ts): a 200 whose body is not the report, as a proxy in
// maintenance or an API gateway's envelope would send. The HTML page echoes the Authorization
// header it was sent, as a debugging proxy might, so that tests can check the client's error
// quotes the page without the token.

export interface WrongBody {
  readonly status: 200;
  readonly headers: Readonly<Record<string, string>>;
  readonly chunks: readonly Buffer[];
}

export function wrongBody(kind: 'html' | 'object', authorization: string | undefined): WrongBody {
  if (kind === 'object') {
    const envelope = {
      status: 'unavailable',
      message: 'the report is being rebuilt, try again later',
      data: [],
    };
    return { status: 200, headers: {}, chunks: [Buffer.from(JSON.stringify(envelope))] };
  }
  const page = [
    '<!DOCTYPE html>',
    `<!-- proxy debug: Authorization: ${authorization ?? '(none)'} -->`,
    '<html><head><title>503 Service Temporarily Unavailable</title></head>',
    '<body><h1>Service Temporarily Unavailable</h1>',
    '<p>The reporting service is down for maintenance.</p>',
    '</body></html>',
  ].join('\n');
  return {
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    chunks: [Buffer.from(page)],
  };
}

// `--dest s3` for the bench: an in-memory S3 (fauxqs) in its own child process, so the uploaded
// bytes it holds do not count towards the export's peak RSS. Run as
// `node dist/bench/s3-server.js`; prints `s3 listening on <url>` once the bucket exists.

import { startFauxqs } from 'fauxqs';

export const BENCH_BUCKET = 'bench';

const server = await startFauxqs({ port: 0, host: '127.0.0.1', logger: false });
server.createBucket(BENCH_BUCKET);
process.stdout.write(`s3 listening on http://127.0.0.1:${server.port}\n`);
const stop = (): void => void server.stop().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);

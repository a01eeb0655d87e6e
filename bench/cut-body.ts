// A downloaded report body cut as the report reader cuts it (JsonArrayScanner), for the bench
// scripts that time the cutting or what comes after it (body-scan.ts, cut-work-stages.ts).

import { JsonArrayScanner } from '../src/wfm/json-array-scanner.js';
import { parseCut, type ScannedCut } from '../src/wfm/scanned-cut.js';

/**
 * Feeds `body` to a scanner `chunkBytes` at a time and hands each cut to `onCut` in order, before
 * its bytes go back to the scanner's pool. With `check`, each cut is parsed as the export threads
 * parse it, and a guess that does not parse is cut again (as the reader does); without, every
 * guess is taken as it comes (a timed run over a body already checked). Returns how many cuts.
 */
export function cutBody(
  body: Buffer,
  chunkBytes: number,
  check: boolean,
  onCut: (cut: ScannedCut) => void = () => undefined,
): number {
  const scanner = new JsonArrayScanner({ maxBodyBytes: body.length, maxRowBytes: 16 * 1024 * 1024 });
  let queue: ScannedCut[] = [];
  let count = 0;
  const take = (): void => {
    while (queue.length > 0) {
      const cut = queue.shift() as ScannedCut;
      if (check) {
        try {
          parseCut(cut);
        } catch (error) {
          if (!cut.guessed) throw error;
          queue = scanner.rewind(cut);
          continue;
        }
      }
      scanner.confirm(cut);
      onCut(cut);
      scanner.recycle(cut.bytes);
      count++;
    }
  };
  for (let at = 0; at < body.length; at += chunkBytes) {
    queue.push(...scanner.pushCuts(body.subarray(at, at + chunkBytes)));
    take();
  }
  queue.push(...scanner.endCuts());
  take();
  return count;
}

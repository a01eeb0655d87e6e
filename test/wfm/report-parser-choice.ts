// Which parser the report reader's tests read with: this thread's (the default), or one that
// answers later, as parse threads do, so that every resume and paging case is also read with
// cuts whose rows, and ids, arrive after the next chunk (report-reader-lagging.int.test.ts).

import { setImmediate as nextTurn } from 'node:timers/promises';
import type { RawRows } from '../../src/domain/raw-rows.js';
import type { CutParser } from '../../src/wfm/parsed-cuts.js';
import { PARSE_HERE } from '../../src/wfm/report-reader.js';

let chosen: CutParser<RawRows> | undefined;

export function chooseReportParser(parser: CutParser<RawRows>): void {
  chosen = parser;
}

/** The parser chosen for this test file; undefined: the client's default. */
export function chosenReportParser(): CutParser<RawRows> | undefined {
  return chosen;
}

/** Parses like PARSE_HERE, `depth` cuts at a time, each answer a turn of the event loop later. */
export function laggingParser(depth: number): CutParser<RawRows> {
  return {
    depth,
    async parse(cut) {
      await nextTurn();
      return PARSE_HERE.parse(cut);
    },
  };
}

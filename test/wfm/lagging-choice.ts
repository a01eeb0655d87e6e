// Imported first by report-reader-lagging.int.test.ts: the reader's tests then read with a parser
// that answers later (report-parser-choice.ts).

import { chooseReportParser, laggingParser } from './report-parser-choice.js';

chooseReportParser(laggingParser(4));

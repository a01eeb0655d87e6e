// The report reader's tests again, with cuts parsed up to four at once and answered a turn of the
// event loop later, as parse threads answer: the resume position, paging and completeness must
// hold when the ids of a cut are known only after the next chunk has been read.

import './lagging-choice.js';
import './report-reader.int.test.js';

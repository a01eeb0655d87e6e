'use strict';
// crc-32's API (buf, bstr, str: signed 32-bit results, an optional seed that is a previous result)
// computed by node:zlib's crc32 (native, Node >= 20.15). Checked against a table-driven CRC-32 in
// test/stubs/crc-32.test.ts.

const { crc32 } = require('node:zlib');

/** crc-32 reads its seed as `seed ^ -1`: anything that is not a number counts as 0. */
function seedOf(seed) {
  return (Number(seed) | 0) >>> 0;
}

function bytesOf(data) {
  return ArrayBuffer.isView(data) ? data : Uint8Array.from(data);
}

exports.version = '1.2.2';
exports.buf = (data, seed) => crc32(bytesOf(data), seedOf(seed)) | 0;
exports.bstr = (text, seed) => crc32(Buffer.from(text, 'latin1'), seedOf(seed)) | 0;
exports.str = (text, seed) => crc32(Buffer.from(text, 'utf8'), seedOf(seed)) | 0;

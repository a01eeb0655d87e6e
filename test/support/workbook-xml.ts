// Reads a workbook as its parts and checks each XML part the way a strict reader does: the zip is
// read with node:zlib (stored or deflated entries), each part must be valid UTF-8 and well-formed
// XML 1.0 — every character an XML Char — by saxes, the parser exceljs itself reads workbooks with
// (taken from exceljs's own dependencies, so no package of ours).

import { createRequire } from 'node:module';
import { inflateRawSync } from 'node:zlib';
import type * as Saxes from 'saxes';

const fromExceljs = createRequire(createRequire(import.meta.url).resolve('exceljs'));
const { SaxesParser } = fromExceljs('saxes') as typeof Saxes;

/** The entries of a zip file, name to bytes (no zip64: test workbooks are small). */
export function zipEntries(zip: Buffer): Map<string, Buffer> {
  let end = zip.length - 22;
  while (end >= 0 && zip.readUInt32LE(end) !== 0x06054b50) end--;
  if (end < 0) throw new Error('not a zip file: no end of central directory');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`bad central directory entry ${i}`);
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    const data = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(data, data + compressed);
    entries.set(name, method === 8 ? inflateRawSync(raw) : Buffer.from(raw));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** Why each XML part of the workbook is not well-formed XML 1.0 (empty when every part is). */
export function xmlPartProblems(workbook: Buffer): string[] {
  const problems: string[] = [];
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for (const [name, bytes] of zipEntries(workbook)) {
    if (!/\.(xml|rels)$/.test(name)) continue;
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      problems.push(`${name}: not valid UTF-8`);
      continue;
    }
    const errors = xmlTextProblems(text);
    if (errors.length > 0) problems.push(`${name}: ${errors[0]}`);
  }
  return problems;
}

/** Why a text is not well-formed, namespace-correct XML 1.0 (empty when it is). */
export function xmlTextProblems(text: string): string[] {
  const parser = new SaxesParser({ xmlns: true });
  const errors: string[] = [];
  parser.on('error', (error) => errors.push(error.message));
  try {
    parser.write(text).close();
  } catch (error) {
    errors.push(String(error));
  }
  return errors;
}

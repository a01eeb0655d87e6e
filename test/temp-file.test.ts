// The export's temp files (temp-file.ts) as another thread hands them over: a file written in a
// folder() of the export's TempFolder is opened and read there, a path anywhere else is refused,
// and dispose() removes the folder whole, files nobody opened included.

import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TempFolder } from '../src/temp-file.js';
import { tempFolderForTest } from './support/temp-folder.js';

describe('a TempFolder', () => {
  it('reads a file another thread wrote in its folder(), and removes that folder whole', () => {
    const root = tempFolderForTest('temp-file-');
    const temp = new TempFolder(root);
    const folder = temp.folder('statistics');
    expect(readdirSync(root)).toHaveLength(1);
    const written = join(folder, 'runs.bin');
    writeFileSync(written, Buffer.from('0123456789'));
    writeFileSync(join(folder, 'left-behind.bin'), 'x');
    const file = temp.open(written, 10);
    const read = Buffer.alloc(4);
    file.readInto(read, 4, 3);
    expect(read.toString()).toBe('3456');
    expect(file.bytes).toBe(10);
    temp.dispose();
    expect(existsSync(folder)).toBe(false);
    expect(readdirSync(root)).toEqual([]);
  });

  it('refuses to open a file outside the folders it made', () => {
    const root = tempFolderForTest('temp-file-');
    const temp = new TempFolder(root);
    temp.folder('statistics');
    const outside = join(root, 'elsewhere.bin');
    writeFileSync(outside, 'secret');
    expect(() => temp.open(outside, 6)).toThrow(/is not in a folder of/);
    temp.dispose();
    // Not its file: left where it was.
    expect(readdirSync(root)).toEqual(['elsewhere.bin']);
  });

  it('keeps a closed file until it is disposed of', () => {
    const root = tempFolderForTest('temp-file-');
    const temp = new TempFolder(root);
    const file = temp.create('runs');
    file.append(Buffer.from('abc'), 3);
    temp.close();
    expect(existsSync(file.path)).toBe(true);
    temp.dispose();
    expect(existsSync(file.path)).toBe(false);
  });
});

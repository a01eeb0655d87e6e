// Runs the leak guard (leak-guard.ts) around every test and every file. It runs after the file's
// own afterEach/afterAll (vitest runs after-hooks in reverse order), so their cleanup counts.

import { afterAll, afterEach, beforeEach } from 'vitest';
import { checkReleased, enterScope } from './leak-guard.js';

beforeEach(() => enterScope('test'));

afterEach(async () => {
  enterScope('file');
  await checkReleased('test');
});

afterAll(() => checkReleased('file'));

#!/usr/bin/env node
// The installed entry point. `npm ci` builds dist/ through the `prepare` script.
import('../dist/src/cli/main.js').catch((error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/src/cli')) {
    console.error('shift-export: not built yet; run `npm ci` (or `npm run build`) in the repository first');
    process.exit(1);
  }
  throw error;
});

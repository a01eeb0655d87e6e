// Preloaded into a child CLI (`NODE_OPTIONS=--import <this file>`): registers hooks.mjs, which
// prints `module-log: <package>` on stderr for every package module the child resolves.
import { register } from 'node:module';

register(new URL('./hooks.mjs', import.meta.url));
